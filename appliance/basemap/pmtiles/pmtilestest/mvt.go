package pmtilestest

import (
	"fmt"
	"math"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/encoding/mvt"
	"github.com/paulmach/orb/geojson"
	"github.com/paulmach/orb/maptile"
)

// VectorTiles returns the gzipped MVT tiles (extent 4096, a buffer of 64
// around each tile, as tile generators write them) of zooms zmin..zmax
// covering bounds (west, south, east, north, WGS84 degrees), made from
// layers: layer name → features in WGS84 longitude, latitude. A tile
// where no feature falls is left out.
func VectorTiles(layers map[string][]*geojson.Feature, bounds [4]float64, zmin, zmax int) ([]Tile, error) {
	var out []Tile
	for z := zmin; z <= zmax; z++ {
		nw := maptile.At(orb.Point{bounds[0], bounds[3]}, maptile.Zoom(z))
		se := maptile.At(orb.Point{bounds[2], bounds[1]}, maptile.Zoom(z))
		for x := nw.X; x <= se.X; x++ {
			for y := nw.Y; y <= se.Y; y++ {
				b, ok, err := VectorTile(layers, z, int(x), int(y))
				if err != nil {
					return nil, err
				}
				if ok {
					out = append(out, Tile{Z: z, X: int(x), Y: int(y), Data: b})
				}
			}
		}
	}
	return out, nil
}

// VectorTile returns tile z/x/y of layers (as VectorTiles), gzipped, and
// false when no feature falls in it.
func VectorTile(layers map[string][]*geojson.Feature, z, x, y int) ([]byte, bool, error) {
	t := maptile.New(uint32(x), uint32(y), maptile.Zoom(z))
	var ls mvt.Layers
	buf := orb.Bound{Min: orb.Point{-64, -64}, Max: orb.Point{4096 + 64, 4096 + 64}}
	for _, name := range sortedKeys(layers) {
		fc := geojson.NewFeatureCollection()
		for _, f := range layers[name] {
			g := orb.Clone(f.Geometry)
			fc.Append(&geojson.Feature{Type: "Feature", Geometry: g, Properties: f.Properties.Clone()})
		}
		l := mvt.NewLayer(name, fc)
		l.ProjectToTile(t)
		l.Clip(buf)
		kept := l.Features[:0]
		for _, f := range l.Features {
			if f.Geometry != nil && !empty(f.Geometry) {
				f.Geometry = round(f.Geometry)
				kept = append(kept, f)
			}
		}
		l.Features = kept
		if len(kept) > 0 {
			ls = append(ls, l)
		}
	}
	if len(ls) == 0 {
		return nil, false, nil
	}
	b, err := mvt.MarshalGzipped(ls)
	if err != nil {
		return nil, false, fmt.Errorf("marshal MVT tile %d/%d/%d: %w", z, x, y, err)
	}
	return b, true, nil
}

func sortedKeys(m map[string][]*geojson.Feature) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func empty(g orb.Geometry) bool {
	switch g := g.(type) {
	case orb.MultiPoint:
		return len(g) == 0
	case orb.LineString:
		return len(g) < 2
	case orb.MultiLineString:
		return len(g) == 0
	case orb.Polygon:
		return len(g) == 0 || len(g[0]) < 4
	case orb.MultiPolygon:
		return len(g) == 0
	}
	return false
}

// round moves every point to the integer grid, as MVT stores it (the
// encoder truncates).
func round(g orb.Geometry) orb.Geometry {
	r := func(p orb.Point) orb.Point { return orb.Point{math.Round(p[0]), math.Round(p[1])} }
	switch g := g.(type) {
	case orb.Point:
		return r(g)
	case orb.MultiPoint:
		for i := range g {
			g[i] = r(g[i])
		}
	case orb.LineString:
		for i := range g {
			g[i] = r(g[i])
		}
	case orb.MultiLineString:
		for _, ls := range g {
			for i := range ls {
				ls[i] = r(ls[i])
			}
		}
	case orb.Polygon:
		for _, ring := range g {
			for i := range ring {
				ring[i] = r(ring[i])
			}
		}
	case orb.MultiPolygon:
		for _, p := range g {
			for _, ring := range p {
				for i := range ring {
					ring[i] = r(ring[i])
				}
			}
		}
	}
	return g
}
