package server

import (
	"fmt"
	"math"
	"math/rand"
	"strconv"
	"testing"
)

// geoFixture is a small world-wide index, including points at the
// latitude limits and on the antimeridian.
func geoFixture(key string) [][]string {
	return [][]string{
		cmd("GEOADD", key, "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania"),
		cmd("GEOADD", key, "-122.4194", "37.7749", "SF", "-73.935242", "40.730610", "NYC", "2.3522", "48.8566", "Paris"),
		cmd("GEOADD", key, "179.999", "0.5", "east", "-179.999", "0.5", "west", "180", "-10", "edge180", "-180", "-10", "edgem180"),
		cmd("GEOADD", key, "0", "85.05112878", "north", "0", "-85.05112878", "south", "10", "84.9", "nearnorth", "-10", "-84.5", "nearsouth"),
		cmd("GEOADD", key, "0", "0", "origin", "0.0001", "0.0001", "tiny", "151.2093", "-33.8688", "Sydney"),
	}
}

func TestDiffGeoAddPosHashDist(t *testing.T) {
	cmds := geoFixture("g")
	cmds = append(cmds,
		cmd("ZRANGE", "g", "0", "-1", "WITHSCORES"),
		cmd("GEOPOS", "g", "Palermo", "Catania", "nope", "SF", "NYC", "east", "west", "edge180", "edgem180", "north", "south", "origin", "tiny", "Sydney"),
		cmd("GEOHASH", "g", "Palermo", "Catania", "nope", "SF", "NYC", "east", "west", "edge180", "edgem180", "north", "south", "origin", "tiny", "Sydney"),
		cmd("GEOPOS", "nokey", "a", "b"),
		cmd("GEOHASH", "nokey", "a"),
		cmd("GEODIST", "g", "Palermo", "Catania"),
		cmd("GEODIST", "g", "Palermo", "Catania", "km"),
		cmd("GEODIST", "g", "Palermo", "Catania", "KM"),
		cmd("GEODIST", "g", "Palermo", "Catania", "mi"),
		cmd("GEODIST", "g", "Palermo", "Catania", "ft"),
		cmd("GEODIST", "g", "Palermo", "Catania", "M"),
		cmd("GEODIST", "g", "Palermo", "Catania", "yd"),
		cmd("GEODIST", "g", "Palermo", "Catania", "km", "x"),
		cmd("GEODIST", "g", "Palermo", "nope"),
		cmd("GEODIST", "nokey", "a", "b"),
		cmd("GEODIST", "nokey", "a", "b", "parsec"),
		cmd("GEODIST", "g", "east", "west"),
		cmd("GEODIST", "g", "north", "south", "km"),
		cmd("GEODIST", "g", "origin", "tiny"),
		cmd("GEODIST", "g", "origin", "origin"),
		cmd("GEODIST", "g", "SF", "Sydney", "mi"),
		// options and errors
		cmd("GEOADD", "g", "NX", "1", "1", "Palermo", "2", "2", "new1"),
		cmd("GEOADD", "g", "XX", "1", "1", "Palermo", "2", "2", "new2"),
		cmd("GEOADD", "g", "XX", "CH", "1", "1", "Palermo", "2", "2", "new3"),
		cmd("GEOADD", "g", "CH", "1", "1", "Palermo", "3", "3", "new4"),
		cmd("GEOADD", "g", "CH", "NX", "XX", "1", "1", "x"),
		cmd("GEOADD", "g", "nx", "ch", "4", "4", "new5", "1", "1", "Palermo"),
		cmd("GEOADD", "g", "1", "1"),
		cmd("GEOADD", "g", "1", "1", "a", "2"),
		cmd("GEOADD", "g", "ch", "ch", "ch"),
		cmd("GEOADD", "g", "200", "100", "bad"),
		cmd("GEOADD", "g", "1", "1", "ok", "-180.5", "0", "bad"),
		cmd("GEOADD", "g", "0", "85.06", "bad"),
		cmd("GEOADD", "g", "inf", "0", "bad"),
		cmd("GEOADD", "g", "0", "-inf", "bad"),
		cmd("GEOADD", "g", "abc", "0", "bad"),
		cmd("GEOADD", "g", "0", "nan", "bad"),
		cmd("GEOADD", "g", " 1", "0", "bad"),
		cmd("GEOADD", "g", "1e1", "0x10", "hexy"),
		cmd("GEOADD", "g"),
		cmd("GEOPOS", "g", "hexy", "ok", "bad"),
		cmd("SET", "str", "x"),
		cmd("GEOADD", "str", "1", "1", "a"),
		cmd("GEOPOS", "str", "a"),
		cmd("GEOHASH", "str", "a"),
		cmd("GEODIST", "str", "a", "b"),
		cmd("GEODIST", "str", "a", "b", "zz"),
		cmd("GEOPOS", "g"),
		cmd("GEOHASH", "g"),
		// scores that are not geohashes
		cmd("ZADD", "z", "-1", "neg", "1e300", "huge", "4503599627370496", "big", "0", "zero", "inf", "pinf"),
		cmd("GEOPOS", "z", "neg", "huge", "big", "zero", "pinf"),
		cmd("GEOHASH", "z", "neg", "huge", "big", "zero", "pinf"),
		cmd("GEODIST", "z", "neg", "zero"),
		cmd("GEODIST", "z", "big", "pinf"),
		cmd("GEORADIUS", "z", "0", "0", "20000", "km"),
	)
	diff(t, cmds)
}

func TestDiffGeoResp3(t *testing.T) {
	cmds := geoFixture("g")
	cmds = append(cmds,
		cmd("GEOPOS", "g", "Palermo", "nope", "origin"),
		cmd("GEOHASH", "g", "Palermo", "nope"),
		cmd("GEODIST", "g", "Palermo", "nope"),
		cmd("GEODIST", "g", "Palermo", "Catania"),
		cmd("GEOSEARCH", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "WITHCOORD", "WITHDIST", "WITHHASH", "ASC"),
		cmd("GEORADIUS", "g", "15", "37", "200", "km", "WITHCOORD", "DESC"),
	)
	diff3(t, cmds)
}

func TestDiffGeoRadius(t *testing.T) {
	cmds := geoFixture("g")
	for _, c := range []string{"GEORADIUS", "GEORADIUS_RO"} {
		cmds = append(cmds,
			cmd(c, "g", "15", "37", "200", "km", "ASC"),
			cmd(c, "g", "15", "37", "200", "km", "DESC"),
			sorted(c, "g", "15", "37", "200", "km"),
			cmd(c, "g", "15", "37", "200", "km", "WITHDIST", "ASC"),
			cmd(c, "g", "15", "37", "200", "km", "WITHCOORD", "WITHHASH", "WITHDIST", "ASC"),
			cmd(c, "g", "15", "37", "200", "km", "withcoord", "desc", "count", "1"),
			cmd(c, "g", "15", "37", "200", "km", "COUNT", "1"),
			cmd(c, "g", "15", "37", "200", "km", "COUNT", "1", "ANY"),
			cmd(c, "g", "15", "37", "200", "km", "COUNT", "5", "ANY", "ASC"),
			cmd(c, "g", "15", "37", "200", "km", "ANY"),
			cmd(c, "g", "15", "37", "200", "km", "COUNT", "0"),
			cmd(c, "g", "15", "37", "200", "km", "COUNT", "-1"),
			cmd(c, "g", "15", "37", "200", "km", "COUNT", "x"),
			cmd(c, "g", "15", "37", "200", "km", "COUNT"),
			cmd(c, "g", "15", "37", "200", "km", "BOGUS"),
			cmd(c, "g", "15", "37", "200", "parsec"),
			cmd(c, "g", "15", "37", "-1", "km"),
			cmd(c, "g", "15", "37", "x", "km"),
			cmd(c, "g", "15", "100", "1", "km"),
			cmd(c, "g", "x", "37", "1", "km"),
			cmd(c, "g", "0", "0", "0", "km", "WITHDIST"),
			cmd(c, "g", "0", "0", "20", "m", "WITHDIST"),
			cmd(c, "g", "0", "0", "16", "m", "WITHDIST"),
			cmd(c, "g", "180", "0", "200", "km", "WITHDIST", "ASC"),
			cmd(c, "g", "-180", "0", "200", "km", "WITHDIST", "ASC"),
			cmd(c, "g", "179.9", "0.4", "50", "km", "WITHDIST", "ASC"),
			cmd(c, "g", "0", "85", "500", "km", "WITHDIST", "ASC"),
			cmd(c, "g", "45", "-85", "5000", "km", "WITHDIST", "ASC"),
			cmd(c, "g", "0", "0", "6000", "km", "WITHDIST", "ASC"),
			cmd(c, "g", "0", "0", "20000", "km", "WITHDIST", "ASC"),
			cmd(c, "g", "0", "0", "50000", "km", "WITHDIST", "ASC"),
			cmd(c, "g", "-100", "40", "3000", "mi", "WITHDIST", "WITHHASH", "ASC"),
			cmd(c, "g", "2", "48", "1000000", "ft", "WITHDIST", "ASC"),
			cmd(c, "g", "0", "0", "inf", "km", "ASC"),
			cmd(c, "g", "0", "0", "1e308", "km", "ASC", "WITHDIST"),
			cmd(c, "g", "0", "0", "-0", "km", "WITHDIST"),
			cmd(c, "g", "0", "0", "1e-300", "mi", "WITHDIST"),
			cmd(c, "g", "0", "0", "200", "km", "COUNT", "9223372036854775807", "ANY"),
			cmd(c, "g", "0", "0", "200", "km", "COUNT", "9223372036854775808"),
			cmd(c, "nokey", "15", "37", "200", "km"),
			cmd(c, "nokey", "15", "37", "200", "km", "STORE", "d"),
			cmd(c, "str", "15", "37", "200", "km"),
		)
	}
	for _, c := range []string{"GEORADIUSBYMEMBER", "GEORADIUSBYMEMBER_RO"} {
		cmds = append(cmds,
			cmd(c, "g", "Palermo", "200", "km", "ASC", "WITHDIST"),
			cmd(c, "g", "Palermo", "200", "km", "DESC", "WITHCOORD", "WITHHASH"),
			cmd(c, "g", "Palermo", "200", "km", "COUNT", "1", "ANY", "WITHDIST"),
			cmd(c, "g", "east", "100", "km", "WITHDIST", "ASC"),
			cmd(c, "g", "north", "1000", "km", "WITHDIST", "ASC"),
			cmd(c, "g", "nope", "200", "km"),
			cmd(c, "g", "Palermo", "-2", "km"),
			cmd(c, "g", "Palermo", "2", "kmx"),
			cmd(c, "nokey", "Palermo", "bad", "kmx"),
			cmd(c, "nokey", "Palermo", "bad", "kmx", "BOGUS"),
			cmd(c, "nokey", "Palermo", "1", "km", "STORE", "g2"),
			cmd(c, "str", "Palermo", "200", "km"),
		)
	}
	diff(t, cmds)
}

func TestDiffGeoRadiusStore(t *testing.T) {
	cmds := geoFixture("g")
	cmds = append(cmds,
		cmd("GEORADIUS", "g", "15", "37", "200", "km", "STORE", "d1"),
		cmd("ZRANGE", "d1", "0", "-1", "WITHSCORES"),
		cmd("GEORADIUS", "g", "15", "37", "200", "km", "STOREDIST", "d2"),
		cmd("ZRANGE", "d2", "0", "-1", "WITHSCORES"),
		cmd("GEORADIUS", "g", "15", "37", "200", "km", "STOREDIST", "d3", "COUNT", "1", "DESC"),
		cmd("ZRANGE", "d3", "0", "-1", "WITHSCORES"),
		cmd("GEORADIUS", "g", "15", "37", "200", "km", "STORE", "d4", "STOREDIST", "d5"),
		cmd("EXISTS", "d4", "d5"),
		cmd("GEORADIUS", "g", "15", "37", "200", "km", "STORE", "d1", "WITHDIST"),
		cmd("GEORADIUS", "g", "15", "37", "200", "km", "STORE"),
		cmd("GEORADIUS_RO", "g", "15", "37", "200", "km", "STORE", "d9"),
		cmd("GEORADIUS", "g", "15", "37", "1", "m", "STORE", "d1"),
		cmd("EXISTS", "d1"),
		cmd("GEORADIUS", "nokey", "15", "37", "1", "m", "STORE", "d2"),
		cmd("EXISTS", "d2"),
		cmd("GEORADIUSBYMEMBER", "g", "Palermo", "300", "km", "STORE", "d6"),
		cmd("ZRANGE", "d6", "0", "-1", "WITHSCORES"),
		cmd("GEORADIUSBYMEMBER", "g", "Palermo", "300", "km", "STOREDIST", "g"),
		cmd("ZRANGE", "g", "0", "-1", "WITHSCORES"),
		cmd("OBJECT", "ENCODING", "d6"),
		cmd("CONFIG", "SET", "zset-max-listpack-entries", "1"),
		cmd("GEORADIUSBYMEMBER", "d6", "Palermo", "300", "km", "STORE", "d7"),
		cmd("OBJECT", "ENCODING", "d7"),
		cmd("OBJECT", "ENCODING", "d6"),
		cmd("GEORADIUSBYMEMBER", "d7", "Palermo", "300", "km", "WITHDIST", "ASC"),
	)
	diff(t, cmds)
}

func TestDiffGeoSearch(t *testing.T) {
	cmds := geoFixture("g")
	cmds = append(cmds,
		cmd("GEOSEARCH", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "ASC"),
		cmd("GEOSEARCH", "g", "FROMMEMBER", "Palermo", "BYRADIUS", "200", "km", "DESC", "WITHDIST"),
		cmd("GEOSEARCH", "g", "FROMLONLAT", "15", "37", "BYBOX", "400", "400", "km", "ASC", "WITHDIST", "WITHCOORD", "WITHHASH"),
		cmd("GEOSEARCH", "g", "FROMLONLAT", "15", "37", "BYBOX", "100", "400", "km", "ASC", "WITHDIST"),
		cmd("GEOSEARCH", "g", "FROMLONLAT", "15", "37", "BYBOX", "400", "100", "km", "ASC", "WITHDIST"),
		cmd("GEOSEARCH", "g", "FROMMEMBER", "origin", "BYBOX", "40", "40", "m", "WITHDIST"),
		cmd("GEOSEARCH", "g", "FROMMEMBER", "origin", "BYBOX", "0", "0", "m", "WITHDIST"),
		cmd("GEOSEARCH", "g", "FROMLONLAT", "0", "0", "BYBOX", "40000", "40000", "km", "ASC", "WITHDIST"),
		cmd("GEOSEARCH", "g", "FROMLONLAT", "180", "0", "BYBOX", "400", "400", "km", "ASC", "WITHDIST"),
		cmd("GEOSEARCH", "g", "FROMLONLAT", "0", "80", "BYBOX", "3000", "3000", "km", "ASC", "WITHDIST"),
		cmd("GEOSEARCH", "g", "FROMLONLAT", "0", "-80", "BYRADIUS", "3000", "km", "ASC", "WITHDIST"),
		cmd("GEOSEARCH", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "2000", "km", "COUNT", "2"),
		cmd("GEOSEARCH", "g", "FROMLONLAT", "15", "37", "BYBOX", "inf", "inf", "km", "ASC"),
		cmd("GEOSEARCH", "g", "FROMLONLAT", "15", "37", "BYBOX", "1e308", "10", "km", "ASC"),
		cmd("GEOSEARCH", "g", "FROMLONLAT", "15", "-37", "BYBOX", "10000", "5000", "km", "ASC", "WITHDIST"),
		cmd("GEOSEARCH", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "2000", "km", "COUNT", "2", "DESC"),
		cmd("GEOSEARCH", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "2000", "km", "COUNT", "2", "ANY"),
		cmd("GEOSEARCH", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "20000", "km", "COUNT", "3", "ANY", "DESC", "WITHDIST"),
		// errors
		cmd("GEOSEARCH", "g", "FROMLONLAT", "15", "37", "FROMMEMBER", "Palermo", "BYRADIUS", "1", "km"),
		cmd("GEOSEARCH", "g", "FROMMEMBER", "Palermo", "FROMLONLAT", "15", "37", "BYRADIUS", "1", "km"),
		cmd("GEOSEARCH", "g", "FROMMEMBER", "nope", "BYRADIUS", "1", "km"),
		cmd("GEOSEARCH", "g", "BYRADIUS", "1", "km", "ASC"),
		cmd("geosearch", "g", "FROMMEMBER", "Palermo", "ASC", "WITHDIST"),
		cmd("GEOSEARCH", "g", "FROMMEMBER", "Palermo", "BYRADIUS", "1", "km", "BYBOX", "1", "1", "km"),
		cmd("GEOSEARCH", "g", "FROMMEMBER", "Palermo", "BYBOX", "1", "1", "km", "BYRADIUS", "1", "km"),
		cmd("GEOSEARCH", "g", "FROMMEMBER", "Palermo", "BYBOX", "-1", "1", "km"),
		cmd("GEOSEARCH", "g", "FROMMEMBER", "Palermo", "BYBOX", "x", "1", "km"),
		cmd("GEOSEARCH", "g", "FROMMEMBER", "Palermo", "BYBOX", "1", "y", "km"),
		cmd("GEOSEARCH", "g", "FROMMEMBER", "Palermo", "BYBOX", "1", "1", "kk"),
		cmd("GEOSEARCH", "g", "FROMMEMBER", "Palermo", "BYBOX", "1", "1"),
		cmd("GEOSEARCH", "g", "FROMMEMBER", "Palermo", "BYRADIUS", "1", "km", "ANY"),
		cmd("GEOSEARCH", "g", "FROMMEMBER", "Palermo", "BYRADIUS", "1", "km", "STORE", "x"),
		cmd("GEOSEARCH", "g", "FROMMEMBER", "Palermo", "BYRADIUS", "1", "km", "STOREDIST"),
		cmd("GEOSEARCH", "g", "FROMLONLAT", "200", "37", "BYRADIUS", "1", "km"),
		cmd("GEOSEARCH", "nokey", "FROMMEMBER", "Palermo", "BYRADIUS", "1", "km"),
		cmd("GEOSEARCH", "nokey", "FROMMEMBER", "Palermo"),
		cmd("GEOSEARCH", "str", "FROMMEMBER", "Palermo", "BYRADIUS", "1", "km"),
		// GEOSEARCHSTORE
		cmd("GEOSEARCHSTORE", "d1", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km"),
		cmd("ZRANGE", "d1", "0", "-1", "WITHSCORES"),
		cmd("GEOSEARCHSTORE", "d2", "g", "FROMLONLAT", "15", "37", "BYBOX", "400", "400", "km", "STOREDIST", "COUNT", "1"),
		cmd("ZRANGE", "d2", "0", "-1", "WITHSCORES"),
		cmd("GEOSEARCHSTORE", "d2", "g", "FROMLONLAT", "15", "37", "BYBOX", "400", "400", "km", "STOREDIST", "WITHDIST"),
		cmd("GEOSEARCHSTORE", "d2", "g", "FROMLONLAT", "15", "37", "BYBOX", "400", "400", "km", "STORE", "x"),
		cmd("GEOSEARCHSTORE", "d2", "g", "FROMLONLAT", "15", "37", "BYBOX", "1", "1", "m"),
		cmd("EXISTS", "d2"),
		cmd("GEOSEARCHSTORE", "d1", "nokey", "FROMLONLAT", "15", "37", "BYBOX", "1", "1", "m"),
		cmd("EXISTS", "d1"),
		cmd("GEOSEARCHSTORE", "d1", "nokey", "FROMMEMBER", "x", "BYBOX", "1", "1", "m"),
		cmd("GEOSEARCHSTORE", "d1", "str", "FROMMEMBER", "x", "BYBOX", "1", "1", "m"),
		cmd("GEOSEARCHSTORE", "str", "g", "FROMMEMBER", "Palermo", "BYRADIUS", "10", "km"),
		cmd("TYPE", "str"),
		cmd("GEOSEARCHSTORE", "g", "g", "FROMMEMBER", "Palermo", "BYRADIUS", "500", "km", "STOREDIST"),
		cmd("ZRANGE", "g", "0", "-1", "WITHSCORES"),
	)
	diff(t, cmds)
}

// TestDiffGeoRandom compares searches over random points and shapes.
func TestDiffGeoRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', 6, 64) }
	var cmds [][]string
	for k := 0; k < 2; k++ {
		key := fmt.Sprintf("r%d", k)
		n := 60
		if k == 1 {
			n = 300 // skiplist encoding
		}
		args := []string{"GEOADD", key}
		for i := 0; i < n; i++ {
			lon := rng.Float64()*360 - 180
			lat := rng.Float64()*170.1 - 85.05
			if i%5 == 0 { // clusters
				lon = 10 + rng.Float64()
				lat = 45 + rng.Float64()
			}
			args = append(args, f(lon), f(lat), fmt.Sprintf("m%d", i))
		}
		cmds = append(cmds, args)
		for q := 0; q < 40; q++ {
			lon := rng.Float64()*360 - 180
			lat := rng.Float64()*170 - 85
			if q%3 == 0 {
				lon, lat = 10.5, 45.5
			}
			r := []string{"1", "50", "500", "3000", "12000"}[q%5]
			cmds = append(cmds,
				cmd("GEORADIUS_RO", key, f(lon), f(lat), r, "km", "WITHDIST", "WITHCOORD", "WITHHASH", "ASC"),
				cmd("GEOSEARCH", key, "FROMLONLAT", f(lon), f(lat), "BYBOX", r, r, "km", "WITHDIST", "DESC"),
				cmd("GEOSEARCH", key, "FROMMEMBER", fmt.Sprintf("m%d", q), "BYRADIUS", r, "mi", "WITHDIST", "COUNT", "3"),
				cmd("GEODIST", key, fmt.Sprintf("m%d", q), fmt.Sprintf("m%d", q+1), "km"),
			)
		}
		cmds = append(cmds,
			cmd("GEOSEARCHSTORE", "s"+key, key, "FROMLONLAT", "10.5", "45.5", "BYRADIUS", "100", "km", "STOREDIST"),
			cmd("GEOHASH", key, "m1", "m2", "m3", "m4"),
			cmd("GEOPOS", key, "m1", "m2", "m3", "m4"),
		)
	}
	diff(t, cmds)
}

// TestDiffGeoPropagation compares the AOF both servers write (GEOADD is
// logged as ZADD, the STORE variants as sent) and replays ours: our server
// and real Redis both load it to the same digest.
func TestDiffGeoPropagation(t *testing.T) {
	p := newDiffPair(t, "--appendonly", "yes", "--appendfsync", "always")
	cmds := geoFixture("g")
	cmds = append(cmds,
		cmd("GEOADD", "g", "NX", "CH", "1", "1", "Palermo", "2", "2", "n1"),
		cmd("GEOADD", "g", "XX", "1", "1", "nope"),
		cmd("GEOADD", "g", "1", "1", "n1"),
		cmd("GEOADD", "g", "200", "1", "bad"),
		cmd("GEORADIUS", "g", "15", "37", "200", "km", "STORE", "d1"),
		cmd("GEORADIUS", "g", "15", "37", "200", "km", "STOREDIST", "d2", "COUNT", "1"),
		cmd("GEORADIUS", "g", "15", "37", "200", "km"),
		cmd("GEORADIUSBYMEMBER", "g", "Palermo", "300", "km", "STOREDIST", "d3", "DESC"),
		cmd("GEOSEARCHSTORE", "d4", "g", "FROMLONLAT", "15", "37", "BYBOX", "400", "400", "km", "STOREDIST"),
		cmd("GEOSEARCHSTORE", "d5", "g", "FROMMEMBER", "origin", "BYRADIUS", "20", "m"),
		cmd("GEOSEARCHSTORE", "d4", "g", "FROMMEMBER", "origin", "BYRADIUS", "1", "m"),
		cmd("GEOSEARCHSTORE", "d4", "g", "FROMMEMBER", "origin", "BYRADIUS", "1", "m"),
		cmd("GEORADIUS", "g", "15", "37", "1", "m", "STORE", "d1"),
		cmd("GEOSEARCHSTORE", "d9", "nokey", "FROMLONLAT", "15", "37", "BYBOX", "400", "400", "km"),
		cmd("MULTI"),
		cmd("GEOADD", "m", "3", "3", "a"),
		cmd("GEOSEARCHSTORE", "m2", "m", "FROMLONLAT", "3", "3", "BYRADIUS", "1", "km"),
		cmd("EXEC"),
		cmd("EVAL", "redis.call('geoadd', KEYS[1], 'ch', 5, 5, 'x', 6, 6, 'y'); return redis.call('geosearchstore', KEYS[2], KEYS[1], 'FROMMEMBER', 'x', 'BYRADIUS', 500, 'km', 'STOREDIST')", "2", "sc", "sd"),
		cmd("EVAL", "return redis.call('georadius', KEYS[1], 5, 5, 500, 'km', 'STORE', KEYS[2])", "2", "sc", "se"),
	)
	p.run(cmds)
	p.checkDigest()
	oc, _ := p.conn(0)
	want := oc.do("DEBUG", "DIGEST")
	got, exp := incrAOF(t, p.ours.dir), incrAOF(t, p.real.dir)
	if string(got) != string(exp) {
		t.Fatalf("AOF differs:\n ours:  %q\n redis: %q", got, exp)
	}
	cp := t.TempDir()
	copyDir(t, p.ours.dir, cp)
	ts2 := startOurServer(t, "--appendonly", "yes", "--dir", cp)
	if d := digestOf(t, ts2.addr); d != want {
		t.Fatalf("digest after replay %q, want %q", d, want)
	}
	cp2 := t.TempDir()
	copyDir(t, p.ours.dir, cp2)
	rr := startRealRedis(t, "--appendonly", "yes", "--dir", cp2)
	if d := digestOf(t, rr.addr); d != want {
		t.Fatalf("real redis digest after loading our AOF %q, want %q", d, want)
	}
}

// TestDiffGeoTies: equal distances keep the set's order in a full sort
// (glibc's stable qsort) and follow Redis's partial quicksort with COUNT.
func TestDiffGeoTies(t *testing.T) {
	cmds := [][]string{
		cmd("GEOADD", "t", "1", "1", "e", "1", "1", "b", "1", "1", "a", "1", "1", "d", "1", "1", "c", "1", "1", "f",
			"1", "1", "h", "1", "1", "g", "1", "1", "i", "1", "1", "j", "2", "2", "z"),
	}
	for _, n := range []string{"1", "2", "3", "5", "7", "10", "11", "12"} {
		cmds = append(cmds,
			cmd("GEORADIUS", "t", "1", "1", "10", "km", "COUNT", n),
			cmd("GEORADIUS", "t", "1", "1", "1000", "km", "COUNT", n, "DESC"),
			cmd("GEORADIUS", "t", "1", "1", "1000", "km", "COUNT", n, "ASC"),
		)
	}
	// many ties and many distinct distances (n > 40 uses the ninther)
	args := []string{"GEOADD", "u"}
	for i := 0; i < 120; i++ {
		args = append(args, strconv.Itoa(i%7), strconv.Itoa(i%5), fmt.Sprintf("p%03d", i))
	}
	cmds = append(cmds, args)
	for _, n := range []string{"1", "3", "8", "20", "41", "60", "119", "120"} {
		cmds = append(cmds,
			cmd("GEORADIUS", "u", "3", "2", "2000", "km", "COUNT", n),
			cmd("GEOSEARCH", "u", "FROMLONLAT", "3", "2", "BYBOX", "2000", "2000", "km", "COUNT", n, "DESC"),
			cmd("GEORADIUS", "u", "3", "2", "2000", "km", "DESC"),
			cmd("GEOSEARCHSTORE", "dst", "u", "FROMLONLAT", "3", "2", "BYRADIUS", "2000", "km", "COUNT", n, "STOREDIST"),
		)
	}
	diff(t, cmds)
}

func TestDiffNotifyGeo(t *testing.T) {
	cmds := geoFixture("g")
	cmds = append(cmds,
		cmd("GEOADD", "g", "XX", "1", "1", "nope"),
		cmd("GEOADD", "g", "CH", "1", "1", "Palermo"),
		cmd("GEOPOS", "nokey", "a"), cmd("GEODIST", "nokey", "a", "b"), cmd("GEOHASH", "g", "a"),
		cmd("GEORADIUS", "g", "15", "37", "200", "km", "STORE", "d1"),
		cmd("GEORADIUS", "g", "15", "37", "200", "km", "STOREDIST", "d1"),
		cmd("GEORADIUS", "g", "15", "37", "1", "m", "STORE", "d1"),
		cmd("GEORADIUS", "g", "15", "37", "1", "m", "STORE", "d1"),
		cmd("GEOSEARCHSTORE", "d2", "g", "FROMMEMBER", "Catania", "BYRADIUS", "100", "km"),
		cmd("GEOSEARCHSTORE", "d2", "nokey", "FROMMEMBER", "Catania", "BYRADIUS", "100", "km"),
		cmd("GEOSEARCH", "nokey", "FROMMEMBER", "Catania", "BYRADIUS", "100", "km"),
		cmd("GEORADIUSBYMEMBER_RO", "nokey", "x", "1", "km"),
	)
	notifyDiff(t, allEvents, cmds)
}

// TestDiffGeoEdgesRandom: random points and searches clustered at the
// antimeridian and near the latitude limits.
func TestDiffGeoEdgesRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', 5, 64) }
	pt := func() (float64, float64) {
		switch rng.Intn(3) {
		case 0: // antimeridian
			return (180 - rng.Float64()*2) * float64(1-2*rng.Intn(2)), rng.Float64()*160 - 80
		case 1: // north
			return rng.Float64()*360 - 180, 85.05112878 - rng.Float64()*8
		default: // south
			return rng.Float64()*360 - 180, -85.05112878 + rng.Float64()*8
		}
	}
	args := []string{"GEOADD", "e"}
	for i := 0; i < 200; i++ {
		lon, lat := pt()
		lon = math.Max(-180, math.Min(180, lon))
		args = append(args, f(lon), f(lat), fmt.Sprintf("m%d", i))
	}
	cmds := [][]string{args}
	for q := 0; q < 60; q++ {
		lon, lat := pt()
		lon = math.Max(-180, math.Min(180, lon))
		r := []string{"10", "100", "400", "1500", "5000"}[q%5]
		cmds = append(cmds,
			cmd("GEOSEARCH", "e", "FROMLONLAT", f(lon), f(lat), "BYRADIUS", r, "km", "WITHDIST", "ASC"),
			cmd("GEOSEARCH", "e", "FROMLONLAT", f(lon), f(lat), "BYBOX", r, r, "km", "WITHDIST", "WITHHASH", "ASC"),
			cmd("GEOSEARCH", "e", "FROMMEMBER", fmt.Sprintf("m%d", q), "BYBOX", r, "50", "km", "WITHCOORD", "DESC"),
		)
	}
	diff(t, cmds)
}
