package catalog_test

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/catalog"
)

// towerKey renders every field of a tower bit-exactly (NaN-safe), for
// determinism checks.
func towerKey(t appliance.Tower) string {
	f := func(v float64) uint64 { return math.Float64bits(v) }
	return fmt.Sprintf("%s|%s|%s|%x|%x|%x|%x|%x|%x|%s|%x|%v|%s|%s|%s|%s|%s|%v|%v|%d",
		t.ID, t.Source, t.Operator, f(t.Lat), f(t.Lon), f(t.HeightM), f(t.ERPDBm), f(t.AzimuthDeg), f(t.TiltDeg),
		t.Placement, f(t.UncertaintyM), t.Synthetic, t.Provenance, t.StationNumber, t.Municipality, t.UF, t.IBGECode,
		t.Technologies, t.BandsMHz, t.UpdatedUnix)
}

func TestSyntheticAllocation(t *testing.T) {
	g := gazetteer(t)
	for _, n := range []int{0, 1, 999, 5571, 140000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			alloc := catalog.SyntheticAllocation(g, n)
			sum := 0
			for _, c := range alloc {
				sum += c
			}
			if sum != n {
				t.Errorf("allocation sums to %d, want %d", sum, n)
			}
		})
	}
	alloc := catalog.SyntheticAllocation(g, 140000)
	// Capitals weigh 60, the metropolitan ring 4, others 1.
	sp, interior := alloc["3550308"], alloc["3500105"] // São Paulo, Adamantina
	if sp < 50*interior || interior < 10 {
		t.Errorf("São Paulo gets %d, Adamantina %d", sp, interior)
	}
	for _, m := range g.All() {
		if alloc[m.IBGECode] == 0 {
			t.Fatalf("%s-%s gets no tower out of 140000", m.Name, m.UF)
		}
	}
}

func TestSyntheticNational(t *testing.T) {
	const n = 140000
	towers := catalog.SyntheticNational(n, 42)
	if len(towers) != n {
		t.Fatalf("got %d towers, want %d", len(towers), n)
	}
	g := gazetteer(t)
	ops := map[string]int{}
	munis := map[string]bool{}
	withAz := 0
	for i, tw := range towers {
		if i > 0 && towers[i-1].ID >= tw.ID {
			t.Fatalf("ids not strictly increasing at %d: %s, %s", i, towers[i-1].ID, tw.ID)
		}
		if !tw.Synthetic || tw.Source != appliance.SourceSynthetic || appliance.SourceOf(tw.ID) != appliance.SourceSynthetic ||
			!strings.HasPrefix(tw.Provenance, "synthetic") || tw.ID != "synthetic:"+tw.StationNumber {
			t.Fatalf("tower not marked synthetic: %+v", tw)
		}
		if tw.HeightM < 20 || tw.HeightM > 60 || tw.ERPDBm < 55 || tw.ERPDBm > 65 || len(tw.BandsMHz) == 0 || len(tw.Technologies) == 0 {
			t.Fatalf("attributes out of range: %+v", tw)
		}
		if !tw.Omni() {
			withAz++
			if tw.AzimuthDeg < 0 || tw.AzimuthDeg >= 360 || tw.TiltDeg < 2 || tw.TiltDeg > 8 {
				t.Fatalf("azimuth/tilt out of range: %+v", tw)
			}
		}
		m, ok := g.ByCode(tw.IBGECode)
		if !ok || m.Name != tw.Municipality || m.UF != tw.UF {
			t.Fatalf("municipality fields wrong: %+v", tw)
		}
		// Regulator rule: seat + 600…1000 m (tolerance 1 mm).
		if d := m.Pos().DistanceM(tw.Pos()); d < catalog.OffsetMinM-1e-3 || d > catalog.OffsetMaxM+1e-3 ||
			tw.Placement != appliance.PlacementCentroid || tw.UncertaintyM != catalog.CentroidUncertaintyM(m) {
			t.Fatalf("%s is %.1f m from its seat, placement %s ± %v m", tw.ID, d, tw.Placement, tw.UncertaintyM)
		}
		ops[tw.Operator]++
		munis[tw.IBGECode] = true
	}
	// Shares Vivo 36 %, Claro 33 %, TIM 31 %, azimuth 40 %; tolerance 1 percentage point.
	for op, share := range map[string]float64{"Vivo": 0.36, "Claro": 0.33, "TIM": 0.31} {
		if got := float64(ops[op]) / n; math.Abs(got-share) > 0.01 {
			t.Errorf("%s share %.3f, want %.2f", op, got, share)
		}
	}
	if len(ops) != 3 || len(munis) != 5571 || math.Abs(float64(withAz)/n-0.4) > 0.01 {
		t.Errorf("operators %v, municipalities %d, %d with azimuth", ops, len(munis), withAz)
	}
}

func TestSyntheticDeterminism(t *testing.T) {
	a := catalog.SyntheticNational(20000, 7)
	b := catalog.SyntheticNational(20000, 7)
	c := catalog.SyntheticNational(20000, 8)
	same, differ := 0, 0
	for i := range a {
		if towerKey(a[i]) != towerKey(b[i]) {
			t.Fatalf("tower %d differs between two runs with seed 7:\n%s\n%s", i, towerKey(a[i]), towerKey(b[i]))
		}
		if a[i].Operator == c[i].Operator && a[i].HeightM == c[i].HeightM {
			same++
		} else {
			differ++
		}
	}
	if differ < len(a)/2 {
		t.Errorf("seed 8 changed only %d of %d towers", differ, len(a))
	}
}

func TestSyntheticInBoxRio(t *testing.T) {
	box := appliance.BBox{MinLat: -23, MinLon: -44, MaxLat: -21, MaxLon: -42}
	towers := catalog.SyntheticInBox(box, 3, 42)
	// 137 municipality seats lie in the box (counted in Python from municipios.csv).
	if len(towers) != 3*137 {
		t.Fatalf("got %d towers, want %d", len(towers), 3*137)
	}
	national := map[string]appliance.Tower{}
	for _, tw := range catalog.SyntheticNational(140000, 42) {
		national[tw.ID] = tw
	}
	g := gazetteer(t)
	for _, tw := range towers {
		m, _ := g.ByCode(tw.IBGECode)
		if !box.Contains(m.Pos()) || !tw.Synthetic {
			t.Fatalf("%+v", tw)
		}
		// The same (seed, municipality, k) gives the same tower as in the national set.
		n, ok := national[tw.ID]
		n.Provenance = tw.Provenance
		if !ok || towerKey(n) != towerKey(tw) {
			t.Fatalf("%s differs from the national set:\n%s\n%s", tw.ID, towerKey(tw), towerKey(n))
		}
	}
	if got := catalog.SyntheticInBox(appliance.BBox{MinLat: 10, MinLon: 10, MaxLat: 11, MaxLon: 11}, 3, 42); len(got) != 0 {
		t.Errorf("box outside Brazil gives %d towers", len(got))
	}
}

func TestWriteERBsRoundTrip(t *testing.T) {
	towers := catalog.SyntheticNational(3000, 3)
	g := gazetteer(t)
	for _, omit := range []bool{false, true} {
		t.Run(fmt.Sprintf("omitCoordinates=%v", omit), func(t *testing.T) {
			var buf bytes.Buffer
			if err := catalog.WriteERBs(&buf, towers, omit); err != nil {
				t.Fatal(err)
			}
			if f, err := catalog.DetectFormat(buf.Bytes()[:catalog.DetectFormatBytes]); err != nil || f != catalog.FormatAnatelERBs {
				t.Fatalf("DetectFormat = %v, %v", f, err)
			}
			res, err := catalog.ParseAnatelERBs(&buf)
			if err != nil || len(res.Rejects) != 0 || len(res.Warnings) != 0 || len(res.Stations) != len(towers) {
				t.Fatalf("err %v rejects %v stations %d", err, res.Rejects, len(res.Stations))
			}
			res.MarkSynthetic("synthetic round trip")
			stats := catalog.NewPlacer(g).Place(res)
			wantPlacement := appliance.PlacementSurveyed
			tol := 1e-6 // degrees: 6 decimals written
			if omit {
				wantPlacement, tol = appliance.PlacementCentroid, 1e-12
				if stats.Centroid != len(towers) {
					t.Errorf("stats %+v", stats)
				}
			}
			for i, got := range res.Towers() {
				want := towers[i]
				if got.ID != want.ID || got.Operator != want.Operator || !got.Synthetic || got.Source != appliance.SourceSynthetic ||
					got.IBGECode != want.IBGECode || got.Placement != wantPlacement ||
					math.Abs(got.Lat-want.Lat) > tol || math.Abs(got.Lon-want.Lon) > tol ||
					fmt.Sprint(got.BandsMHz) != fmt.Sprint(want.BandsMHz) || fmt.Sprint(got.Technologies) != fmt.Sprint(want.Technologies) {
					t.Fatalf("tower %d:\n got %+v\nwant %+v", i, got, want)
				}
			}
		})
	}
	t.Run("refuses towers without station number", func(t *testing.T) {
		bad := []appliance.Tower{{ID: "user:1", Operator: "Vivo"}}
		if err := catalog.WriteERBs(&bytes.Buffer{}, bad, false); !errorsIsInvalid(err) {
			t.Errorf("err = %v, want ErrInvalid", err)
		}
	})
}
