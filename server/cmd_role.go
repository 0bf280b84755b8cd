package server

import "strings"

// COMMAND GETKEYSANDFLAGS: the keys of a command line with their key-spec
// flags, computed like Redis 7.0's getKeysFromCommandWithSpecs from the
// key specifications of Redis 7.0.15 (commandKeySpecs, generated from
// real Redis's COMMAND INFO) and, where the specs are not enough, the
// getkeys procedures of SET, BITFIELD, SORT and SORT_RO.
//
// The command is registered in cmd_server.go next to COMMAND GETKEYS (its
// container must be registered first).

// keySpec is one key specification: a begin search (an index, or a
// keyword searched from startfrom) and a find-keys rule (a range or a
// key count argument).
type keySpec struct {
	flags     []string
	bsIndex   bool
	pos       int
	keyword   string
	startfrom int
	unknownBS bool
	lastkey   int
	keystep   int
	limit     int
	keynum    bool
	keynumidx int
	firstkey  int
	unknownFK bool
}

type cmdKeySpecs struct {
	noMandatory bool
	specs       []keySpec
}

type keyRef struct {
	pos   int
	flags []string
}

func specHasFlag(sp *keySpec, f string) bool {
	for _, x := range sp.flags {
		if x == f {
			return true
		}
	}
	return false
}

// keysUsingSpecs is getKeysUsingKeySpecs; ok=false for an invalid or
// incomplete spec.
func keysUsingSpecs(specs []keySpec, argv [][]byte) ([]keyRef, bool) {
	argc := len(argv)
	var out []keyRef
	for j := range specs {
		sp := &specs[j]
		first := 0
		switch {
		case sp.bsIndex:
			first = sp.pos
		case sp.keyword != "":
			start, end := sp.startfrom, 0
			if sp.startfrom > 0 {
				end = argc - 1
			} else {
				start = argc + sp.startfrom
			}
			for i := start; i != end; {
				if i >= argc || i < 1 {
					break
				}
				if strings.EqualFold(string(argv[i]), sp.keyword) {
					first = i + 1
					break
				}
				if start <= end {
					i++
				} else {
					i--
				}
			}
			if first == 0 {
				continue
			}
		default:
			return nil, false
		}
		var last, step int
		switch {
		case sp.keynum:
			if sp.keynumidx >= argc || first+sp.keynumidx >= argc {
				return nil, false
			}
			n, ok := parseInt(argv[first+sp.keynumidx])
			if !ok || n < 0 {
				return nil, false
			}
			first += sp.firstkey
			last = first + int(n) - 1
			step = sp.keystep
		case !sp.unknownFK:
			if sp.lastkey >= 0 {
				last = first + sp.lastkey
			} else if sp.limit == 0 {
				last = argc + sp.lastkey
			} else {
				last = first + ((argc-first)/sp.limit + sp.lastkey)
			}
			step = sp.keystep
		default:
			return nil, false
		}
		if last >= argc || last < first || first >= argc {
			return nil, false // out of bounds: a syntax error
		}
		for i := first; i <= last; i += step {
			if i >= argc || i < first {
				// Too few arguments: the command's getkeys procedure
				// decides (and for those implemented here, finds none).
				return nil, false
			}
			out = append(out, keyRef{pos: i, flags: sp.flags})
		}
		if specHasFlag(sp, "incomplete") {
			return nil, false
		}
	}
	return out, true
}

// keysUsingProc is the getkeys procedure of the commands whose specs are
// incomplete or have variable flags.
func keysUsingProc(name string, argv [][]byte) []keyRef {
	switch name {
	case "set":
		for _, a := range argv[3:] {
			if eqFold(a, "get") {
				return []keyRef{{1, []string{"RW", "access", "update"}}}
			}
		}
		return []keyRef{{1, []string{"OW", "update"}}}
	case "bitfield":
		ro := true
		for i := 2; i < len(argv); i++ {
			rem := len(argv) - i - 1
			a := argv[i]
			switch {
			case eqFold(a, "get") && rem >= 2:
				i += 2
				continue
			case (eqFold(a, "set") || eqFold(a, "incrby")) && rem >= 3:
				ro = false
			case eqFold(a, "overflow") && rem >= 1:
				i++
				continue
			default:
				ro = false
			}
			break
		}
		if ro {
			return []keyRef{{1, []string{"RO", "access"}}}
		}
		return []keyRef{{1, []string{"RW", "access", "update"}}}
	case "sort_ro":
		return []keyRef{{1, []string{"RO", "access"}}}
	case "sort":
		out := []keyRef{{1, []string{"RO", "access"}}}
		var store *keyRef
		for i := 2; i < len(argv); i++ {
			switch {
			case eqFold(argv[i], "limit"):
				i += 2
			case eqFold(argv[i], "get"), eqFold(argv[i], "by"):
				i++
			case eqFold(argv[i], "store") && i+1 < len(argv):
				store = &keyRef{i + 1, []string{"OW", "update"}}
			}
		}
		if store != nil {
			out = append(out, *store)
		}
		return out
	}
	return nil
}

// commandKeys is getKeysSubcommandImpl's key extraction for args (a full
// command line): the keys with their flags, or the error to reply. An
// empty, error-free result means "no keys" (commands without mandatory
// keys). COMMAND GETKEYS could use it too, for the movable-keys commands.
func (s *Server) commandKeys(args [][]byte) ([]keyRef, string) {
	cmd, _ := s.lookupCommand(args)
	if cmd == nil {
		return nil, "ERR Invalid command specified"
	}
	name := cmd.fullName()
	ks, hasSpecs := commandKeySpecs[name]
	if !hasSpecs {
		return nil, "ERR The command has no key arguments"
	}
	if !arityOK(cmd, len(args)) {
		return nil, "ERR Invalid number of arguments specified for command"
	}
	varFlags := false
	for i := range ks.specs {
		varFlags = varFlags || specHasFlag(&ks.specs[i], "variable_flags")
	}
	var keys []keyRef
	ok := false
	if !varFlags {
		keys, ok = keysUsingSpecs(ks.specs, args)
	}
	if !ok {
		keys = keysUsingProc(name, args)
	}
	if len(keys) == 0 && !ks.noMandatory {
		return nil, "ERR Invalid arguments specified for command"
	}
	return keys, ""
}

func commandGetkeysandflagsCommand(c *client, argv [][]byte) {
	args := argv[2:]
	keys, errMsg := c.srv.commandKeys(args)
	if errMsg != "" {
		c.err(errMsg)
		return
	}
	c.arrayLen(len(keys))
	for _, k := range keys {
		c.arrayLen(2)
		c.bulk(args[k.pos])
		c.setLen(len(k.flags))
		for _, f := range k.flags {
			c.status(f)
		}
	}
}

// commandKeySpecs are the key specifications of Redis 7.0.15's commands.
var commandKeySpecs = map[string]cmdKeySpecs{
	"append":                {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "insert"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"bitcount":              {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"bitfield":              {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "access", "update", "variable_flags"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"bitfield_ro":           {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"bitop":                 {noMandatory: false, specs: []keySpec{{flags: []string{"OW", "update"}, bsIndex: true, pos: 2, lastkey: 0, keystep: 1, limit: 0}, {flags: []string{"RO", "access"}, bsIndex: true, pos: 3, lastkey: -1, keystep: 1, limit: 0}}},
	"bitpos":                {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"blmove":                {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "access", "delete"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}, {flags: []string{"RW", "insert"}, bsIndex: true, pos: 2, lastkey: 0, keystep: 1, limit: 0}}},
	"blmpop":                {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "access", "delete"}, bsIndex: true, pos: 2, keynum: true, keynumidx: 0, firstkey: 1, keystep: 1}}},
	"blpop":                 {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "access", "delete"}, bsIndex: true, pos: 1, lastkey: -2, keystep: 1, limit: 0}}},
	"brpop":                 {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "access", "delete"}, bsIndex: true, pos: 1, lastkey: -2, keystep: 1, limit: 0}}},
	"brpoplpush":            {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "access", "delete"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}, {flags: []string{"RW", "insert"}, bsIndex: true, pos: 2, lastkey: 0, keystep: 1, limit: 0}}},
	"bzmpop":                {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "access", "delete"}, bsIndex: true, pos: 2, keynum: true, keynumidx: 0, firstkey: 1, keystep: 1}}},
	"bzpopmax":              {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "access", "delete"}, bsIndex: true, pos: 1, lastkey: -2, keystep: 1, limit: 0}}},
	"bzpopmin":              {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "access", "delete"}, bsIndex: true, pos: 1, lastkey: -2, keystep: 1, limit: 0}}},
	"copy":                  {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}, {flags: []string{"OW", "update"}, bsIndex: true, pos: 2, lastkey: 0, keystep: 1, limit: 0}}},
	"decr":                  {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "access", "update"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"decrby":                {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "access", "update"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"del":                   {noMandatory: false, specs: []keySpec{{flags: []string{"RM", "delete"}, bsIndex: true, pos: 1, lastkey: -1, keystep: 1, limit: 0}}},
	"dump":                  {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"eval":                  {noMandatory: true, specs: []keySpec{{flags: []string{"RW", "access", "update"}, bsIndex: true, pos: 2, keynum: true, keynumidx: 0, firstkey: 1, keystep: 1}}},
	"eval_ro":               {noMandatory: true, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 2, keynum: true, keynumidx: 0, firstkey: 1, keystep: 1}}},
	"evalsha":               {noMandatory: true, specs: []keySpec{{flags: []string{"RW", "access", "update"}, bsIndex: true, pos: 2, keynum: true, keynumidx: 0, firstkey: 1, keystep: 1}}},
	"evalsha_ro":            {noMandatory: true, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 2, keynum: true, keynumidx: 0, firstkey: 1, keystep: 1}}},
	"exists":                {noMandatory: false, specs: []keySpec{{flags: []string{"RO"}, bsIndex: true, pos: 1, lastkey: -1, keystep: 1, limit: 0}}},
	"expire":                {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "update"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"expireat":              {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "update"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"expiretime":            {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"fcall":                 {noMandatory: true, specs: []keySpec{{flags: []string{"RW", "access", "update"}, bsIndex: true, pos: 2, keynum: true, keynumidx: 0, firstkey: 1, keystep: 1}}},
	"fcall_ro":              {noMandatory: true, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 2, keynum: true, keynumidx: 0, firstkey: 1, keystep: 1}}},
	"geoadd":                {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "update"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"geodist":               {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"geohash":               {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"geopos":                {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"georadius":             {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}, {flags: []string{"OW", "update"}, keyword: "STORE", startfrom: 6, lastkey: 0, keystep: 1, limit: 0}, {flags: []string{"OW", "update"}, keyword: "STOREDIST", startfrom: 6, lastkey: 0, keystep: 1, limit: 0}}},
	"georadius_ro":          {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"georadiusbymember":     {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}, {flags: []string{"OW", "update"}, keyword: "STORE", startfrom: 5, lastkey: 0, keystep: 1, limit: 0}, {flags: []string{"OW", "update"}, keyword: "STOREDIST", startfrom: 5, lastkey: 0, keystep: 1, limit: 0}}},
	"georadiusbymember_ro":  {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"geosearch":             {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"geosearchstore":        {noMandatory: false, specs: []keySpec{{flags: []string{"OW", "update"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}, {flags: []string{"RO", "access"}, bsIndex: true, pos: 2, lastkey: 0, keystep: 1, limit: 0}}},
	"get":                   {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"getbit":                {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"getdel":                {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "access", "delete"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"getex":                 {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "access", "update"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"getrange":              {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"getset":                {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "access", "update"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"hdel":                  {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "delete"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"hexists":               {noMandatory: false, specs: []keySpec{{flags: []string{"RO"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"hget":                  {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"hgetall":               {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"hincrby":               {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "access", "update"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"hincrbyfloat":          {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "access", "update"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"hkeys":                 {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"hlen":                  {noMandatory: false, specs: []keySpec{{flags: []string{"RO"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"hmget":                 {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"hmset":                 {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "update"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"hrandfield":            {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"hscan":                 {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"hset":                  {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "update"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"hsetnx":                {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "insert"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"hstrlen":               {noMandatory: false, specs: []keySpec{{flags: []string{"RO"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"hvals":                 {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"incr":                  {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "access", "update"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"incrby":                {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "access", "update"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"incrbyfloat":           {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "access", "update"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"lcs":                   {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 1, keystep: 1, limit: 0}}},
	"lindex":                {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"linsert":               {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "insert"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"llen":                  {noMandatory: false, specs: []keySpec{{flags: []string{"RO"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"lmove":                 {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "access", "delete"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}, {flags: []string{"RW", "insert"}, bsIndex: true, pos: 2, lastkey: 0, keystep: 1, limit: 0}}},
	"lmpop":                 {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "access", "delete"}, bsIndex: true, pos: 1, keynum: true, keynumidx: 0, firstkey: 1, keystep: 1}}},
	"lpop":                  {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "access", "delete"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"lpos":                  {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"lpush":                 {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "insert"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"lpushx":                {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "insert"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"lrange":                {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"lrem":                  {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "delete"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"lset":                  {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "update"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"ltrim":                 {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "delete"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"memory|usage":          {noMandatory: false, specs: []keySpec{{flags: []string{"RO"}, bsIndex: true, pos: 2, lastkey: 0, keystep: 1, limit: 0}}},
	"mget":                  {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: -1, keystep: 1, limit: 0}}},
	"migrate":               {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "access", "delete"}, bsIndex: true, pos: 3, lastkey: 0, keystep: 1, limit: 0}, {flags: []string{"RW", "access", "delete", "incomplete"}, keyword: "KEYS", startfrom: -2, lastkey: -1, keystep: 1, limit: 0}}},
	"move":                  {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "access", "update"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"mset":                  {noMandatory: false, specs: []keySpec{{flags: []string{"OW", "update"}, bsIndex: true, pos: 1, lastkey: -1, keystep: 2, limit: 0}}},
	"msetnx":                {noMandatory: false, specs: []keySpec{{flags: []string{"OW", "insert"}, bsIndex: true, pos: 1, lastkey: -1, keystep: 2, limit: 0}}},
	"object|encoding":       {noMandatory: false, specs: []keySpec{{flags: []string{"RO"}, bsIndex: true, pos: 2, lastkey: 0, keystep: 1, limit: 0}}},
	"object|freq":           {noMandatory: false, specs: []keySpec{{flags: []string{"RO"}, bsIndex: true, pos: 2, lastkey: 0, keystep: 1, limit: 0}}},
	"object|idletime":       {noMandatory: false, specs: []keySpec{{flags: []string{"RO"}, bsIndex: true, pos: 2, lastkey: 0, keystep: 1, limit: 0}}},
	"object|refcount":       {noMandatory: false, specs: []keySpec{{flags: []string{"RO"}, bsIndex: true, pos: 2, lastkey: 0, keystep: 1, limit: 0}}},
	"persist":               {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "update"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"pexpire":               {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "update"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"pexpireat":             {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "update"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"pexpiretime":           {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"pfadd":                 {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "insert"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"pfcount":               {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "access"}, bsIndex: true, pos: 1, lastkey: -1, keystep: 1, limit: 0}}},
	"pfdebug":               {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "access"}, bsIndex: true, pos: 2, lastkey: 0, keystep: 1, limit: 0}}},
	"pfmerge":               {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "access", "insert"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}, {flags: []string{"RO", "access"}, bsIndex: true, pos: 2, lastkey: -1, keystep: 1, limit: 0}}},
	"psetex":                {noMandatory: false, specs: []keySpec{{flags: []string{"OW", "update"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"pttl":                  {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"rename":                {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "access", "delete"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}, {flags: []string{"OW", "update"}, bsIndex: true, pos: 2, lastkey: 0, keystep: 1, limit: 0}}},
	"renamenx":              {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "access", "delete"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}, {flags: []string{"OW", "insert"}, bsIndex: true, pos: 2, lastkey: 0, keystep: 1, limit: 0}}},
	"restore":               {noMandatory: false, specs: []keySpec{{flags: []string{"OW", "update"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"restore-asking":        {noMandatory: false, specs: []keySpec{{flags: []string{"OW", "update"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"rpop":                  {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "access", "delete"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"rpoplpush":             {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "access", "delete"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}, {flags: []string{"RW", "insert"}, bsIndex: true, pos: 2, lastkey: 0, keystep: 1, limit: 0}}},
	"rpush":                 {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "insert"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"rpushx":                {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "insert"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"sadd":                  {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "insert"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"scard":                 {noMandatory: false, specs: []keySpec{{flags: []string{"RO"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"sdiff":                 {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: -1, keystep: 1, limit: 0}}},
	"sdiffstore":            {noMandatory: false, specs: []keySpec{{flags: []string{"OW", "update"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}, {flags: []string{"RO", "access"}, bsIndex: true, pos: 2, lastkey: -1, keystep: 1, limit: 0}}},
	"set":                   {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "access", "update", "variable_flags"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"setbit":                {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "access", "update"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"setex":                 {noMandatory: false, specs: []keySpec{{flags: []string{"OW", "update"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"setnx":                 {noMandatory: false, specs: []keySpec{{flags: []string{"OW", "insert"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"setrange":              {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "update"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"sinter":                {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: -1, keystep: 1, limit: 0}}},
	"sintercard":            {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, keynum: true, keynumidx: 0, firstkey: 1, keystep: 1}}},
	"sinterstore":           {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "update"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}, {flags: []string{"RO", "access"}, bsIndex: true, pos: 2, lastkey: -1, keystep: 1, limit: 0}}},
	"sismember":             {noMandatory: false, specs: []keySpec{{flags: []string{"RO"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"smembers":              {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"smismember":            {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"smove":                 {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "access", "delete"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}, {flags: []string{"RW", "insert"}, bsIndex: true, pos: 2, lastkey: 0, keystep: 1, limit: 0}}},
	"sort":                  {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}, {flags: []string{"RO", "access"}, unknownBS: true, unknownFK: true}, {flags: []string{"OW", "update"}, unknownBS: true, unknownFK: true}}},
	"sort_ro":               {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}, {flags: []string{"RO", "access"}, unknownBS: true, unknownFK: true}}},
	"spop":                  {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "access", "delete"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"spublish":              {noMandatory: false, specs: []keySpec{{flags: []string{"not_key"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"srandmember":           {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"srem":                  {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "delete"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"sscan":                 {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"ssubscribe":            {noMandatory: false, specs: []keySpec{{flags: []string{"not_key"}, bsIndex: true, pos: 1, lastkey: -1, keystep: 1, limit: 0}}},
	"strlen":                {noMandatory: false, specs: []keySpec{{flags: []string{"RO"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"substr":                {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"sunion":                {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: -1, keystep: 1, limit: 0}}},
	"sunionstore":           {noMandatory: false, specs: []keySpec{{flags: []string{"OW", "update"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}, {flags: []string{"RO", "access"}, bsIndex: true, pos: 2, lastkey: -1, keystep: 1, limit: 0}}},
	"sunsubscribe":          {noMandatory: false, specs: []keySpec{{flags: []string{"not_key"}, bsIndex: true, pos: 1, lastkey: -1, keystep: 1, limit: 0}}},
	"touch":                 {noMandatory: false, specs: []keySpec{{flags: []string{"RO"}, bsIndex: true, pos: 1, lastkey: -1, keystep: 1, limit: 0}}},
	"ttl":                   {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"type":                  {noMandatory: false, specs: []keySpec{{flags: []string{"RO"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"unlink":                {noMandatory: false, specs: []keySpec{{flags: []string{"RM", "delete"}, bsIndex: true, pos: 1, lastkey: -1, keystep: 1, limit: 0}}},
	"watch":                 {noMandatory: false, specs: []keySpec{{flags: []string{"RO"}, bsIndex: true, pos: 1, lastkey: -1, keystep: 1, limit: 0}}},
	"xack":                  {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "update"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"xadd":                  {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "update"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"xautoclaim":            {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "delete"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"xclaim":                {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "update"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"xdel":                  {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "delete"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"xgroup|create":         {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "insert"}, bsIndex: true, pos: 2, lastkey: 0, keystep: 1, limit: 0}}},
	"xgroup|createconsumer": {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "insert"}, bsIndex: true, pos: 2, lastkey: 0, keystep: 1, limit: 0}}},
	"xgroup|delconsumer":    {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "delete"}, bsIndex: true, pos: 2, lastkey: 0, keystep: 1, limit: 0}}},
	"xgroup|destroy":        {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "delete"}, bsIndex: true, pos: 2, lastkey: 0, keystep: 1, limit: 0}}},
	"xgroup|setid":          {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "update"}, bsIndex: true, pos: 2, lastkey: 0, keystep: 1, limit: 0}}},
	"xinfo|consumers":       {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 2, lastkey: 0, keystep: 1, limit: 0}}},
	"xinfo|groups":          {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 2, lastkey: 0, keystep: 1, limit: 0}}},
	"xinfo|stream":          {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 2, lastkey: 0, keystep: 1, limit: 0}}},
	"xlen":                  {noMandatory: false, specs: []keySpec{{flags: []string{"RO"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"xpending":              {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"xrange":                {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"xread":                 {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, keyword: "STREAMS", startfrom: 1, lastkey: -1, keystep: 1, limit: 2}}},
	"xreadgroup":            {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, keyword: "STREAMS", startfrom: 4, lastkey: -1, keystep: 1, limit: 2}}},
	"xrevrange":             {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"xsetid":                {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "update"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"xtrim":                 {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "delete"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"zadd":                  {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "update"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"zcard":                 {noMandatory: false, specs: []keySpec{{flags: []string{"RO"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"zcount":                {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"zdiff":                 {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, keynum: true, keynumidx: 0, firstkey: 1, keystep: 1}}},
	"zdiffstore":            {noMandatory: false, specs: []keySpec{{flags: []string{"OW", "update"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}, {flags: []string{"RO", "access"}, bsIndex: true, pos: 2, keynum: true, keynumidx: 0, firstkey: 1, keystep: 1}}},
	"zincrby":               {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "access", "update"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"zinter":                {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, keynum: true, keynumidx: 0, firstkey: 1, keystep: 1}}},
	"zintercard":            {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, keynum: true, keynumidx: 0, firstkey: 1, keystep: 1}}},
	"zinterstore":           {noMandatory: false, specs: []keySpec{{flags: []string{"OW", "update"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}, {flags: []string{"RO", "access"}, bsIndex: true, pos: 2, keynum: true, keynumidx: 0, firstkey: 1, keystep: 1}}},
	"zlexcount":             {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"zmpop":                 {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "access", "delete"}, bsIndex: true, pos: 1, keynum: true, keynumidx: 0, firstkey: 1, keystep: 1}}},
	"zmscore":               {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"zpopmax":               {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "access", "delete"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"zpopmin":               {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "access", "delete"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"zrandmember":           {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"zrange":                {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"zrangebylex":           {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"zrangebyscore":         {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"zrangestore":           {noMandatory: false, specs: []keySpec{{flags: []string{"OW", "update"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}, {flags: []string{"RO", "access"}, bsIndex: true, pos: 2, lastkey: 0, keystep: 1, limit: 0}}},
	"zrank":                 {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"zrem":                  {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "delete"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"zremrangebylex":        {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "delete"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"zremrangebyrank":       {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "delete"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"zremrangebyscore":      {noMandatory: false, specs: []keySpec{{flags: []string{"RW", "delete"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"zrevrange":             {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"zrevrangebylex":        {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"zrevrangebyscore":      {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"zrevrank":              {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"zscan":                 {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"zscore":                {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}}},
	"zunion":                {noMandatory: false, specs: []keySpec{{flags: []string{"RO", "access"}, bsIndex: true, pos: 1, keynum: true, keynumidx: 0, firstkey: 1, keystep: 1}}},
	"zunionstore":           {noMandatory: false, specs: []keySpec{{flags: []string{"OW", "update"}, bsIndex: true, pos: 1, lastkey: 0, keystep: 1, limit: 0}, {flags: []string{"RO", "access"}, bsIndex: true, pos: 2, keynum: true, keynumidx: 0, firstkey: 1, keystep: 1}}},
}
