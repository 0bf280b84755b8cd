package manifest

import "strconv"

// Type is the file type letter of a manifest line.
type Type byte

// File types; part of the on-disk format.
const (
	Base    Type = 'b'
	History Type = 'h'
	Incr    Type = 'i'
)

// File is one manifest line.
type File struct {
	Name string
	Seq  int64
	Type Type
}

// Manifest is the parsed manifest. Treat it as immutable: the With/After
// methods return new values.
type Manifest struct {
	Base        *File
	History     []File // in file order (newest first, as Redis writes them)
	Incrs       []File // ascending seq, as listed
	CurrBaseSeq int64  // base seq (0 if none)
	CurrIncrSeq int64  // last incr seq (0 if none)
}

// Naming rules (aof.c); part of the on-disk format.
const (
	baseSuffix     = ".base"
	incrSuffix     = ".incr"
	rdbSuffix      = ".rdb"
	aofSuffix      = ".aof"
	manifestSuffix = ".manifest"
	tempPrefix     = "temp-"
)

// BaseName is "<filename>.<seq>.base.rdb" or "<filename>.<seq>.base.aof".
func BaseName(filename string, seq int64, rdb bool) string {
	suffix := aofSuffix
	if rdb {
		suffix = rdbSuffix
	}
	return filename + "." + strconv.FormatInt(seq, 10) + baseSuffix + suffix
}

// IncrName is "<filename>.<seq>.incr.aof".
func IncrName(filename string, seq int64) string {
	return filename + "." + strconv.FormatInt(seq, 10) + incrSuffix + aofSuffix
}

// TempIncrName is "temp-<filename>.incr", used while AOF is being turned on.
func TempIncrName(filename string) string { return tempPrefix + filename + incrSuffix }

// ManifestName is "<filename>.manifest".
func ManifestName(filename string) string { return filename + manifestSuffix }

// TempManifestName is "temp-<filename>.manifest".
func TempManifestName(filename string) string { return tempPrefix + filename + manifestSuffix }

// Upgraded is the manifest Redis persists when it adopts an old single-file
// AOF named filename as the base (aofUpgradePrepare): "file <filename> seq 1 type b".
func Upgraded(filename string) *Manifest {
	return &Manifest{Base: &File{Name: filename, Seq: 1, Type: Base}, CurrBaseSeq: 1}
}

// Clone returns a deep copy. A nil receiver clones as an empty manifest.
func (m *Manifest) Clone() *Manifest {
	if m == nil {
		return &Manifest{}
	}
	c := &Manifest{CurrBaseSeq: m.CurrBaseSeq, CurrIncrSeq: m.CurrIncrSeq}
	if m.Base != nil {
		b := *m.Base
		c.Base = &b
	}
	if len(m.History) > 0 {
		c.History = append([]File(nil), m.History...)
	}
	if len(m.Incrs) > 0 {
		c.Incrs = append([]File(nil), m.Incrs...)
	}
	return c
}

// Empty reports whether there is no base and no incr (Redis's AOF_NOT_EXIST).
func (m *Manifest) Empty() bool { return m == nil || (m.Base == nil && len(m.Incrs) == 0) }

// LastIncr returns the incr currently written to, if any.
func (m *Manifest) LastIncr() (File, bool) {
	if m == nil || len(m.Incrs) == 0 {
		return File{}, false
	}
	return m.Incrs[len(m.Incrs)-1], true
}

// WithNewIncr returns a copy with a new incr, seq CurrIncrSeq+1, appended
// (getNewIncrAofName), and that file.
func (m *Manifest) WithNewIncr(filename string) (*Manifest, File) {
	c := m.Clone()
	c.CurrIncrSeq++
	f := File{Name: IncrName(filename, c.CurrIncrSeq), Seq: c.CurrIncrSeq, Type: Incr}
	c.Incrs = append(c.Incrs, f)
	return c, f
}

// AfterRewrite returns the manifest after a successful rewrite while AOF is
// on, and the new base: seq CurrBaseSeq+1, the old base moved to the head of
// History, then every incr except the last (the one being written) moved to
// History, walking from the tail and inserting at the head (Redis order).
//
// For a rewrite that finishes in the WAIT_REWRITE state (AOF being turned
// on), call WithNewIncr first for the renamed temp incr, then AfterRewrite:
// this is the order Redis applies the changes in.
func (m *Manifest) AfterRewrite(filename string, rdbBase bool) (*Manifest, File) {
	return m.afterRewrite(filename, rdbBase, true)
}

// AfterRewriteAOFOff is AfterRewrite when AOF is off (BGREWRITEAOF with
// appendonly no): all incrs move to History.
func (m *Manifest) AfterRewriteAOFOff(filename string, rdbBase bool) (*Manifest, File) {
	return m.afterRewrite(filename, rdbBase, false)
}

func (m *Manifest) afterRewrite(filename string, rdbBase, keepLast bool) (*Manifest, File) {
	c := m.Clone()
	var head []File // entries to put before the existing history, in final order
	if c.Base != nil {
		old := *c.Base
		old.Type = History
		head = append(head, old)
	}
	c.CurrBaseSeq++
	base := File{Name: BaseName(filename, c.CurrBaseSeq, rdbBase), Seq: c.CurrBaseSeq, Type: Base}
	c.Base = &base

	n := len(c.Incrs)
	if keepLast && n > 0 {
		n--
	}
	// Walking incrs[0:n] from the tail and inserting each at the head leaves
	// them in ascending order in front of the old base.
	moved := make([]File, 0, n+len(head)+len(c.History))
	for _, f := range c.Incrs[:n] {
		f.Type = History
		moved = append(moved, f)
	}
	moved = append(moved, head...)
	c.History = append(moved, c.History...)
	if n > 0 {
		c.Incrs = append([]File(nil), c.Incrs[n:]...)
	}
	if len(c.Incrs) == 0 {
		c.Incrs = nil
	}
	if len(c.History) == 0 {
		c.History = nil
	}
	return c, base
}

// WithoutHistory returns a copy with no history entries (after aofDelHistoryFiles).
func (m *Manifest) WithoutHistory() *Manifest {
	c := m.Clone()
	c.History = nil
	return c
}
