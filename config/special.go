package config

import (
	"path/filepath"
	"strconv"
	"strings"

	"github.com/aofserver/aofserver/rstring"
)

// Set/get/rewrite functions of the directives that need special handling
// (Redis's createSpecialConfig entries).

func getRaw(d *directive, c *Config) string { return c.raw[d.name] }

func setDir(_ *directive, c *Config, args []string) string {
	if len(args) != 1 {
		return "wrong number of arguments"
	}
	if args[0] == "" {
		return "No such file or directory" // chdir("") fails with ENOENT
	}
	c.Dir = args[0]
	return ""
}

// getDir prints the absolute directory, as Redis's getcwd does.
func getDir(_ *directive, c *Config) string {
	if c.Dir == "" {
		return ""
	}
	abs, err := filepath.Abs(c.Dir)
	if err != nil {
		return c.Dir
	}
	return abs
}

func setSave(_ *directive, c *Config, args []string) string {
	if len(args) == 1 && args[0] == "" {
		args = nil
	}
	if len(args)%2 != 0 {
		return "Invalid save parameters"
	}
	pts := make([]SavePoint, 0, len(args)/2)
	for j := 0; j < len(args); j += 2 {
		secs, ok1 := strtollFull(args[j])
		changes, ok2 := strtollFull(args[j+1])
		if !ok1 || !ok2 || secs < 1 || changes < 0 {
			return "Invalid save parameters"
		}
		// Redis keeps seconds in a time_t and changes in an int.
		pts = append(pts, SavePoint{Seconds: secs, Changes: int64(int32(changes))})
	}
	// While reading a file, the first save line replaces the defaults and
	// later ones append (Redis's reading_config_file/save_loaded quirk);
	// save "" always empties the list.
	if !c.readingFile || !c.saveLoaded || len(pts) == 0 {
		c.Save = c.Save[:0:0]
		if c.readingFile {
			c.saveLoaded = true
		}
	}
	c.Save = append(c.Save, pts...)
	return ""
}

func getSave(_ *directive, c *Config) string {
	var b strings.Builder
	for i, p := range c.Save {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.FormatInt(p.Seconds, 10))
		b.WriteByte(' ')
		b.WriteString(strconv.FormatInt(p.Changes, 10))
	}
	return b.String()
}

var obufClassNames = [3]string{"normal", "slave", "pubsub"}

func setOBufLimit(_ *directive, c *Config, args []string) string {
	if len(args)%4 != 0 {
		return "Wrong number of arguments in buffer limit configuration."
	}
	vals := c.ClientOutputBufferLimit
	for j := 0; j < len(args); j += 4 {
		class := -1
		switch strings.ToLower(args[j]) {
		case "normal":
			class = ClassNormal
		case "slave", "replica":
			class = ClassReplica
		case "pubsub":
			class = ClassPubSub
		}
		if class < 0 {
			return "Invalid client class specified in buffer limit configuration."
		}
		hard, ok1 := memToInt(args[j+1])
		soft, ok2 := memToInt(args[j+2])
		secs, ok3 := strtollFull(args[j+3])
		if !ok1 || !ok2 || !ok3 || secs < 0 {
			return "Error in hard, soft or soft_seconds setting in buffer limit configuration."
		}
		vals[class] = OutputBufferLimit{Hard: hard, Soft: soft, SoftSeconds: int64(int32(secs))}
	}
	c.ClientOutputBufferLimit = vals
	return ""
}

func getOBufLimit(_ *directive, c *Config) string {
	var b strings.Builder
	for i, l := range c.ClientOutputBufferLimit {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(obufClassNames[i])
		for _, v := range []int64{l.Hard, l.Soft, l.SoftSeconds} {
			b.WriteByte(' ')
			b.WriteString(strconv.FormatInt(v, 10))
		}
	}
	return b.String()
}

// setOOMValues mirrors setConfigOOMScoreAdjValuesOption.
func setOOMValues(d *directive, c *Config, args []string) string {
	if len(args) != 3 {
		return "wrong number of arguments"
	}
	vals := make([]string, 3)
	for i, a := range args {
		v, ok := strtollFull(a)
		if !ok || v < -2000 || v > 2000 {
			return "Invalid oom-score-adj-values, elements must be between -2000 and 2000."
		}
		vals[i] = strconv.FormatInt(v, 10)
	}
	c.raw[d.name] = strings.Join(vals, " ")
	return ""
}

// Keyspace notification classes (notify.c).
const (
	notifyKeyspace = 1 << iota
	notifyKeyevent
	notifyGeneric
	notifyString
	notifyList
	notifySet
	notifyHash
	notifyZset
	notifyExpired
	notifyEvicted
	notifyStream
	notifyKeyMiss
	notifyLoaded
	notifyModule
	notifyNew
	notifyAll = notifyGeneric | notifyString | notifyList | notifySet | notifyHash | notifyZset |
		notifyExpired | notifyEvicted | notifyStream | notifyModule
)

func parseNotify(s string) (int, bool) {
	f := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case 'A':
			f |= notifyAll
		case 'g':
			f |= notifyGeneric
		case '$':
			f |= notifyString
		case 'l':
			f |= notifyList
		case 's':
			f |= notifySet
		case 'h':
			f |= notifyHash
		case 'z':
			f |= notifyZset
		case 'x':
			f |= notifyExpired
		case 'e':
			f |= notifyEvicted
		case 'K':
			f |= notifyKeyspace
		case 'E':
			f |= notifyKeyevent
		case 't':
			f |= notifyStream
		case 'm':
			f |= notifyKeyMiss
		case 'd':
			f |= notifyModule
		case 'n':
			f |= notifyNew
		default:
			return 0, false
		}
	}
	return f, true
}

func formatNotify(f int) string {
	var b strings.Builder
	if f&notifyAll == notifyAll {
		b.WriteByte('A')
	} else {
		for _, p := range []struct {
			bit int
			c   byte
		}{{notifyGeneric, 'g'}, {notifyString, '$'}, {notifyList, 'l'}, {notifySet, 's'}, {notifyHash, 'h'},
			{notifyZset, 'z'}, {notifyExpired, 'x'}, {notifyEvicted, 'e'}, {notifyStream, 't'}, {notifyModule, 'd'}, {notifyNew, 'n'}} {
			if f&p.bit != 0 {
				b.WriteByte(p.c)
			}
		}
	}
	if f&notifyKeyspace != 0 {
		b.WriteByte('K')
	}
	if f&notifyKeyevent != 0 {
		b.WriteByte('E')
	}
	if f&notifyKeyMiss != 0 {
		b.WriteByte('m')
	}
	return b.String()
}

func setNotify(_ *directive, c *Config, args []string) string {
	if len(args) != 1 {
		return "wrong number of arguments"
	}
	f, ok := parseNotify(args[0])
	if !ok {
		return "Invalid event class character. Use 'Ag$lshzxeKEtmdn'."
	}
	c.NotifyKeyspaceEvents = formatNotify(f)
	c.notifyBits = f // "A" hides 'n' in the display string, not in the flags
	return ""
}

func getNotify(_ *directive, c *Config) string { return c.NotifyKeyspaceEvents }

// NotifyFlags returns NotifyKeyspaceEvents as bits: K=1, E=2, g=4, $=8,
// l=16, s=32, h=64, z=128, x=256, e=512, t=1024, m=2048, d=8192, n=16384
// (Redis's NOTIFY_* values).
func (c *Config) NotifyFlags() int { return c.notifyBits }

func setBind(_ *directive, c *Config, args []string) string {
	if len(args) > 16 {
		return "Too many bind addresses specified."
	}
	if len(args) == 1 && args[0] == "" {
		args = nil
	}
	// An empty address among others cannot be bound and would not survive
	// CONFIG REWRITE (the addresses are written space-separated).
	var addrs []string
	for _, a := range args {
		if a != "" {
			addrs = append(addrs, a)
		}
	}
	c.Bind = addrs
	return ""
}

func getBind(_ *directive, c *Config) string { return strings.Join(c.Bind, " ") }

func setReplicaOf(d *directive, c *Config, args []string) string {
	if len(args) != 2 {
		return "wrong number of arguments"
	}
	if strings.EqualFold(args[0], "no") && strings.EqualFold(args[1], "one") {
		c.raw[d.name] = ""
		return ""
	}
	port, ok := strtol(args[1])
	if !ok || port < 0 || port > 65535 {
		c.raw[d.name] = ""
		return "Invalid master port"
	}
	c.raw[d.name] = args[0] + " " + strconv.FormatInt(port, 10)
	return ""
}

// SetReplicaOf records the master REPLICAOF set at run time ("" for NO
// ONE), as Redis's masterhost/masterport that CONFIG GET replicaof and
// CONFIG REWRITE read (the directive is immutable to CONFIG SET).
func (c *Config) SetReplicaOf(host string, port int) {
	if host == "" {
		c.raw["replicaof"] = ""
		return
	}
	c.raw["replicaof"] = host + " " + strconv.Itoa(port)
}

// strtol is strtol(s, &end, 10) with *end == '\0' required.
func strtol(s string) (int64, bool) { return strtollFull(s) }

func setPercentiles(d *directive, c *Config, args []string) string {
	if len(args) == 1 && args[0] == "" {
		args = nil
	}
	out := make([]string, 0, len(args))
	for _, a := range args {
		f, ok := string2d(a)
		if !ok {
			c.raw[d.name] = ""
			return "Invalid latency-tracking-info-percentiles parameters"
		}
		if f > 100 || f < 0 {
			c.raw[d.name] = ""
			return "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]"
		}
		out = append(out, formatPercentile(f))
	}
	c.raw[d.name] = strings.Join(out, " ")
	return ""
}

// string2d is Redis's string2d: a full strtod parse, no leading space, not NaN.
func string2d(s string) (float64, bool) {
	if s == "" || rstring.IsSpace(s[0]) {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != f {
		return 0, false
	}
	return f, true
}

// formatPercentile is "%f" with trailing zeros (and a bare dot) trimmed.
func formatPercentile(f float64) string {
	s := strconv.FormatFloat(f, 'f', 6, 64)
	if strings.IndexByte(s, '.') >= 0 {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	return s
}
