package terrain

import (
	"fmt"
	"math"

	"linkplan/appliance"
)

// TileID names a one-degree tile by the latitude and longitude of its
// south-west corner, in whole degrees, as SRTM does: S24W047 covers
// latitudes -24..-23 and longitudes -47..-46.
type TileID struct {
	Lat int // degrees, south-west corner, -90..89
	Lon int // degrees, south-west corner, -180..179
}

// Valid reports whether t is a tile of the globe.
func (t TileID) Valid() bool {
	return t.Lat >= -90 && t.Lat <= 89 && t.Lon >= -180 && t.Lon <= 179
}

// Name returns the SRTM-style name, for example "S24W047" or "N00E006".
func (t TileID) Name() string {
	ns, ew := 'N', 'E'
	lat, lon := t.Lat, t.Lon
	if lat < 0 {
		ns, lat = 'S', -lat
	}
	if lon < 0 {
		ew, lon = 'W', -lon
	}
	return fmt.Sprintf("%c%02d%c%03d", ns, lat, ew, lon)
}

func (t TileID) String() string { return t.Name() }

// less orders tiles south to north, then west to east (the index order).
func (t TileID) less(u TileID) bool {
	if t.Lat != u.Lat {
		return t.Lat < u.Lat
	}
	return t.Lon < u.Lon
}

// ParseTileName parses an SRTM-style tile name such as "S23W044" (case
// insensitive). It returns an error matching appliance.ErrInvalid.
func ParseTileName(s string) (TileID, error) {
	if len(s) != 7 {
		return TileID{}, fmt.Errorf("parse tile name %q: want 7 characters like S23W044: %w", s, appliance.ErrInvalid)
	}
	var t TileID
	lat, ok1 := digits(s[1:3])
	lon, ok2 := digits(s[4:7])
	if !ok1 || !ok2 {
		return TileID{}, fmt.Errorf("parse tile name %q: bad digits: %w", s, appliance.ErrInvalid)
	}
	switch s[0] {
	case 'N', 'n':
		t.Lat = lat
	case 'S', 's':
		t.Lat = -lat
	default:
		return TileID{}, fmt.Errorf("parse tile name %q: want N or S first: %w", s, appliance.ErrInvalid)
	}
	switch s[3] {
	case 'E', 'e':
		t.Lon = lon
	case 'W', 'w':
		t.Lon = -lon
	default:
		return TileID{}, fmt.Errorf("parse tile name %q: want E or W at position 4: %w", s, appliance.ErrInvalid)
	}
	if (t.Lat == 0 && (s[0] == 'S' || s[0] == 's')) || (t.Lon == 0 && (s[3] == 'W' || s[3] == 'w')) {
		// S00 and W000 would name the tiles N00 and E000: SRTM never uses them.
		return TileID{}, fmt.Errorf("parse tile name %q: S00 and W000 do not exist (the tile is N00/E000): %w", s, appliance.ErrInvalid)
	}
	if !t.Valid() {
		return TileID{}, fmt.Errorf("parse tile name %q: outside the globe: %w", s, appliance.ErrInvalid)
	}
	return t, nil
}

func digits(s string) (int, bool) {
	v := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	return v, true
}

// TileOf returns the tile that holds p. A point on a tile edge belongs to
// the tile north and east of it, except on the north pole (lat 90) and the
// antimeridian (lon 180), which belong to the last row and column.
func TileOf(p appliance.LatLon) TileID {
	lat := int(math.Floor(p.Lat))
	lon := int(math.Floor(p.Lon))
	if lat > 89 {
		lat = 89
	}
	if lon > 179 {
		lon = 179
	}
	return TileID{Lat: lat, Lon: lon}
}
