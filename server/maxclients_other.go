//go:build !unix

package server

import "errors"

var errNoRlimit = errors.New("not supported")

func getNoFile() (cur, max uint64, err error) { return 0, 0, errNoRlimit }
func setNoFile(n uint64) error                { return errNoRlimit }
func nrOpen() uint64                          { return 0 }
