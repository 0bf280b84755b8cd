// Package rstring holds Redis's string helpers, once: every package that
// needs one of them calls it here rather than keeping its own copy, so that
// a fix (such as CVE-2022-36021's for glob matching) lands everywhere.
package rstring
