package basemap_test

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"linkplan/appliance/catalog"
)

// The console's outlines and labels are built by make console-data
// (build/console-data/build.mjs) and committed under the console's dist.
var dataDir = filepath.Join("..", "..", "web", "console", "dist", "data")

type outlines struct {
	Type         string  `json:"type"`
	Attribution  string  `json:"attribution"`
	PrecisionDeg float64 `json:"precision_deg"`
	Features     []struct {
		Type       string `json:"type"`
		Properties struct {
			Kind     string `json:"kind"`
			Name     string `json:"name"`
			UF       string `json:"uf"`
			IBGECode string `json:"ibge_code"`
			ISON3    string `json:"iso_n3"`
		} `json:"properties"`
		Geometry struct {
			Type        string          `json:"type"`
			Coordinates json.RawMessage `json:"coordinates"`
		} `json:"geometry"`
	} `json:"features"`
}

type labels struct {
	Attribution    string `json:"attribution"`
	Count          int    `json:"count"`
	Municipalities []struct {
		IBGE    string  `json:"ibge"`
		Name    string  `json:"name"`
		UF      string  `json:"uf"`
		Lat     float64 `json:"lat"`
		Lon     float64 `json:"lon"`
		Capital bool    `json:"capital"`
	} `json:"municipalities"`
}

func readJSON(t *testing.T, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dataDir, name))
	if err != nil {
		t.Fatalf("%v (run make console-data)", err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// polygonsOf decodes Polygon or MultiPolygon coordinates as polygons of
// rings of [lon, lat].
func polygonsOf(t *testing.T, typ string, raw json.RawMessage) [][][][2]float64 {
	t.Helper()
	switch typ {
	case "Polygon":
		var p [][][2]float64
		if err := json.Unmarshal(raw, &p); err != nil {
			t.Fatal(err)
		}
		return [][][][2]float64{p}
	case "MultiPolygon":
		var mp [][][][2]float64
		if err := json.Unmarshal(raw, &mp); err != nil {
			t.Fatal(err)
		}
		return mp
	}
	t.Fatalf("geometry type %q", typ)
	return nil
}

// maxSeatOffsetDeg is how far outside its state's outline a municipality
// seat may lie, degrees (about 11 km): the source's generalised coastline
// cuts off small islands and bays, and its state borders are generalised
// too (Talismã, TO, lies 8 km over the line to Goiás). Fernando de Noronha
// (PE), an archipelago 350 km offshore, is absent from the source.
const maxSeatOffsetDeg = 0.1

// missingIslands are seats whose island the state outlines lack.
var missingIslands = []string{"2605459"} // Fernando de Noronha, PE

// distanceDeg is the planar distance in degrees from (lon, lat) to the
// nearest edge of the polygons.
func distanceDeg(polys [][][][2]float64, lon, lat float64) float64 {
	best := math.Inf(1)
	for _, p := range polys {
		for _, ring := range p {
			for i := 1; i < len(ring); i++ {
				a, b := ring[i-1], ring[i]
				dx, dy := b[0]-a[0], b[1]-a[1]
				u := 0.0
				if l2 := dx*dx + dy*dy; l2 > 0 {
					u = min(max(((lon-a[0])*dx+(lat-a[1])*dy)/l2, 0), 1)
				}
				best = min(best, math.Hypot(lon-a[0]-u*dx, lat-a[1]-u*dy))
			}
		}
	}
	return best
}

// inside reports whether (lon, lat) is inside the polygons (even-odd rule
// over every ring, so holes count).
func inside(polys [][][][2]float64, lon, lat float64) bool {
	in := false
	for _, p := range polys {
		for _, ring := range p {
			for i, j := 0, len(ring)-1; i < len(ring); j, i = i, i+1 {
				a, b := ring[i], ring[j]
				if (a[1] > lat) != (b[1] > lat) && lon < (b[0]-a[0])*(lat-a[1])/(b[1]-a[1])+a[0] {
					in = !in
				}
			}
		}
	}
	return in
}

// TestConsoleData: the committed outlines hold Brazil, its ten neighbours
// and the 27 federative units with the catalogue's UF codes, in valid
// rounded GeoJSON; the labels are exactly the municipalities the
// appliance ships; and nearly every municipality seat lies inside its own
// state's outline (a few within the simplification's tolerance of a
// border may not).
func TestConsoleData(t *testing.T) {
	var o outlines
	readJSON(t, "outlines.json", &o)
	ms, err := catalog.LoadMunicipalities()
	if err != nil {
		t.Fatal(err)
	}
	capitalUF := map[string]string{}
	for _, m := range ms {
		if m.Capital {
			capitalUF[m.UF] = m.Name
		}
	}
	if o.Type != "FeatureCollection" || o.Attribution == "" || o.PrecisionDeg != 0.001 {
		t.Errorf("outlines: type %q, attribution %q, precision %g", o.Type, o.Attribution, o.PrecisionDeg)
	}
	states := map[string][][][][2]float64{}
	var countries []string
	for _, f := range o.Features {
		p := f.Properties
		polys := polygonsOf(t, f.Geometry.Type, f.Geometry.Coordinates)
		for _, poly := range polys {
			for _, ring := range poly {
				if len(ring) < 4 || ring[0] != ring[len(ring)-1] {
					t.Errorf("%s %s: a ring of %d positions is not closed", p.Kind, p.Name, len(ring))
				}
				for _, c := range ring {
					if c[0] < -92 || c[0] > -26 || c[1] < -56 || c[1] > 16 {
						t.Fatalf("%s %s: position %v outside South America", p.Kind, p.Name, c)
					}
					for _, v := range c {
						if r := math.Round(v*1000) / 1000; math.Abs(r-v) > 1e-9 {
							t.Fatalf("%s %s: %v has more than 3 decimals", p.Kind, p.Name, c)
						}
					}
				}
			}
		}
		switch p.Kind {
		case "state":
			if _, dup := states[p.UF]; dup {
				t.Errorf("state %s twice", p.UF)
			}
			if _, ok := capitalUF[p.UF]; !ok {
				t.Errorf("state %q (%s) is not a UF of the catalogue", p.UF, p.Name)
			}
			states[p.UF] = polys
		case "country":
			countries = append(countries, p.Name)
		default:
			t.Errorf("feature kind %q", p.Kind)
		}
	}
	if len(states) != 27 {
		t.Errorf("%d federative units, want 27", len(states))
	}
	slices.Sort(countries)
	want := []string{"Argentina", "Bolivia", "Brazil", "Colombia", "French Guiana (France)", "Guyana", "Paraguay", "Peru", "Suriname", "Uruguay", "Venezuela"}
	if !slices.Equal(countries, want) {
		t.Errorf("countries %v, want %v", countries, want)
	}

	var l labels
	readJSON(t, "municipalities.json", &l)
	if l.Count != len(ms) || len(l.Municipalities) != len(ms) || l.Attribution == "" {
		t.Fatalf("%d labels (count %d), the catalogue ships %d", len(l.Municipalities), l.Count, len(ms))
	}
	outside, farthest := 0, 0.0
	for i, m := range ms { // both ordered by IBGE code
		g := l.Municipalities[i]
		if g.IBGE != m.IBGECode || g.Name != m.Name || g.UF != m.UF || g.Lat != m.Lat || g.Lon != m.Lon || g.Capital != m.Capital {
			t.Fatalf("label %d %+v, catalogue %s %s %s %g %g capital %v", i, g, m.IBGECode, m.Name, m.UF, m.Lat, m.Lon, m.Capital)
		}
		if inside(states[m.UF], m.Lon, m.Lat) {
			continue
		}
		// Seats on the coast or on islands (Vitória, Florianópolis) can
		// fall just outside the generalised outline, never far.
		outside++
		d := distanceDeg(states[m.UF], m.Lon, m.Lat)
		farthest = max(farthest, d)
		if d > maxSeatOffsetDeg && !slices.Contains(missingIslands, m.IBGECode) {
			t.Errorf("%s (%s) lies %.3f° outside its state's outline", m.Name, m.UF, d)
		}
	}
	if outside > len(ms)*15/1000 {
		t.Errorf("%d of %d municipality seats lie outside their state's outline", outside, len(ms))
	}
	t.Logf("%d states, %d countries, %d labels; %d seats outside their state's outline, at most %.3f° from it", len(states), len(countries), len(ms), outside, farthest)
}
