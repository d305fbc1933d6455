package basemap

import (
	"fmt"
	"math"
	"strconv"

	"linkplan/appliance"
)

// Zoom range of the served tiles.
const (
	MinZoom = 0
	MaxZoom = 15
)

// TileSizePx is the side of a tile, pixels.
const TileSizePx = 256

// EarthRadiusM is the radius of the sphere of Web Mercator (EPSG:3857),
// metres: the WGS84 semi-major axis.
const EarthRadiusM = 6378137.0

// MaxLatDeg is the latitude of the north edge of tile row 0 (and, negated,
// the south edge of the last row), degrees: atan(sinh(π)).
var MaxLatDeg = latOfY(0)

// Tile addresses one XYZ tile as Leaflet and OpenStreetMap number them:
// zoom Z, column X from the antimeridian (180° W) eastwards, row Y from
// the north edge (MaxLatDeg) southwards, 0 <= X, Y < 2^Z.
type Tile struct {
	Z, X, Y int
}

// String writes the tile as z/x/y.
func (t Tile) String() string { return fmt.Sprintf("%d/%d/%d", t.Z, t.X, t.Y) }

// AddressError is a tile address that is not one: a zoom, column or row
// that is not an integer or out of range. It wraps the
// *appliance.ValidationError naming each bad part (z, x or y), so that it
// matches appliance.ErrInvalid; the API answers it with 400.
type AddressError struct {
	Fields *appliance.ValidationError
}

func (e *AddressError) Error() string { return "tile address: " + e.Fields.Error() }

// Unwrap returns the validation error.
func (e *AddressError) Unwrap() error { return e.Fields }

// ParseTile parses the decimal zoom, column and row of a tile address
// (the z, x and y of /tiles/hillshade/{z}/{x}/{y}.png, without the
// suffix). Each must be a plain decimal integer (digits only, at most 10),
// z within MinZoom..MaxZoom and x, y within 0..2^z−1; the error is an
// *AddressError naming every bad part.
func ParseTile(z, x, y string) (Tile, error) { return ParseTileUpTo(z, x, y, MaxZoom) }

// ParseTileUpTo is ParseTile with zooms 0..maxZoom (the operator's
// basemap archive, External, has tiles to zoom 30).
func ParseTileUpTo(z, x, y string, maxZoom int) (Tile, error) {
	ve := &appliance.ValidationError{}
	zi, zok := parseIndex(ve, "z", z, MinZoom, maxZoom)
	var t Tile
	t.Z = zi
	if !zok {
		// Without a zoom the range of x and y is unknown: check their syntax.
		parseIndex(ve, "x", x, 0, math.MaxInt32)
		parseIndex(ve, "y", y, 0, math.MaxInt32)
		return Tile{}, &AddressError{Fields: ve}
	}
	last := 1<<zi - 1
	t.X, _ = parseIndex(ve, "x", x, 0, last)
	t.Y, _ = parseIndex(ve, "y", y, 0, last)
	if ve.Len() > 0 {
		return Tile{}, &AddressError{Fields: ve}
	}
	return t, nil
}

// parseIndex parses s as a decimal integer within lo..hi and records a bad
// one in ve under field.
func parseIndex(ve *appliance.ValidationError, field, s string, lo, hi int) (int, bool) {
	if s == "" || len(s) > 10 {
		ve.Add(field, "must be an integer between %d and %d, got %q", lo, hi, clip(s))
		return 0, false
	}
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			ve.Add(field, "must be an integer between %d and %d, got %q", lo, hi, clip(s))
			return 0, false
		}
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < lo || v > hi {
		ve.Add(field, "must be an integer between %d and %d, got %q", lo, hi, clip(s))
		return 0, false
	}
	return v, true
}

// clip shortens an echoed value.
func clip(s string) string {
	if len(s) > 24 {
		return s[:24] + "…"
	}
	return s
}

// Valid reports whether t is a tile of the served range.
func (t Tile) Valid() bool {
	return t.Z >= MinZoom && t.Z <= MaxZoom && t.X >= 0 && t.Y >= 0 && t.X < 1<<t.Z && t.Y < 1<<t.Z
}

// Bounds returns the tile's edges in WGS84 degrees: west and east
// longitudes, south and north latitudes.
func (t Tile) Bounds() (west, south, east, north float64) {
	n := float64(uint(1) << t.Z)
	return lonOfX(float64(t.X) / n), latOfY(float64(t.Y+1) / n), lonOfX(float64(t.X+1) / n), latOfY(float64(t.Y) / n)
}

// TileAt returns the tile of zoom z that holds p (latitudes beyond
// ±MaxLatDeg fall in the first or last row).
func TileAt(p appliance.LatLon, z int) Tile {
	n := 1 << z
	fx := (p.Lon + 180) / 360
	lat := min(max(p.Lat, -MaxLatDeg), MaxLatDeg)
	s := math.Sin(lat * math.Pi / 180)
	fy := 0.5 - math.Log((1+s)/(1-s))/(4*math.Pi)
	return Tile{Z: z, X: clampIndex(int(math.Floor(fx*float64(n))), n), Y: clampIndex(int(math.Floor(fy*float64(n))), n)}
}

func clampIndex(i, n int) int { return min(max(i, 0), n-1) }

// lonOfX is the longitude, degrees, at fraction fx of the world's width
// from the antimeridian (not wrapped: fx 1 is 180).
func lonOfX(fx float64) float64 { return fx*360 - 180 }

// wrapLon brings a longitude, degrees, into [-180, 180).
func wrapLon(lon float64) float64 {
	switch {
	case lon >= 180:
		return lon - 360
	case lon < -180:
		return lon + 360
	}
	return lon
}

// latOfY is the latitude, degrees, at fraction fy of the world's height
// from the north edge (the inverse Web Mercator projection).
func latOfY(fy float64) float64 {
	return math.Atan(math.Sinh(math.Pi*(1-2*fy))) * 180 / math.Pi
}
