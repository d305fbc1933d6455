package catalog_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/catalog"
)

func TestCentroidOffset(t *testing.T) {
	const n = 20000
	var sumD float64
	quadrants := [4]int{}
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("anatel:%d", 1000000000+i)
		b, d := catalog.CentroidOffset(id)
		b2, d2 := catalog.CentroidOffset(id)
		if b != b2 || d != d2 {
			t.Fatalf("CentroidOffset(%s) not deterministic", id)
		}
		if b < 0 || b >= 360 || d < catalog.OffsetMinM || d > catalog.OffsetMaxM {
			t.Fatalf("CentroidOffset(%s) = %v°, %v m out of range", id, b, d)
		}
		sumD += d
		quadrants[int(b/90)]++
	}
	// Mean distance 800 m within 5 m; bearings spread evenly over quadrants within 5 %.
	if mean := sumD / n; math.Abs(mean-800) > 5 {
		t.Errorf("mean offset %.1f m, want 800 ± 5 m", mean)
	}
	for q, c := range quadrants {
		if math.Abs(float64(c)/n-0.25) > 0.0125 {
			t.Errorf("quadrant %d holds %d of %d bearings", q, c, n)
		}
	}
}

func TestPlaceAtCentroid(t *testing.T) {
	g := gazetteer(t)
	m, _ := g.ByCode("3304557")
	tw := appliance.Tower{ID: "anatel:42"}
	catalog.PlaceAtCentroid(&tw, m)
	b, d := catalog.CentroidOffset("anatel:42")
	// The placed point must be d metres from the seat on bearing b (tolerance 1 mm, 1e-6°).
	if got := m.Pos().DistanceM(tw.Pos()); math.Abs(got-d) > 1e-3 {
		t.Errorf("distance %v m, want %v m", got, d)
	}
	if got := m.Pos().BearingDeg(tw.Pos()); math.Abs(got-b) > 1e-6 {
		t.Errorf("bearing %v°, want %v°", got, b)
	}
	if tw.Placement != appliance.PlacementCentroid || tw.IBGECode != "3304557" || tw.UF != "RJ" || tw.Municipality != "Rio de Janeiro" {
		t.Errorf("tower %+v", tw)
	}
	if want := catalog.OffsetMaxM + m.SpacingM/2; tw.UncertaintyM != want {
		t.Errorf("uncertainty %v m, want %v m", tw.UncertaintyM, want)
	}
}

func crowdTower(id, op string, lat, lon, unc float64) appliance.Tower {
	return appliance.Tower{ID: id, Source: appliance.SourceOpenCelliD, Operator: op, Lat: lat, Lon: lon,
		Placement: appliance.PlacementCrowd, UncertaintyM: unc, ERPDBm: math.NaN(), AzimuthDeg: math.NaN()}
}

func centroidTower(id, op string, lat, lon float64) appliance.Tower {
	return appliance.Tower{ID: id, Source: appliance.SourceAnatel, Operator: op, Lat: lat, Lon: lon,
		Placement: appliance.PlacementCentroid, UncertaintyM: 9000, HeightM: 42, ERPDBm: 60, AzimuthDeg: math.NaN()}
}

func TestSnap(t *testing.T) {
	p := appliance.LatLon{Lat: -22.9, Lon: -43.2}
	at := func(bearing, dist float64) appliance.LatLon { return p.Destination(bearing, dist) }
	cases := []struct {
		name    string
		tower   appliance.Tower
		crowd   []appliance.Tower
		radiusM float64
		wantID  string // crowd id snapped onto; "" = not moved
	}{
		{"nearest of the same operator", centroidTower("anatel:1", "Vivo", p.Lat, p.Lon), []appliance.Tower{
			crowdTower("ocid:a", "Vivo", at(0, 3000).Lat, at(0, 3000).Lon, 700),
			crowdTower("ocid:b", "Vivo", at(90, 1200).Lat, at(90, 1200).Lon, 300),
			crowdTower("ocid:c", "TIM", at(180, 100).Lat, at(180, 100).Lon, 100),
		}, 0, "ocid:b"},
		{"beyond the default 5 km", centroidTower("anatel:2", "Vivo", p.Lat, p.Lon), []appliance.Tower{
			crowdTower("ocid:a", "Vivo", at(45, 5100).Lat, at(45, 5100).Lon, 700),
		}, 0, ""},
		{"configurable radius", centroidTower("anatel:3", "Vivo", p.Lat, p.Lon), []appliance.Tower{
			crowdTower("ocid:a", "Vivo", at(45, 5100).Lat, at(45, 5100).Lon, 700),
		}, 6000, "ocid:a"},
		{"other operators only", centroidTower("anatel:4", "Claro", p.Lat, p.Lon), []appliance.Tower{
			crowdTower("ocid:a", "Vivo", at(45, 10).Lat, at(45, 10).Lon, 700),
		}, 0, ""},
		{"surveyed towers stay", func() appliance.Tower {
			tw := centroidTower("anatel:5", "Vivo", p.Lat, p.Lon)
			tw.Placement = appliance.PlacementSurveyed
			return tw
		}(), []appliance.Tower{crowdTower("ocid:a", "Vivo", at(45, 10).Lat, at(45, 10).Lon, 700)}, 0, ""},
		{"tie goes to the smaller id", centroidTower("anatel:6", "TIM", -10, -50), []appliance.Tower{
			crowdTower("ocid:z", "TIM", -10, -50.01, 400),
			crowdTower("ocid:m", "TIM", -10, -49.99, 500),
		}, 0, "ocid:m"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, order := range [][]appliance.Tower{c.crowd, reversed(c.crowd)} {
				towers := []appliance.Tower{c.tower}
				stats := catalog.Snap(towers, order, c.radiusM)
				got := towers[0]
				if c.wantID == "" {
					if got.Lat != c.tower.Lat || got.Lon != c.tower.Lon || got.Placement != c.tower.Placement || stats.Snapped != 0 {
						t.Errorf("moved: %+v", got)
					}
					continue
				}
				var want appliance.Tower
				for _, cr := range c.crowd {
					if cr.ID == c.wantID {
						want = cr
					}
				}
				if got.Lat != want.Lat || got.Lon != want.Lon || got.UncertaintyM != want.UncertaintyM ||
					got.Placement != appliance.PlacementSnapped || got.ID != c.tower.ID || got.HeightM != 42 || stats.Snapped != 1 {
					t.Errorf("got %+v, want snapped onto %s", got, c.wantID)
				}
			}
		})
	}
}

func reversed(in []appliance.Tower) []appliance.Tower {
	out := make([]appliance.Tower, len(in))
	for i := range in {
		out[len(in)-1-i] = in[i]
	}
	return out
}

// naiveSnapTarget is the brute-force reference: index of the nearest crowd
// tower of the same operator within radiusM (ties to the smaller id), or -1.
func naiveSnapTarget(tw appliance.Tower, crowd []appliance.Tower, radiusM float64) int {
	best, bestD := -1, math.Inf(1)
	for j, c := range crowd {
		if c.Operator != tw.Operator || c.Placement != appliance.PlacementCrowd {
			continue
		}
		d := tw.Pos().DistanceM(c.Pos())
		if d > radiusM {
			continue
		}
		if d < bestD || (d == bestD && c.ID < crowd[best].ID) {
			best, bestD = j, d
		}
	}
	return best
}

func testSeed(t *testing.T) uint64 {
	t.Helper()
	seed := uint64(20240601)
	if s := os.Getenv("SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("SEED=%q: %v", s, err)
		}
		seed = v
	}
	t.Logf("seed %d (set SEED= to repeat)", seed)
	return seed
}

func randomScene(rng *rand.Rand, nTowers, nCrowd int, box appliance.BBox) (towers, crowd []appliance.Tower) {
	ops := []string{"Vivo", "TIM", "Claro"}
	pt := func() (float64, float64) {
		return box.MinLat + rng.Float64()*(box.MaxLat-box.MinLat), box.MinLon + rng.Float64()*(box.MaxLon-box.MinLon)
	}
	for i := 0; i < nCrowd; i++ {
		lat, lon := pt()
		crowd = append(crowd, crowdTower(fmt.Sprintf("ocid:%06d", i), ops[rng.IntN(3)], lat, lon, 100+rng.Float64()*4900))
	}
	for i := 0; i < nTowers; i++ {
		lat, lon := pt()
		towers = append(towers, centroidTower(fmt.Sprintf("anatel:%d", i), ops[rng.IntN(3)], lat, lon))
	}
	return towers, crowd
}

func TestSnapMatchesBruteForce(t *testing.T) {
	seed := testSeed(t)
	rng := rand.New(rand.NewPCG(seed, 1))
	for _, c := range []struct {
		name    string
		box     appliance.BBox
		radiusM float64
		nCrowd  int // chosen so that some but not all towers find a crowd tower
	}{
		{"Rio, 5 km", appliance.BBox{MinLat: -23.1, MinLon: -43.8, MaxLat: -22.7, MaxLon: -43.1}, 5000, 150},
		{"south, 2 km", appliance.BBox{MinLat: -33.7, MinLon: -53.5, MaxLat: -33.2, MaxLon: -52.9}, 2000, 600},
		{"equator, 8 km", appliance.BBox{MinLat: -0.5, MinLon: -50.5, MaxLat: 0.5, MaxLon: -49.5}, 8000, 200},
	} {
		t.Run(c.name, func(t *testing.T) {
			towers, crowd := randomScene(rng, 1500, c.nCrowd, c.box)
			want := make([]int, len(towers))
			for i, tw := range towers {
				want[i] = naiveSnapTarget(tw, crowd, c.radiusM)
			}
			orig := append([]appliance.Tower(nil), towers...)
			stats := catalog.Snap(towers, crowd, c.radiusM)
			snapped := 0
			for i := range towers {
				if want[i] < 0 {
					if towers[i].Lat != orig[i].Lat || towers[i].Placement != appliance.PlacementCentroid {
						t.Fatalf("tower %d moved, brute force finds nothing within %v m", i, c.radiusM)
					}
					continue
				}
				snapped++
				w := crowd[want[i]]
				if towers[i].Lat != w.Lat || towers[i].Lon != w.Lon || towers[i].Placement != appliance.PlacementSnapped {
					t.Fatalf("tower %d at %v, brute force says %s at %v", i, towers[i].Pos(), w.ID, w.Pos())
				}
			}
			t.Logf("snapped %d of %d", snapped, len(towers))
			if stats.Snapped != snapped || stats.Candidates != len(towers) || snapped == 0 || snapped == len(towers) {
				t.Errorf("stats %+v, brute force snapped %d of %d", stats, snapped, len(towers))
			}
		})
	}
}

func TestSnapRealSamples(t *testing.T) {
	// Vivo stations of the MOSAICO SMP sample placed at their municipality seat (coordinates
	// dropped), snapped onto the real OpenCelliD sample cells.
	g := gazetteer(t)
	res, err := catalog.ParseMosaicoSMP(stringsReader(readSample(t, "anatel_mosaico_smp_sample.csv")))
	if err != nil {
		t.Fatal(err)
	}
	for i := range res.Stations {
		res.Stations[i].Tower.Lat, res.Stations[i].Tower.Lon = math.NaN(), math.NaN()
	}
	stats := catalog.NewPlacer(g).Place(res)
	if stats.Centroid != 50 {
		t.Fatalf("place stats %+v, want 50 centroid", stats)
	}
	ocid, err := catalog.ParseOpenCelliD(stringsReader(readSample(t, "opencellid_724_sample.csv")))
	if err != nil {
		t.Fatal(err)
	}
	towers, crowd := res.Towers(), ocid.Towers()
	before := append([]appliance.Tower(nil), towers...)
	snap := catalog.Snap(towers, crowd, 0)
	moved := 0
	for i := range towers {
		j := naiveSnapTarget(before[i], crowd, catalog.DefaultSnapRadiusM)
		if (j >= 0) != (towers[i].Placement == appliance.PlacementSnapped) {
			t.Errorf("%s: snapped %v, brute force target %d", towers[i].ID, towers[i].Placement, j)
		}
		if j >= 0 {
			moved++
			if crowd[j].Operator != towers[i].Operator || towers[i].UncertaintyM != crowd[j].UncertaintyM {
				t.Errorf("%s snapped onto %s of %s", towers[i].ID, crowd[j].ID, crowd[j].Operator)
			}
		}
	}
	t.Logf("snapped %d of %d MOSAICO SMP stations onto %d OpenCelliD cells", snap.Snapped, len(towers), len(crowd))
	if snap.Snapped != moved || moved == 0 {
		t.Errorf("snapped %d, brute force %d", snap.Snapped, moved)
	}
}
