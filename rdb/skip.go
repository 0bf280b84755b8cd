package rdb

import (
	"errors"
	"fmt"
)

// Values we cannot represent but can step over, so that Decode delivers
// every other key before reporting them:
//
//	module v2 (7):   <len module id> (<len opcode> <operand>)... <len 0>
//	                 opcodes 1 SINT, 2 UINT <len>; 3 FLOAT 4 bytes; 4 DOUBLE 8 bytes; 5 STRING <string>
//	module aux (F7): <len module id> <len when-opcode> <len when> then as module v2
//
// Module v1 values (6) are not self-describing and stop the decode.

var errModuleOpcode = errors.New("unknown module value opcode")

func (d *decoder) skip(n uint64) error {
	var buf [64]byte
	for n > 0 {
		k := min(n, uint64(len(buf)))
		if err := d.readFull(buf[:k]); err != nil {
			return err
		}
		n -= k
	}
	return nil
}

func (d *decoder) skipString() error {
	n, enc, err := d.readLen()
	if err != nil {
		return err
	}
	if !enc {
		return d.skip(n)
	}
	_, err = d.readStringEncoded(n)
	return err
}

func (d *decoder) skipCounts(k int) error {
	for i := 0; i < k; i++ {
		if _, err := d.readCount(); err != nil {
			return err
		}
	}
	return nil
}

// skipModuleValue skips the opcode-tagged body of a MODULE_2 value or a
// MODULE_AUX record (after its header).
func (d *decoder) skipModuleValue() error {
	for {
		op, err := d.readCount()
		if err != nil {
			return err
		}
		switch op {
		case 0:
			return nil
		case 1, 2:
			_, err = d.readCount()
		case 3:
			err = d.skip(4)
		case 4:
			err = d.skip(8)
		case 5:
			err = d.skipString()
		default:
			return d.corrupt(fmt.Errorf("%w %d", errModuleOpcode, op))
		}
		if err != nil {
			return err
		}
	}
}

// skipUnsupported steps over a value of type t; ok is false if t cannot be
// skipped.
func (d *decoder) skipUnsupported(t byte) (ok bool, err error) {
	switch t {
	case typeModule2:
		if _, err := d.readCount(); err != nil {
			return true, err
		}
		return true, d.skipModuleValue()
	case opModuleAux:
		if err := d.skipCounts(3); err != nil {
			return true, err
		}
		return true, d.skipModuleValue()
	}
	return false, nil
}
