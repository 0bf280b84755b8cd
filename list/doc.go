// Package list is Redis 7.0.15's list value without server state: a ring
// buffer deque of owned element copies, so that pushes and pops at both
// ends are amortized O(1) and LINDEX/LSET are O(1), with its memory
// estimate and RDB form. The list commands and blocking pops stay in
// package server.
package list
