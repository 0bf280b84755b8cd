package rdb

import (
	"bufio"
	"bytes"
	"io"
)

func ioReadFull(r io.Reader, b []byte) (int, error) { return io.ReadFull(r, b) }

func bufioReader(b []byte) *bufio.Reader { return bufio.NewReader(bytes.NewReader(b)) }
