package basemap

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/paulmach/orb"
)

// Label is one place name of a vector tile, for the console to place
// without collisions.
type Label struct {
	// Name is the place's name as the archive has it (its local name).
	Name string `json:"name"`
	// Lat, Lon: WGS84 degrees, rounded to 1e-6.
	Lat float64 `json:"lat"`
	Lon float64 `json:"lon"`
	// Kind is the place's class (city, town, suburb, neighbourhood, …).
	Kind string `json:"kind"`
	// Rank orders labels: lower first (more important).
	Rank int `json:"rank"`
}

// placeRanks orders place classes, most important first.
var placeRanks = map[string]int{
	"country": 0, "state": 1, "region": 1, "province": 1, "city": 2, "town": 3, "village": 4,
	"suburb": 5, "borough": 5, "macrohood": 5, "quarter": 6, "neighbourhood": 6, "island": 6, "hamlet": 7, "locality": 7, "isolated_dwelling": 8,
}

// vectorLabels returns the named points of the place layers of the
// decompressed MVT tile b that lie in drawn tile r.t (each point in one
// tile only: the source tiles' buffers are left out), most important
// first, at most MaxTileLabels.
func vectorLabels(b []byte, r vectorRender) (labels []Label, err error) {
	defer recoverVector(&err)
	sub, _, _, err := selectLayers(b, func(name string) bool { return labelLayers[name] })
	if err != nil {
		return nil, err
	}
	ls, err := decodeLayers(sub)
	if err != nil {
		return nil, err
	}
	v := newView(r.src, r.t, 1)
	n := float64(uint(1) << r.src.Z)
	out := []Label{}
	for _, l := range ls {
		e := float64(l.Extent)
		for _, f := range l.Features {
			if f == nil {
				continue
			}
			var p orb.Point
			switch g := f.Geometry.(type) {
			case orb.Point:
				p = g
			case orb.MultiPoint:
				if len(g) == 0 {
					continue
				}
				p = g[0]
			default:
				continue
			}
			name := strings.TrimSpace(prop(f.Properties, "name"))
			if name == "" || len(name) > 200 {
				continue
			}
			if mz, err := strconv.ParseFloat(prop(f.Properties, "min_zoom"), 64); err == nil && mz > float64(r.t.Z) {
				continue // Protomaps: shown from a larger zoom
			}
			x, y := v.px(p, l.Extent)
			if x < 0 || y < 0 || float64(x) >= v.side || float64(y) >= v.side || p[0] < 0 || p[1] < 0 || p[0] >= e || p[1] >= e {
				continue
			}
			kind := prop(f.Properties, "kind")
			if _, ok := placeRanks[kind]; !ok || kind == "locality" {
				for _, k := range []string{"kind_detail", "class", "place"} {
					if _, ok := placeRanks[prop(f.Properties, k)]; ok {
						kind = prop(f.Properties, k)
						break
					}
				}
			}
			rank, ok := placeRanks[kind]
			if !ok {
				rank = 9
			}
			sub := 50
			if v, err := strconv.ParseFloat(prop(f.Properties, "rank"), 64); err == nil { // OpenMapTiles: lower first
				sub = int(min(max(v, 0), 99))
			} else if v, err := strconv.ParseFloat(prop(f.Properties, "population_rank"), 64); err == nil { // Protomaps: higher first
				sub = 99 - int(min(max(v, 0), 99))
			}
			fx := (float64(r.src.X) + p[0]/e) / n
			fy := (float64(r.src.Y) + p[1]/e) / n
			out = append(out, Label{Name: name, Lat: round6(latOfY(fy)), Lon: round6(lonOfX(fx)), Kind: kind, Rank: rank*100 + sub})
		}
	}
	slices.SortFunc(out, func(a, b Label) int {
		if a.Rank != b.Rank {
			return a.Rank - b.Rank
		}
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		if a.Lat != b.Lat {
			return cmpFloat(a.Lat, b.Lat)
		}
		return cmpFloat(a.Lon, b.Lon)
	})
	if len(out) > MaxTileLabels {
		out = out[:MaxTileLabels]
	}
	return out, nil
}

func cmpFloat(a, b float64) int {
	if a < b {
		return -1
	}
	if a > b {
		return 1
	}
	return 0
}

func round6(v float64) float64 { return math.Round(v*1e6) / 1e6 }
