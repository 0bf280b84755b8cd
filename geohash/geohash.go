// Package geohash is the geohash arithmetic of Redis's geohash.c and
// geohash_helper.c: positions are 52-bit interleaved hashes (26 steps per
// axis) over the Web Mercator latitude range, stored by the GEO commands as
// sorted set scores; it also holds the correctly rounded sin/cos/asin the
// haversine distance needs to match glibc's results bit for bit.
package geohash

import (
	"math"
	"math/big"
)

// StepMax is the precision of a stored position (GEO_STEP_MAX); LatMin to
// LatMax and LongMin to LongMax are the coordinates GEOADD accepts.
const (
	StepMax        = 26
	LatMin         = -85.05112878
	LatMax         = 85.05112878
	LongMin        = -180.0
	LongMax        = 180.0
	geoEarthRadius = 6372797.560856
	geoMercatorMax = 20037726.37
)

// geoDR is C's M_PI / 180.0: the double nearest pi divided by 180 in
// double arithmetic (a Go constant expression would be rounded once, from
// the exact quotient, and can differ in the last bit).
var geoDR = geoPi / 180.0

var geoPi = math.Pi

// Range is one axis's interval (GeoHashRange).
type Range struct{ Min, Max float64 }

// Bits is a hash of step bits per axis (GeoHashBits).
type Bits struct {
	Hash uint64
	Step uint8
}

// IsZero reports a box SearchAreas left out.
func (h Bits) IsZero() bool { return h.Hash == 0 && h.Step == 0 }

// Area is the box a hash decodes to (GeoHashArea).
type Area struct {
	lon, lat Range
}

var (
	geoLongRange = Range{LongMin, LongMax}
	geoLatRange  = Range{LatMin, LatMax}
)

func degRad(a float64) float64 { return a * geoDR }
func radDeg(a float64) float64 { return a / geoDR }

// interleave64 puts x's bits in the even positions and y's in the odd ones.
func interleave64(x, y uint32) uint64 {
	spread := func(v uint64) uint64 {
		v = (v | v<<16) & 0x0000FFFF0000FFFF
		v = (v | v<<8) & 0x00FF00FF00FF00FF
		v = (v | v<<4) & 0x0F0F0F0F0F0F0F0F
		v = (v | v<<2) & 0x3333333333333333
		v = (v | v<<1) & 0x5555555555555555
		return v
	}
	return spread(uint64(x)) | spread(uint64(y))<<1
}

// deinterleave64 returns the even bits in the low 32 bits and the odd bits
// in the high 32 bits.
func deinterleave64(v uint64) uint64 {
	squash := func(x uint64) uint64 {
		x &= 0x5555555555555555
		x = (x | x>>1) & 0x3333333333333333
		x = (x | x>>2) & 0x0F0F0F0F0F0F0F0F
		x = (x | x>>4) & 0x00FF00FF00FF00FF
		x = (x | x>>8) & 0x0000FFFF0000FFFF
		x = (x | x>>16) & 0x00000000FFFFFFFF
		return x
	}
	return squash(v) | squash(v>>1)<<32
}

// cDoubleToUint32 is C's (uint32_t) conversion of a non-negative double.
func cDoubleToUint32(f float64) uint32 { return uint32(int64(f)) }

// Encode is geohashEncode: (lon, lat) hashed with step bits per axis over
// the given ranges; false when the point lies outside them.
func Encode(lonR, latR Range, lon, lat float64, step uint8) (Bits, bool) {
	if step > 32 || step == 0 {
		return Bits{}, false
	}
	if lon > LongMax || lon < LongMin || lat > LatMax || lat < LatMin {
		return Bits{}, false
	}
	h := Bits{Step: step}
	if lat < latR.Min || lat > latR.Max || lon < lonR.Min || lon > lonR.Max {
		return h, false
	}
	latOff := (lat - latR.Min) / (latR.Max - latR.Min)
	lonOff := (lon - lonR.Min) / (lonR.Max - lonR.Min)
	latOff *= float64(uint64(1) << step)
	lonOff *= float64(uint64(1) << step)
	h.Hash = interleave64(cDoubleToUint32(latOff), cDoubleToUint32(lonOff))
	return h, true
}

// EncodeWGS84 is geohashEncodeWGS84: Encode over the GEOADD ranges.
func EncodeWGS84(lon, lat float64, step uint8) (Bits, bool) {
	return Encode(geoLongRange, geoLatRange, lon, lat, step)
}

func geohashDecode(lonR, latR Range, h Bits) (Area, bool) {
	if h.IsZero() {
		return Area{}, false
	}
	sep := deinterleave64(h.Hash)
	latScale := latR.Max - latR.Min
	lonScale := lonR.Max - lonR.Min
	ilat := uint32(sep)
	ilon := uint32(sep >> 32)
	div := float64(uint64(1) << h.Step)
	var a Area
	a.lat.Min = latR.Min + (float64(ilat)*1.0/div)*latScale
	a.lat.Max = latR.Min + (float64(ilat+1)*1.0/div)*latScale
	a.lon.Min = lonR.Min + (float64(ilon)*1.0/div)*lonScale
	a.lon.Max = lonR.Min + (float64(ilon+1)*1.0/div)*lonScale
	return a, true
}

func (a *Area) center() (lon, lat float64) {
	lon = (a.lon.Min + a.lon.Max) / 2
	lon = math.Min(math.Max(lon, LongMin), LongMax)
	lat = (a.lat.Min + a.lat.Max) / 2
	if lat > LatMax {
		lat = LatMax
	}
	if lat < LatMin {
		lat = LatMin
	}
	return lon, lat
}

// cDoubleToUint64 is C's (uint64_t) cast as x86-64 compilers emit it.
func cDoubleToUint64(f float64) uint64 {
	const two63 = 9223372036854775808.0
	if f >= two63 {
		return uint64(int64(f-two63)) ^ 1<<63
	}
	return uint64(int64(f))
}

// DecodeScore is decodeGeohash: a score back to longitude, latitude.
func DecodeScore(score float64) (lon, lat float64, ok bool) {
	h := Bits{Hash: cDoubleToUint64(score), Step: StepMax}
	a, ok := geohashDecode(geoLongRange, geoLatRange, h)
	if !ok {
		return 0, 0, false
	}
	lon, lat = a.center()
	return lon, lat, true
}

// Align52 is the hash as a 52-bit sorted set score (geohashAlign52Bits).
func (h Bits) Align52() uint64 { return h.Hash << (52 - uint(h.Step)*2) }

func geoMoveX(h *Bits, d int) {
	if d == 0 {
		return
	}
	x := h.Hash & 0xaaaaaaaaaaaaaaaa
	y := h.Hash & 0x5555555555555555
	zz := uint64(0x5555555555555555) >> (64 - uint(h.Step)*2)
	if d > 0 {
		x = x + (zz + 1)
	} else {
		x = x | zz
		x = x - (zz + 1)
	}
	x &= uint64(0xaaaaaaaaaaaaaaaa) >> (64 - uint(h.Step)*2)
	h.Hash = x | y
}

func geoMoveY(h *Bits, d int) {
	if d == 0 {
		return
	}
	x := h.Hash & 0xaaaaaaaaaaaaaaaa
	y := h.Hash & 0x5555555555555555
	zz := uint64(0xaaaaaaaaaaaaaaaa) >> (64 - uint(h.Step)*2)
	if d > 0 {
		y = y + (zz + 1)
	} else {
		y = y | zz
		y = y - (zz + 1)
	}
	y &= uint64(0x5555555555555555) >> (64 - uint(h.Step)*2)
	h.Hash = x | y
}

// geoNeighbors are the eight boxes around a hash.
type geoNeighbors struct {
	north, south, east, west, northEast, northWest, southEast, southWest Bits
}

func geohashNeighbors(h Bits) geoNeighbors {
	mv := func(dx, dy int) Bits {
		n := h
		geoMoveX(&n, dx)
		geoMoveY(&n, dy)
		return n
	}
	return geoNeighbors{
		east: mv(1, 0), west: mv(-1, 0), south: mv(0, -1), north: mv(0, 1),
		northWest: mv(-1, 1), southWest: mv(-1, -1), northEast: mv(1, 1), southEast: mv(1, -1),
	}
}

func geohashEstimateStepsByRadius(rangeMeters, lat float64) uint8 {
	if rangeMeters == 0 {
		return 26
	}
	step := 1
	for rangeMeters < geoMercatorMax {
		rangeMeters *= 2
		step++
	}
	step -= 2
	if lat > 66 || lat < -66 {
		step--
		if lat > 80 || lat < -80 {
			step--
		}
	}
	if step < 1 {
		step = 1
	}
	if step > 26 {
		step = 26
	}
	return uint8(step)
}

// Shape is a search area: a circle (radius) or a box (width, height),
// in the unit whose size in meters is Conversion, centred on (Lon, Lat).
// Bounds is filled by SearchAreas.
type Shape struct {
	Box           bool
	Lon, Lat      float64
	Conversion    float64
	Radius        float64
	Width, Height float64
	Bounds        [4]float64
}

func (sh *Shape) boundingBox() {
	var height, width float64
	if sh.Box {
		height = sh.Conversion * (sh.Height / 2)
		width = sh.Conversion * (sh.Width / 2)
	} else {
		height = sh.Conversion * sh.Radius
		width = sh.Conversion * sh.Radius
	}
	latDelta := radDeg(height / geoEarthRadius)
	longDeltaTop := radDeg(width / geoEarthRadius / cos(degRad(sh.Lat+latDelta)))
	longDeltaBottom := radDeg(width / geoEarthRadius / cos(degRad(sh.Lat-latDelta)))
	if sh.Lat < 0 {
		sh.Bounds[0] = sh.Lon - longDeltaBottom
		sh.Bounds[2] = sh.Lon + longDeltaBottom
	} else {
		sh.Bounds[0] = sh.Lon - longDeltaTop
		sh.Bounds[2] = sh.Lon + longDeltaTop
	}
	sh.Bounds[1] = sh.Lat - latDelta
	sh.Bounds[3] = sh.Lat + latDelta
}

// SearchAreas is geohashCalculateAreasByShapeWGS84: the center box and
// its eight neighbours (zeroed when useless), in Redis's visiting order.
func SearchAreas(sh *Shape) [9]Bits {
	sh.boundingBox()
	minLon, minLat, maxLon, maxLat := sh.Bounds[0], sh.Bounds[1], sh.Bounds[2], sh.Bounds[3]
	radiusMeters := sh.Radius
	if sh.Box {
		radiusMeters = math.Sqrt((sh.Width/2)*(sh.Width/2) + (sh.Height/2)*(sh.Height/2))
	}
	radiusMeters *= sh.Conversion
	steps := geohashEstimateStepsByRadius(radiusMeters, sh.Lat)
	hash, _ := EncodeWGS84(sh.Lon, sh.Lat, steps)
	nb := geohashNeighbors(hash)
	area, _ := geohashDecode(geoLongRange, geoLatRange, hash)

	decrease := false
	{
		north, _ := geohashDecode(geoLongRange, geoLatRange, nb.north)
		south, _ := geohashDecode(geoLongRange, geoLatRange, nb.south)
		east, _ := geohashDecode(geoLongRange, geoLatRange, nb.east)
		west, _ := geohashDecode(geoLongRange, geoLatRange, nb.west)
		if north.lat.Max < maxLat {
			decrease = true
		}
		if south.lat.Min > minLat {
			decrease = true
		}
		if east.lon.Max < maxLon {
			decrease = true
		}
		if west.lon.Min > minLon {
			decrease = true
		}
	}
	if steps > 1 && decrease {
		steps--
		hash, _ = EncodeWGS84(sh.Lon, sh.Lat, steps)
		nb = geohashNeighbors(hash)
		area, _ = geohashDecode(geoLongRange, geoLatRange, hash)
	}
	if steps >= 2 {
		if area.lat.Min < minLat {
			nb.south, nb.southWest, nb.southEast = Bits{}, Bits{}, Bits{}
		}
		if area.lat.Max > maxLat {
			nb.north, nb.northEast, nb.northWest = Bits{}, Bits{}, Bits{}
		}
		if area.lon.Min < minLon {
			nb.west, nb.southWest, nb.northWest = Bits{}, Bits{}, Bits{}
		}
		if area.lon.Max > maxLon {
			nb.east, nb.southEast, nb.northEast = Bits{}, Bits{}, Bits{}
		}
	}
	return [9]Bits{hash, nb.north, nb.south, nb.east, nb.west, nb.northEast, nb.northWest, nb.southEast, nb.southWest}
}

// Distance is the haversine distance in meters (Redis 7.0's form).
func Distance(lon1, lat1, lon2, lat2 float64) float64 {
	lat1r, lon1r := degRad(lat1), degRad(lon1)
	lat2r, lon2r := degRad(lat2), degRad(lon2)
	u := sin((lat2r - lat1r) / 2)
	v := sin((lon2r - lon1r) / 2)
	return 2.0 * geoEarthRadius * asin(math.Sqrt(u*u+cos(lat1r)*cos(lat2r)*v*v))
}

// Within reports whether (lon, lat) is inside the shape, with its distance
// from the center in meters.
func (sh *Shape) Within(lon, lat float64) (float64, bool) {
	if !sh.Box {
		d := Distance(sh.Lon, sh.Lat, lon, lat)
		return d, d <= sh.Radius*sh.Conversion
	}
	w, h := sh.Width*sh.Conversion, sh.Height*sh.Conversion
	lonDist := Distance(lon, lat, sh.Lon, lat)
	latDist := Distance(lon, lat, lon, sh.Lat)
	if lonDist > w/2 || latDist > h/2 {
		return 0, false
	}
	return Distance(sh.Lon, sh.Lat, lon, lat), true
}

// Correctly rounded sin, cos and asin. Redis computes distances with
// glibc's libm, whose results are (almost always) correctly rounded, while
// Go's math package can be one ulp off; the distances and the search
// boundaries must match Redis to the last bit, so these evaluate the
// functions in double-double arithmetic (about 106 bits) and round once.

// dd is an unevaluated sum hi + lo.
type dd struct{ hi, lo float64 }

func ddTwoSum(a, b float64) dd {
	s := a + b
	bb := s - a
	return dd{s, (a - (s - bb)) + (b - bb)}
}

func ddAdd(a, b dd) dd {
	s := ddTwoSum(a.hi, b.hi)
	s.lo += a.lo + b.lo
	return ddTwoSum(s.hi, s.lo)
}

func ddMul(a, b dd) dd {
	p := a.hi * b.hi
	e := math.FMA(a.hi, b.hi, -p)
	e += a.hi*b.lo + a.lo*b.hi
	return ddTwoSum(p, e)
}

func ddDivF(a dd, b float64) dd {
	q := a.hi / b
	// remainder a - q*b, exactly for the high part
	p := q * b
	e := math.FMA(q, b, -p)
	r := ((a.hi - p) - e + a.lo) / b
	return ddTwoSum(q, r)
}

func ddNeg(a dd) dd { return dd{-a.hi, -a.lo} }

// geoInvFact[n] is 1/n! as a double-double (n < 32).
var geoInvFact = func() (t [32]dd) {
	f := new(big.Float).SetPrec(200).SetInt64(1)
	for n := 0; n < 32; n++ {
		if n > 0 {
			f.Mul(f, new(big.Float).SetInt64(int64(n)))
		}
		inv := new(big.Float).SetPrec(200).Quo(new(big.Float).SetPrec(200).SetInt64(1), f)
		hi, _ := inv.Float64()
		rest := new(big.Float).SetPrec(200).Sub(inv, new(big.Float).SetFloat64(hi))
		lo, _ := rest.Float64()
		t[n] = dd{hi, lo}
	}
	return t
}()

// ddSinKernel and ddCosKernel evaluate the Taylor series of sin and cos at
// a double-double |r| <= pi/4 (Horner form, terms up to r^29); the low
// part only needs a first-order correction.
func ddSinKernel(r dd) dd {
	x := dd{r.hi, 0}
	x2 := ddMul(x, x)
	acc := geoInvFact[29]
	for n := 27; n >= 1; n -= 2 {
		acc = ddMul(acc, x2)
		c := geoInvFact[n]
		if (n/2)%2 == 1 {
			c = ddNeg(c)
		}
		acc = ddAdd(acc, c)
	}
	s := ddMul(acc, x)
	if r.lo != 0 {
		s = ddAdd(s, dd{r.lo * math.Cos(r.hi), 0})
	}
	return s
}

func ddCosKernel(r dd) dd {
	x := dd{r.hi, 0}
	x2 := ddMul(x, x)
	acc := geoInvFact[30]
	if 15%2 == 1 {
		acc = ddNeg(acc)
	}
	for n := 28; n >= 0; n -= 2 {
		acc = ddMul(acc, x2)
		c := geoInvFact[n]
		if (n/2)%2 == 1 {
			c = ddNeg(c)
		}
		acc = ddAdd(acc, c)
	}
	if r.lo != 0 {
		acc = ddAdd(acc, dd{-r.lo * math.Sin(r.hi), 0})
	}
	return acc
}

// ddReduce returns r and k with x = r + k*pi/2, |r| <= about pi/4.
func ddReduce(x float64) (dd, int64) {
	if math.Abs(x) <= math.Pi/4 {
		return dd{x, 0}, 0
	}
	const pio2hi, pio2lo = 1.5707963267948966, 6.123233995736766e-17
	k := math.Round(x / (math.Pi / 2))
	p := k * pio2hi
	e := math.FMA(k, pio2hi, -p)
	r := ddAdd(ddTwoSum(x, -p), dd{-e, 0})
	r = ddAdd(r, ddNeg(ddMul(dd{k, 0}, dd{pio2lo, 0})))
	return r, int64(k)
}

func ddSin(x dd) dd {
	r, k := ddReduce(x.hi)
	if x.lo != 0 {
		r = ddAdd(r, dd{x.lo, 0})
	}
	switch k & 3 {
	case 1:
		return ddCosKernel(r)
	case 2:
		return ddNeg(ddSinKernel(r))
	case 3:
		return ddNeg(ddCosKernel(r))
	}
	return ddSinKernel(r)
}

func sin(x float64) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > 1e5 {
		return math.Sin(x)
	}
	s := ddSin(dd{x, 0})
	return s.hi + s.lo
}

func cos(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > 1e5 {
		return math.Cos(x)
	}
	r, k := ddReduce(x)
	var c dd
	switch k & 3 {
	case 0:
		c = ddCosKernel(r)
	case 1:
		c = ddNeg(ddSinKernel(r))
	case 2:
		c = ddNeg(ddCosKernel(r))
	case 3:
		c = ddSinKernel(r)
	}
	return c.hi + c.lo
}

// asin refines math.Asin by Newton steps on sin(y) = x in double-double
// (cos y only scales the small correction, double precision suffices).
func asin(x float64) float64 {
	if x == 0 || math.IsNaN(x) || math.Abs(x) >= 1 {
		return math.Asin(x)
	}
	y := dd{math.Asin(x), 0}
	for i := 0; i < 2; i++ {
		r := ddAdd(dd{x, 0}, ddNeg(ddSin(y)))
		y = ddAdd(y, dd{r.hi / math.Cos(y.hi), 0})
	}
	return y.hi + y.lo
}
