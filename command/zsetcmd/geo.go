package zsetcmd

import (
	"bytes"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/aofserver/aofserver/command"
	"github.com/aofserver/aofserver/geohash"
	"github.com/aofserver/aofserver/rstring"
	"github.com/aofserver/aofserver/zset"
)

// GEO commands (Redis's geo.c): a geo index is a sorted set whose scores
// are 52-bit geohashes (see package geohash).

// GeoGroup is the "geo" group, as the server registers it.
var GeoGroup = command.Group{Name: "geo", Category: "@geo", Commands: []command.Spec{
	geo("geoadd", -5, w, 1, 1, geoaddCommand, "Add one or more geospatial items in the geospatial index represented using a sorted set", "3.2.0", "@write", "@slow"),
	geo("geodist", -4, r, 1, 1, geodistCommand, "Returns the distance between two members of a geospatial index", "3.2.0", "@read", "@slow"),
	geo("geohash", -2, r, 1, 1, geohashCommand, "Returns members of a geospatial index as standard geohash strings", "3.2.0", "@read", "@slow"),
	geo("geopos", -2, r, 1, 1, geoposCommand, "Returns longitude and latitude of members of a geospatial index", "3.2.0", "@read", "@slow"),
	geo("georadius", -6, w, 1, 1, georadiusCommand, "Query a sorted set representing a geospatial index to fetch members matching a given maximum distance from a point", "3.2.0", "@write", "@slow"),
	geo("georadius_ro", -6, r, 1, 1, georadiusROCommand, "A read-only variant for GEORADIUS", "3.2.10", "@read", "@slow"),
	geo("georadiusbymember", -5, w, 1, 1, georadiusbymemberCommand, "Query a sorted set representing a geospatial index to fetch members matching a given maximum distance from a member", "3.2.0", "@write", "@slow"),
	geo("georadiusbymember_ro", -5, r, 1, 1, georadiusbymemberROCommand, "A read-only variant for GEORADIUSBYMEMBER", "3.2.10", "@read", "@slow"),
	geo("geosearch", -7, r, 1, 1, geosearchCommand, "Query a sorted set representing a geospatial index to fetch members inside an area of a box or a circle.", "6.2.0", "@read", "@slow"),
	geo("geosearchstore", -8, w, 1, 2, geosearchstoreCommand, "Query a sorted set representing a geospatial index to fetch members inside an area of a box or a circle, and store the result in another key.", "6.2.0", "@write", "@slow"),
}}

func geo(name string, arity int, flags command.Flag, first, last int, proc command.Proc, summary, since string, acl ...string) command.Spec {
	return command.Spec{Name: name, Arity: arity, Flags: flags, FirstKey: first, LastKey: last, Step: 1, Proc: proc, Summary: summary, Since: since, ACL: acl}
}

// cFormatF is C's "%f".
func cFormatF(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'f', 6, 64)
}

// geoParseDouble is getDoubleFromObjectOrReply with an optional message.
func geoParseDouble(c command.Ctx, b []byte, msg string) (float64, bool) {
	f, ok := zset.ParseScore(b)
	if !ok {
		if msg == "" {
			c.Err(command.ErrNotFloat)
		} else {
			c.Err("ERR " + msg)
		}
		return 0, false
	}
	return f, true
}

// geoLonLat is extractLongLatOrReply.
func geoLonLat(c command.Ctx, argv [][]byte) (lon, lat float64, ok bool) {
	if lon, ok = geoParseDouble(c, argv[0], ""); !ok {
		return
	}
	if lat, ok = geoParseDouble(c, argv[1], ""); !ok {
		return
	}
	if lon < geohash.LongMin || lon > geohash.LongMax || lat < geohash.LatMin || lat > geohash.LatMax {
		c.Err("ERR invalid longitude,latitude pair " + cFormatF(lon) + "," + cFormatF(lat))
		return 0, 0, false
	}
	return lon, lat, true
}

// geoUnit is extractUnitOrReply: meters per unit, or -1 after an error.
func geoUnit(c command.Ctx, u []byte) float64 {
	switch {
	case rstring.EqualFold(u, "m"):
		return 1
	case rstring.EqualFold(u, "km"):
		return 1000
	case rstring.EqualFold(u, "ft"):
		return 0.3048
	case rstring.EqualFold(u, "mi"):
		return 1609.34
	}
	c.Err("ERR unsupported unit provided. please use M, KM, FT, MI")
	return -1
}

// geoDistanceArg is extractDistanceOrReply: <radius> <unit>.
func geoDistanceArg(c command.Ctx, argv [][]byte) (radius, conversion float64, ok bool) {
	d, ok := geoParseDouble(c, argv[0], "need numeric radius")
	if !ok {
		return 0, 0, false
	}
	if d < 0 {
		c.Err("ERR radius cannot be negative")
		return 0, 0, false
	}
	conv := geoUnit(c, argv[1])
	if conv < 0 {
		return 0, 0, false
	}
	return d, conv, true
}

// geoBoxArg is extractBoxOrReply: <width> <height> <unit>.
func geoBoxArg(c command.Ctx, argv [][]byte) (w, h, conversion float64, ok bool) {
	if w, ok = geoParseDouble(c, argv[0], "need numeric width"); !ok {
		return
	}
	if h, ok = geoParseDouble(c, argv[1], "need numeric height"); !ok {
		return
	}
	if h < 0 || w < 0 {
		c.Err("ERR height or width cannot be negative")
		return 0, 0, 0, false
	}
	conv := geoUnit(c, argv[2])
	if conv < 0 {
		return 0, 0, 0, false
	}
	return w, h, conv, true
}

// geoFormatDistance is addReplyDoubleDistance's "%.4f".
func geoFormatDistance(d float64) string {
	switch {
	case math.IsInf(d, 1):
		return "inf"
	case math.IsInf(d, -1):
		return "-inf"
	case math.IsNaN(d):
		if math.Signbit(d) {
			return "-nan"
		}
		return "nan"
	}
	return strconv.FormatFloat(d, 'f', 4, 64)
}

// humanLongDouble replies a coordinate as addReplyHumanLongDouble: "%.17Lf"
// with trailing zeros removed, bulk in RESP2 and a double in RESP3.
func humanLongDouble(c command.Ctx, f float64) {
	s := strconv.FormatFloat(f, 'f', 17, 64)
	if strings.IndexByte(s, '.') >= 0 {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	if s == "-0" {
		s = "0" // ld2string's human mode prints negative zero as "0"
	}
	c.DoubleString(s)
}

func geoaddCommand(c command.Ctx, argv [][]byte) {
	xx, nx := false, false
	longidx := 2
	for ; longidx < len(argv); longidx++ {
		a := argv[longidx]
		if rstring.EqualFold(a, "nx") {
			nx = true
		} else if rstring.EqualFold(a, "xx") {
			xx = true
		} else if !rstring.EqualFold(a, "ch") {
			break
		}
	}
	if (len(argv)-longidx)%3 != 0 || (xx && nx) {
		c.Err(command.ErrSyntax)
		return
	}
	elements := (len(argv) - longidx) / 3
	zargv := make([][]byte, 0, longidx+elements*2)
	zargv = append(zargv, []byte("zadd"))
	for i := 1; i < longidx; i++ {
		zargv = append(zargv, bytes.Clone(argv[i]))
	}
	for i := 0; i < elements; i++ {
		p := argv[longidx+i*3:]
		lon, lat, ok := geoLonLat(c, p)
		if !ok {
			return
		}
		h, _ := geohash.EncodeWGS84(lon, lat, geohash.StepMax)
		zargv = append(zargv, strconv.AppendUint(nil, h.Align52(), 10), bytes.Clone(p[2]))
	}
	zaddGeneric(c, zargv, 0)
	c.RewriteArgv(zargv...)
}

// geoZsetScore returns member's score in a possibly absent zset.
func geoZsetScore(z *zset.Set, member []byte) (float64, bool) {
	if z == nil {
		return 0, false
	}
	return z.Score(member)
}

func geodistCommand(c command.Ctx, argv [][]byte) {
	toMeter := 1.0
	if len(argv) == 5 {
		if toMeter = geoUnit(c, argv[4]); toMeter < 0 {
			return
		}
	} else if len(argv) > 5 {
		c.Err(command.ErrSyntax)
		return
	}
	z, wrong := read(c, argv[1])
	if wrong {
		return
	}
	s1, ok1 := geoZsetScore(z, argv[2])
	s2, ok2 := geoZsetScore(z, argv[3])
	if !ok1 || !ok2 {
		c.Null()
		return
	}
	lon1, lat1, ok1 := geohash.DecodeScore(s1)
	lon2, lat2, ok2 := geohash.DecodeScore(s2)
	if !ok1 || !ok2 {
		c.Null()
		return
	}
	c.BulkString(geoFormatDistance(geohash.Distance(lon1, lat1, lon2, lat2) / toMeter))
}

const geoAlphabet = "0123456789bcdefghjkmnpqrstuvwxyz"

func geohashCommand(c command.Ctx, argv [][]byte) {
	z, wrong := read(c, argv[1])
	if wrong {
		return
	}
	c.ArrayLen(len(argv) - 2)
	for _, m := range argv[2:] {
		sc, ok := geoZsetScore(z, m)
		if !ok {
			c.Null()
			continue
		}
		lon, lat, ok := geohash.DecodeScore(sc)
		if !ok {
			c.Null()
			continue
		}
		h, _ := geohash.Encode(geohash.Range{Min: -180, Max: 180}, geohash.Range{Min: -90, Max: 90}, lon, lat, 26)
		var buf [11]byte
		for i := 0; i < 11; i++ {
			idx := 0
			if i < 10 {
				idx = int(h.Hash>>(52-(uint(i)+1)*5)) & 0x1f
			}
			buf[i] = geoAlphabet[idx]
		}
		c.Bulk(buf[:])
	}
}

func geoposCommand(c command.Ctx, argv [][]byte) {
	z, wrong := read(c, argv[1])
	if wrong {
		return
	}
	c.ArrayLen(len(argv) - 2)
	for _, m := range argv[2:] {
		sc, ok := geoZsetScore(z, m)
		if !ok {
			c.NullArray()
			continue
		}
		lon, lat, ok := geohash.DecodeScore(sc)
		if !ok {
			c.NullArray()
			continue
		}
		c.ArrayLen(2)
		humanLongDouble(c, lon)
		humanLongDouble(c, lat)
	}
}

// Search flags of georadiusGeneric.
const (
	geoRadiusCoords = 1 << iota
	geoRadiusMember
	geoRadiusNoStore
	geoSearch
	geoSearchStore
)

func georadiusCommand(c command.Ctx, argv [][]byte) { georadiusGeneric(c, argv, 1, geoRadiusCoords) }
func georadiusROCommand(c command.Ctx, argv [][]byte) {
	georadiusGeneric(c, argv, 1, geoRadiusCoords|geoRadiusNoStore)
}
func georadiusbymemberCommand(c command.Ctx, argv [][]byte) {
	georadiusGeneric(c, argv, 1, geoRadiusMember)
}
func georadiusbymemberROCommand(c command.Ctx, argv [][]byte) {
	georadiusGeneric(c, argv, 1, geoRadiusMember|geoRadiusNoStore)
}
func geosearchCommand(c command.Ctx, argv [][]byte) { georadiusGeneric(c, argv, 1, geoSearch) }
func geosearchstoreCommand(c command.Ctx, argv [][]byte) {
	georadiusGeneric(c, argv, 2, geoSearch|geoSearchStore)
}

type geoPoint struct {
	lon, lat, dist, score float64
	member                []byte
}

// geoMemberPos is longLatFromMember.
func geoMemberPos(z *zset.Set, member []byte) (lon, lat float64, ok bool) {
	sc, ok := z.Score(member)
	if !ok {
		return 0, 0, false
	}
	return geohash.DecodeScore(sc)
}

func georadiusGeneric(c command.Ctx, argv [][]byte, srcIdx int, flags int) {
	var storekey []byte
	storedist := false
	z, wrong := read(c, argv[srcIdx])
	if wrong {
		return
	}
	var base int
	var sh geohash.Shape
	switch {
	case flags&geoRadiusCoords != 0:
		base = 6
		var ok bool
		if sh.Lon, sh.Lat, ok = geoLonLat(c, argv[2:]); !ok {
			return
		}
		if sh.Radius, sh.Conversion, ok = geoDistanceArg(c, argv[base-2:]); !ok {
			return
		}
	case flags&geoRadiusMember != 0 && z == nil:
		base = 5
	case flags&geoRadiusMember != 0:
		base = 5
		var ok bool
		if sh.Lon, sh.Lat, ok = geoMemberPos(z, argv[2]); !ok {
			c.Err("ERR could not decode requested zset member")
			return
		}
		if sh.Radius, sh.Conversion, ok = geoDistanceArg(c, argv[base-2:]); !ok {
			return
		}
	default:
		base = 2
		if flags&geoSearchStore != 0 {
			base = 3
			storekey = argv[1]
		}
	}
	withdist, withhash, withcoords := false, false, false
	frommember, fromloc, byradius, bybox := false, false, false, false
	sortDir := 0 // 0 none, 1 asc, 2 desc
	any := false
	var count int64
	remaining := len(argv) - base
	for i := 0; i < remaining; i++ {
		a := argv[base+i]
		switch {
		case rstring.EqualFold(a, "withdist"):
			withdist = true
		case rstring.EqualFold(a, "withhash"):
			withhash = true
		case rstring.EqualFold(a, "withcoord"):
			withcoords = true
		case rstring.EqualFold(a, "any"):
			any = true
		case rstring.EqualFold(a, "asc"):
			sortDir = 1
		case rstring.EqualFold(a, "desc"):
			sortDir = 2
		case rstring.EqualFold(a, "count") && i+1 < remaining:
			n, ok := rstring.String2ll(argv[base+i+1])
			if !ok {
				c.Err(command.ErrNotInt)
				return
			}
			if n <= 0 {
				c.Err("ERR COUNT must be > 0")
				return
			}
			count = n
			i++
		case rstring.EqualFold(a, "store") && i+1 < remaining && flags&geoRadiusNoStore == 0 && flags&geoSearch == 0:
			storekey, storedist = argv[base+i+1], false
			i++
		case rstring.EqualFold(a, "storedist") && i+1 < remaining && flags&geoRadiusNoStore == 0 && flags&geoSearch == 0:
			storekey, storedist = argv[base+i+1], true
			i++
		case rstring.EqualFold(a, "storedist") && flags&geoSearch != 0 && flags&geoSearchStore != 0:
			storedist = true
		case rstring.EqualFold(a, "frommember") && i+1 < remaining && flags&geoSearch != 0 && !fromloc:
			if z != nil {
				var ok bool
				if sh.Lon, sh.Lat, ok = geoMemberPos(z, argv[base+i+1]); !ok {
					c.Err("ERR could not decode requested zset member")
					return
				}
			}
			frommember = true
			i++
		case rstring.EqualFold(a, "fromlonlat") && i+2 < remaining && flags&geoSearch != 0 && !frommember:
			var ok bool
			if sh.Lon, sh.Lat, ok = geoLonLat(c, argv[base+i+1:]); !ok {
				return
			}
			fromloc = true
			i += 2
		case rstring.EqualFold(a, "byradius") && i+2 < remaining && flags&geoSearch != 0 && !bybox:
			var ok bool
			if sh.Radius, sh.Conversion, ok = geoDistanceArg(c, argv[base+i+1:]); !ok {
				return
			}
			sh.Box = false
			byradius = true
			i += 2
		case rstring.EqualFold(a, "bybox") && i+3 < remaining && flags&geoSearch != 0 && !byradius:
			var ok bool
			if sh.Width, sh.Height, sh.Conversion, ok = geoBoxArg(c, argv[base+i+1:]); !ok {
				return
			}
			sh.Box = true
			bybox = true
			i += 3
		default:
			c.Err(command.ErrSyntax)
			return
		}
	}
	if storekey != nil && (withdist || withhash || withcoords) {
		what := "STORE option in GEORADIUS"
		if flags&geoSearchStore != 0 {
			what = "GEOSEARCHSTORE"
		}
		c.Err("ERR " + what + " is not compatible with WITHDIST, WITHHASH and WITHCOORD options")
		return
	}
	if flags&geoSearch != 0 && !(frommember || fromloc) {
		c.Err("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for " + string(argv[0]))
		return
	}
	if flags&geoSearch != 0 && !(byradius || bybox) {
		c.Err("ERR exactly one of BYRADIUS and BYBOX can be specified for " + string(argv[0]))
		return
	}
	if any && count == 0 {
		c.Err("ERR the ANY argument requires COUNT argument")
		return
	}
	if z == nil {
		if storekey != nil {
			if c.DeleteKey(storekey) {
				c.SignalModifiedKey(storekey)
				c.Notify(command.NotifyGeneric, "del", storekey)
				c.AddDirty(1)
			}
			c.Integer(0)
		} else {
			c.EmptyArray()
		}
		return
	}
	if count != 0 && sortDir == 0 && !any {
		sortDir = 1
	}
	var limit int
	if any {
		limit = int(min(count, math.MaxInt32))
	}
	points := geoMembersOfAllNeighbors(z, &sh, limit)
	if len(points) == 0 && storekey == nil {
		c.EmptyArray()
		return
	}
	returned := len(points)
	if count != 0 && int64(returned) > count {
		returned = int(count)
	}
	if sortDir != 0 {
		cmp := func(x, y *geoPoint) int {
			r := 0
			if x.dist > y.dist {
				r = 1
			} else if x.dist < y.dist {
				r = -1
			}
			if sortDir == 2 {
				r = -r
			}
			return r
		}
		if returned == len(points) {
			// glibc's qsort is a merge sort here: stable.
			sort.SliceStable(points, func(i, j int) bool { return cmp(&points[i], &points[j]) < 0 })
		} else {
			geoPartialSort(points, cmp, 0, returned-1)
		}
	}
	points = points[:returned]
	if storekey == nil {
		opts := 0
		for _, b := range []bool{withdist, withcoords, withhash} {
			if b {
				opts++
			}
		}
		c.ArrayLen(returned)
		for i := range points {
			gp := &points[i]
			gp.dist /= sh.Conversion
			if opts > 0 {
				c.ArrayLen(opts + 1)
			}
			c.Bulk(gp.member)
			if withdist {
				c.BulkString(geoFormatDistance(gp.dist))
			}
			if withhash {
				c.Integer(int64(gp.score))
			}
			if withcoords {
				c.ArrayLen(2)
				humanLongDouble(c, gp.lon)
				humanLongDouble(c, gp.lat)
			}
		}
		return
	}
	if returned > 0 {
		maxLen := 0
		for i := range points {
			maxLen = max(maxLen, len(points[i].member))
		}
		var dst *zset.Set
		if returned <= c.Config().ZSetMaxListpackEntries && maxLen <= c.Config().ZSetMaxListpackValue {
			dst = zset.NewListpack(0)
		} else {
			dst = zset.NewSkiplist(returned)
		}
		for i := range points {
			gp := &points[i]
			gp.dist /= sh.Conversion
			sc := gp.score
			if storedist {
				sc = gp.dist
			}
			dst.InsertRaw(bytes.Clone(gp.member), sc)
		}
		c.SetKey(storekey, command.Obj(command.TypeZSet, dst))
		c.SignalModifiedKey(storekey)
		ev := "georadiusstore"
		if flags&geoSearch != 0 {
			ev = "geosearchstore"
		}
		c.Notify(command.NotifyZset, ev, storekey)
		c.AddDirty(int64(returned))
	} else if c.DeleteKey(storekey) {
		c.SignalModifiedKey(storekey)
		c.Notify(command.NotifyGeneric, "del", storekey)
		c.AddDirty(1)
	}
	c.Integer(int64(returned))
}

// geoMembersOfAllNeighbors collects the members inside the shape from the
// nine search boxes, in Redis's order; limit > 0 stops early (ANY).
func geoMembersOfAllNeighbors(z *zset.Set, sh *geohash.Shape, limit int) []geoPoint {
	boxes := geohash.SearchAreas(sh)
	var out []geoPoint
	last := 0
	for i, b := range boxes {
		if b.IsZero() {
			continue
		}
		if last != 0 && b == boxes[last] {
			continue
		}
		if len(out) > 0 && limit > 0 && len(out) >= limit {
			break
		}
		minS := b.Align52()
		b.Hash++
		maxS := b.Align52()
		out = geoPointsInRange(z, float64(minS), float64(maxS), sh, out, limit)
		last = i
	}
	return out
}

func geoPointsInRange(z *zset.Set, minS, maxS float64, sh *geohash.Shape, out []geoPoint, limit int) []geoPoint {
	r := zset.ScoreRange{Min: minS, Max: maxS, MaxEx: true}
	first := z.FirstInScore(&r)
	if first < 0 {
		return out
	}
	for cur := z.Cursor(first); cur.Valid(); cur.Step(false) {
		m, sc := cur.Get()
		if !r.LteMax(sc) {
			break
		}
		lon, lat, ok := geohash.DecodeScore(sc)
		if !ok {
			continue
		}
		d, in := sh.Within(lon, lat)
		if !in {
			continue
		}
		out = append(out, geoPoint{lon: lon, lat: lat, dist: d, score: sc, member: m})
		if limit > 0 && len(out) >= limit {
			break
		}
	}
	return out
}

// geoPartialSort is Redis's pqsort (Bentley & McIlroy's quicksort that
// only recurses into partitions overlapping ranks [lrange, rrange]): GEO
// replies with COUNT sort this way, and the order of equal distances
// depends on it.
func geoPartialSort(a []geoPoint, cmp func(x, y *geoPoint) int, lrange, rrange int) {
	geoPqsort(a, 0, len(a), cmp, lrange, rrange)
}

func geoPqsort(arr []geoPoint, a, n int, cmp func(x, y *geoPoint) int, lrange, rrange int) {
	swap := func(i, j int) { arr[i], arr[j] = arr[j], arr[i] }
	vecswap := func(i, j, cnt int) {
		for k := 0; k < cnt; k++ {
			swap(i+k, j+k)
		}
	}
	c := func(i, j int) int { return cmp(&arr[i], &arr[j]) }
	med3 := func(x, y, z int) int {
		if c(x, y) < 0 {
			if c(y, z) < 0 {
				return y
			}
			if c(x, z) < 0 {
				return z
			}
			return x
		}
		if c(y, z) > 0 {
			return y
		}
		if c(x, z) < 0 {
			return x
		}
		return z
	}
	insertion := func() {
		for pm := a + 1; pm < a+n; pm++ {
			for pl := pm; pl > a && c(pl-1, pl) > 0; pl-- {
				swap(pl, pl-1)
			}
		}
	}
	for {
		swapped := false
		if n < 7 {
			insertion()
			return
		}
		pm := a + n/2
		if n > 7 {
			pl, pn := a, a+n-1
			if n > 40 {
				d := n / 8
				pl = med3(pl, pl+d, pl+2*d)
				pm = med3(pm-d, pm, pm+d)
				pn = med3(pn-2*d, pn-d, pn)
			}
			pm = med3(pl, pm, pn)
		}
		swap(a, pm)
		pa, pb := a+1, a+1
		pc, pd := a+n-1, a+n-1
		for {
			for pb <= pc {
				r := c(pb, a)
				if r > 0 {
					break
				}
				if r == 0 {
					swapped = true
					swap(pa, pb)
					pa++
				}
				pb++
			}
			for pb <= pc {
				r := c(pc, a)
				if r < 0 {
					break
				}
				if r == 0 {
					swapped = true
					swap(pc, pd)
					pd--
				}
				pc--
			}
			if pb > pc {
				break
			}
			swap(pb, pc)
			swapped = true
			pb++
			pc--
		}
		if !swapped {
			insertion()
			return
		}
		pn := a + n
		r := min(pa-a, pb-pa)
		vecswap(a, pb-r, r)
		r = min(pd-pc, pn-pd-1)
		vecswap(pb, pn-r, r)
		outside := func(first, last int) bool {
			return (lrange < first && rrange < first) || (lrange > last && rrange > last)
		}
		if r = pb - pa; r > 1 && !outside(a, a+r-1) {
			geoPqsort(arr, a, r, cmp, lrange, rrange)
		}
		if r = pd - pc; r > 1 {
			a, n = pn-r, r
			if !outside(a, a+r-1) {
				continue
			}
		}
		return
	}
}
