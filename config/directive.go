package config

import (
	"math"
	"strconv"
	"strings"

	"github.com/aofserver/aofserver/rstring"
)

type kind uint8

const (
	kindBool kind = iota
	kindString
	kindEnum
	kindNum
	kindSpecial
)

type flag uint32

const (
	fImmutable   flag = 1 << iota // CONFIG SET refuses it
	fHidden                       // only an exact CONFIG GET name shows it
	fMultiArg                     // takes several arguments
	fProtected                    // CONFIG SET needs enable-protected-configs
	fDenyLoading                  // CONFIG SET refused while loading
	fSensitive                    // value is a secret
	fMemory                       // numeric: accepts units, prints plain bytes
	fPercent                      // numeric: accepts N% (stored negative)
	fOctal                        // numeric: octal
	fUnsigned                     // numeric: C unsigned type (bounds checked unsigned)
	fEmptyIsNull                  // string: "" means unset
	fEnumFlags                    // enum: several names OR-ed together
	fOurs                         // aofserver's own directive
)

type enumVal struct {
	name string
	val  int
}

// directive describes one configuration directive, mirroring one entry of
// Redis's standardConfig table.
type directive struct {
	name, alias string
	kind        kind
	flags       flag
	def         string // default, in CONFIG GET form
	lo          int64  // numeric lower bound
	hi          uint64 // numeric upper bound
	enum        []enumVal
	valid       func(string) string // string/num validity check; returns reason or ""
	field       func(c *Config) any // *bool, *int, *int64, *string, or nil (raw)
	typed       bool                // special directive stored in a Config field

	// special directives
	set     func(d *directive, c *Config, args []string) string
	get     func(d *directive, c *Config) string
	rewrite func(d *directive, c *Config, st *rewriteState)
	after   func(c *Config) // called after a successful set (hz clamp)
}

func (d *directive) has(f flag) bool { return d.flags&f != 0 }

// defaultArgs turns def into the arguments a config line would carry.
func (d *directive) defaultArgs() []string {
	if d.has(fMultiArg) {
		return splitSetValue(d.def)
	}
	return []string{d.def}
}

// splitSetValue splits a CONFIG SET value of a multi-argument directive on
// single spaces, as sdssplitlen does ("" gives no arguments).
func splitSetValue(v string) []string {
	if v == "" {
		return nil
	}
	return strings.Split(v, " ")
}

// setArgs validates args and stores them; it returns "" or Redis's reason.
func (d *directive) setArgs(c *Config, args []string) string {
	var reason string
	switch d.kind {
	case kindBool:
		reason = d.setBool(c, args[0])
	case kindString:
		if d.valid != nil {
			if r := d.valid(args[0]); r != "" {
				return r
			}
		}
		d.storeStr(c, args[0])
	case kindEnum:
		reason = d.setEnum(c, args)
	case kindNum:
		reason = d.setNum(c, args[0])
	case kindSpecial:
		reason = d.set(d, c, args)
	}
	if reason == "" && d.after != nil {
		d.after(c)
	}
	return reason
}

// value returns the directive's value as CONFIG GET prints it.
func (d *directive) value(c *Config) string {
	switch d.kind {
	case kindBool:
		return yesNo(d.boolVal(c))
	case kindString, kindEnum:
		return d.strVal(c)
	case kindNum:
		v := d.numVal(c)
		switch {
		case d.has(fPercent) && v < 0:
			return strconv.FormatInt(-v, 10) + "%"
		case d.has(fOctal):
			return strconv.FormatInt(v, 8)
		}
		return strconv.FormatInt(v, 10)
	}
	return d.get(d, c)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func (d *directive) setBool(c *Config, s string) string {
	var b bool
	switch strings.ToLower(s) {
	case "yes":
		b = true
	case "no":
	default:
		return "argument must be 'yes' or 'no'"
	}
	if d.field != nil {
		*d.field(c).(*bool) = b
	} else {
		c.raw[d.name] = yesNo(b)
	}
	return ""
}

func (d *directive) boolVal(c *Config) bool {
	if d.field != nil {
		return *d.field(c).(*bool)
	}
	return c.raw[d.name] == "yes"
}

func (d *directive) storeStr(c *Config, s string) {
	if d.field != nil {
		*d.field(c).(*string) = s
	} else {
		c.raw[d.name] = s
	}
}

func (d *directive) strVal(c *Config) string {
	if d.field != nil {
		return *d.field(c).(*string)
	}
	return c.raw[d.name]
}

func (d *directive) setEnum(c *Config, args []string) string {
	if !d.has(fEnumFlags) || len(args) == 0 {
		args = args[:min(len(args), 1)]
	}
	bits := 0
	for _, a := range args {
		v, ok := d.enumLookup(a)
		if !ok {
			names := make([]string, len(d.enum))
			for i, e := range d.enum {
				names[i] = e.name
			}
			return "argument(s) must be one of the following: " + strings.Join(names, ", ")
		}
		bits |= v
	}
	d.storeStr(c, d.enumName(bits))
	return ""
}

func (d *directive) enumLookup(s string) (int, bool) {
	for _, e := range d.enum {
		if strings.EqualFold(e.name, s) {
			return e.val, true
		}
	}
	return 0, false
}

// enumName is the canonical spelling of val: the first name with that value
// (so oom-score-adj "relative" reads back as "yes"), or for flag enums the
// names of the set bits in table order.
func (d *directive) enumName(val int) string {
	if !d.has(fEnumFlags) || val == 0 {
		for _, e := range d.enum {
			if e.val == val {
				return e.name
			}
		}
		return "unknown"
	}
	var parts []string
	for _, e := range d.enum {
		if e.val != 0 && val&e.val == e.val {
			parts = append(parts, e.name)
		}
	}
	return strings.Join(parts, " ")
}

// parseNum applies Redis's numericParseString rules.
func (d *directive) parseNum(s string) (int64, string) {
	if d.has(fMemory) {
		if v, ok := memToInt(s); ok {
			return v, ""
		}
	}
	if d.has(fPercent) && len(s) > 1 && s[len(s)-1] == '%' {
		if v, ok := rstring.String2ll(s[:len(s)-1]); ok && v >= 0 {
			return -v, ""
		}
	}
	if d.has(fOctal) {
		if v, err := strconv.ParseInt(s, 8, 64); err == nil {
			return v, ""
		}
	}
	if !d.has(fMemory | fPercent | fOctal) {
		if v, ok := rstring.String2ll(s); ok {
			return v, ""
		}
	}
	switch {
	case d.has(fMemory) && d.has(fPercent):
		return 0, "argument must be a memory or percent value"
	case d.has(fMemory):
		return 0, "argument must be a memory value"
	case d.has(fOctal):
		return 0, "argument couldn't be parsed as an octal number"
	}
	return 0, "argument couldn't be parsed into an integer"
}

func (d *directive) setNum(c *Config, s string) string {
	v, reason := d.parseNum(s)
	if reason != "" {
		return reason
	}
	if d.has(fUnsigned) {
		u := uint64(v)
		if u > d.hi || u < uint64(d.lo) {
			if d.has(fOctal) {
				return "argument must be between " + strconv.FormatUint(uint64(d.lo), 8) + " and " + strconv.FormatUint(d.hi, 8) + " inclusive"
			}
			return "argument must be between " + strconv.FormatUint(uint64(d.lo), 10) + " and " + strconv.FormatUint(d.hi, 10) + " inclusive"
		}
	} else if d.has(fPercent) && v < 0 {
		if v < d.lo {
			return "percentage argument must be less or equal to " + strconv.FormatInt(-d.lo, 10)
		}
	} else if v > int64(d.hi) || v < d.lo {
		return "argument must be between " + strconv.FormatInt(d.lo, 10) + " and " + strconv.FormatUint(d.hi, 10) + " inclusive"
	}
	if d.valid != nil {
		if r := d.valid(s); r != "" {
			return r
		}
	}
	d.storeNum(c, v)
	return ""
}

func (d *directive) storeNum(c *Config, v int64) {
	if d.field == nil {
		c.raw[d.name] = strconv.FormatInt(v, 10)
		return
	}
	switch p := d.field(c).(type) {
	case *int:
		*p = int(v)
	case *int64:
		*p = v
	}
}

func (d *directive) numVal(c *Config) int64 {
	if d.field == nil {
		v, _ := strconv.ParseInt(c.raw[d.name], 10, 64)
		return v
	}
	switch p := d.field(c).(type) {
	case *int:
		return int64(*p)
	case *int64:
		return *p
	}
	return 0
}

// C limits used by the table.
const (
	intMax   = math.MaxInt32
	intMin   = math.MinInt32
	uintMax  = math.MaxUint32
	longMax  = math.MaxInt64
	llongMax = math.MaxInt64
	ullMax   = math.MaxUint64
)
