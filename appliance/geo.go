package appliance

import (
	"fmt"
	"math"
)

// EarthRadiusM is the mean Earth radius (IUGG), in metres, used for
// great-circle geometry.
const EarthRadiusM = 6371008.8

// LatLon is a WGS84 position in degrees.
type LatLon struct {
	Lat float64 // degrees, -90..90, north positive
	Lon float64 // degrees, -180..180, east positive
}

// Valid reports whether the position is a finite point on the globe.
func (p LatLon) Valid() bool {
	return !math.IsNaN(p.Lat) && !math.IsNaN(p.Lon) &&
		p.Lat >= -90 && p.Lat <= 90 && p.Lon >= -180 && p.Lon <= 180
}

func (p LatLon) String() string { return fmt.Sprintf("(%.6f, %.6f)", p.Lat, p.Lon) }

func rad(d float64) float64 { return d * math.Pi / 180 }
func deg(r float64) float64 { return r * 180 / math.Pi }

// DistanceM returns the great-circle distance from p to q in metres
// (haversine on the mean sphere).
func (p LatLon) DistanceM(q LatLon) float64 {
	φ1 := rad(p.Lat)
	return haversineM(φ1, math.Cos(φ1), p.Lon, q)
}

// haversineM is DistanceM from the point of latitude φ1 (radians, cosine
// cφ1) and longitude lon1 (degrees) to q. Each sine is computed once and
// squared: the same values multiplied in the same order as writing the
// call twice, so the result is the same bit for bit at half the sines.
func haversineM(φ1, cφ1, lon1 float64, q LatLon) float64 {
	φ2 := rad(q.Lat)
	dφ, dλ := φ2-φ1, rad(q.Lon-lon1)
	sφ, sλ := math.Sin(dφ/2), math.Sin(dλ/2)
	a := sφ*sφ + cφ1*math.Cos(φ2)*sλ*sλ
	return 2 * EarthRadiusM * math.Asin(math.Min(1, math.Sqrt(a)))
}

// Origin is a point with the trigonometry of its latitude computed once,
// for the distances to many points (a search around a receiver): its
// DistanceM is LatLon.DistanceM bit for bit.
type Origin struct {
	p         LatLon
	φ, cφ, sφ float64 // latitude, radians, its cosine and sine
}

// Origin returns p as an Origin.
func (p LatLon) Origin() Origin {
	φ := rad(p.Lat)
	return Origin{p: p, φ: φ, cφ: math.Cos(φ), sφ: math.Sin(φ)}
}

// BearingFromDeg returns q.BearingDeg(o's point), bit for bit: the
// bearing at q toward the origin (a tower's bearing to its receiver).
func (o *Origin) BearingFromDeg(q LatLon) float64 {
	φ1 := rad(q.Lat)
	dλ := rad(o.p.Lon - q.Lon)
	y := math.Sin(dλ) * o.cφ
	x := math.Cos(φ1)*o.sφ - math.Sin(φ1)*o.cφ*math.Cos(dλ)
	return bearing(y, x)
}

// DistanceM returns o's point's DistanceM to q, bit for bit.
func (o *Origin) DistanceM(q LatLon) float64 { return haversineM(o.φ, o.cφ, o.p.Lon, q) }

// BearingDeg returns the initial great-circle bearing from p to q in degrees
// clockwise from true north, in [0, 360).
func (p LatLon) BearingDeg(q LatLon) float64 {
	φ1, φ2 := rad(p.Lat), rad(q.Lat)
	dλ := rad(q.Lon - p.Lon)
	cφ2 := math.Cos(φ2) // once: the same value in both places
	y := math.Sin(dλ) * cφ2
	x := math.Cos(φ1)*math.Sin(φ2) - math.Sin(φ1)*cφ2*math.Cos(dλ)
	return bearing(y, x)
}

// bearing is the end of BearingDeg: atan2(y, x) in degrees in [0, 360).
func bearing(y, x float64) float64 {
	b := math.Mod(deg(math.Atan2(y, x))+360, 360)
	if b >= 360 {
		b = 0
	}
	return b
}

// Intermediate returns the point at fraction f (0..1) of the great circle
// from p to q.
func (p LatLon) Intermediate(q LatLon, f float64) LatLon {
	g := p.GreatCircleTo(q)
	return g.At(f)
}

// GreatCircle is the great circle from one point to another with the
// trigonometry of its ends computed once, for the many points of a terrain
// profile: At(f) is p.Intermediate(q, f) bit for bit (the same operations
// in the same order), at a third of the cost.
type GreatCircle struct {
	p, q                                   LatLon
	δ, sinδ                                float64 // angular distance, radians, and its sine
	cφ1, cλ1, sφ1, sλ1, cφ2, cλ2, sφ2, sλ2 float64
}

// GreatCircleTo returns the great circle from p to q.
func (p LatLon) GreatCircleTo(q LatLon) GreatCircle { return greatCircle(p, q, p.DistanceM(q)) }

// greatCircle is p.GreatCircleTo(q) for a caller that knows distM =
// p.DistanceM(q).
func greatCircle(p, q LatLon, distM float64) GreatCircle {
	φ1, λ1 := rad(p.Lat), rad(p.Lon)
	φ2, λ2 := rad(q.Lat), rad(q.Lon)
	δ := distM / EarthRadiusM
	return GreatCircle{p: p, q: q, δ: δ, sinδ: math.Sin(δ),
		cφ1: math.Cos(φ1), cλ1: math.Cos(λ1), sφ1: math.Sin(φ1), sλ1: math.Sin(λ1),
		cφ2: math.Cos(φ2), cλ2: math.Cos(λ2), sφ2: math.Sin(φ2), sλ2: math.Sin(λ2)}
}

// At returns the point at fraction f (0..1) of the great circle.
func (g *GreatCircle) At(f float64) LatLon {
	if g.δ < 1e-12 {
		return g.p
	}
	a := math.Sin((1-f)*g.δ) / g.sinδ
	b := math.Sin(f*g.δ) / g.sinδ
	x := a*g.cφ1*g.cλ1 + b*g.cφ2*g.cλ2
	y := a*g.cφ1*g.sλ1 + b*g.cφ2*g.sλ2
	z := a*g.sφ1 + b*g.sφ2
	return LatLon{Lat: deg(math.Atan2(z, math.Hypot(x, y))), Lon: deg(math.Atan2(y, x))}
}

// Destination returns the point reached from p after distM metres on the
// initial bearing bearingDeg.
func (p LatLon) Destination(bearingDeg, distM float64) LatLon {
	φ1, λ1, θ := rad(p.Lat), rad(p.Lon), rad(bearingDeg)
	δ := distM / EarthRadiusM
	φ2 := math.Asin(math.Sin(φ1)*math.Cos(δ) + math.Cos(φ1)*math.Sin(δ)*math.Cos(θ))
	λ2 := λ1 + math.Atan2(math.Sin(θ)*math.Sin(δ)*math.Cos(φ1), math.Cos(δ)-math.Sin(φ1)*math.Sin(φ2))
	lon := math.Mod(deg(λ2)+540, 360) - 180
	return LatLon{Lat: deg(φ2), Lon: lon}
}

// BBox is a latitude/longitude rectangle in degrees. It never crosses the
// antimeridian (Brazil does not).
type BBox struct {
	MinLat, MinLon, MaxLat, MaxLon float64 // degrees
}

// Contains reports whether p lies inside b (edges included).
func (b BBox) Contains(p LatLon) bool {
	return p.Lat >= b.MinLat && p.Lat <= b.MaxLat && p.Lon >= b.MinLon && p.Lon <= b.MaxLon
}

// Intersects reports whether b and o share a point (edges included).
func (b BBox) Intersects(o BBox) bool {
	return b.MinLat <= o.MaxLat && o.MinLat <= b.MaxLat && b.MinLon <= o.MaxLon && o.MinLon <= b.MaxLon
}

// Around returns the smallest box holding every point within radiusM metres
// of p.
func Around(p LatLon, radiusM float64) BBox {
	dLat := deg(radiusM / EarthRadiusM)
	c := math.Cos(rad(p.Lat))
	dLon := 180.0
	if c > 1e-9 {
		dLon = math.Min(180, dLat/c)
	}
	return BBox{MinLat: p.Lat - dLat, MaxLat: p.Lat + dLat, MinLon: p.Lon - dLon, MaxLon: p.Lon + dLon}
}
