package terrain_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"linkplan/appliance"
	"linkplan/terrain-packs/terrain"
)

// TestSamplePath: the heights SamplePath gives, in any order, are the
// full profile's bit for bit, and its points and distances are the
// profile's; in index order it fails at the profile's sample with the
// profile's error; and a path CoversPath accepts never fails, for Pack
// and Layered on random paths in and out of the sample pack's tiles
// (seed printed).
func TestSamplePath(t *testing.T) {
	p := openSample(t)
	seed := testSeed(t)
	rng := rand.New(rand.NewPCG(seed, 13))
	type sampler interface {
		appliance.Terrain
		SamplePath(path *appliance.ProfilePath, idx []int, yield func(i int, heightM float64) bool) error
		CoversPath(path *appliance.ProfilePath) bool
	}
	for _, src := range []struct {
		name string
		t    sampler
	}{{"pack", p}, {"layered", terrain.NewLayered(p)}, {"layered twice", terrain.NewLayered(p, p)}} {
		t.Run(src.name, func(t *testing.T) {
			covered, failed := 0, 0
			for n := 0; n < 400; n++ {
				// The pack holds S23W044 and S22W043; many paths leave them.
				a := appliance.LatLon{Lat: -22.99 + 1.98*rng.Float64(), Lon: -43.99 + 1.98*rng.Float64()}
				b := appliance.LatLon{Lat: a.Lat + 0.5*(rng.Float64()-0.5), Lon: a.Lon + 0.5*(rng.Float64()-0.5)}
				if n%40 == 0 {
					b = a // co-located
				}
				step := []float64{30, 90, 250}[rng.IntN(3)]
				path := appliance.NewProfilePath(a, b, step)
				full, ferr := src.t.Profile(a, b, step)
				all := make([]int, path.Steps+1)
				for i := range all {
					all[i] = i
				}
				var got []float64
				err := src.t.SamplePath(&path, all, func(i int, h float64) bool {
					if i != len(got) {
						t.Fatalf("sample %d given as the %dth", i, len(got))
					}
					got = append(got, h)
					return true
				})
				covers := src.t.CoversPath(&path)
				if covers {
					covered++
				}
				if ferr != nil {
					failed++
					if err == nil || err.Error() != ferr.Error() {
						t.Fatalf("%v→%v step %v: SamplePath error %v, Profile's %v", a, b, step, err, ferr)
					}
					if covers {
						t.Fatalf("%v→%v step %v: CoversPath, but Profile fails: %v", a, b, step, ferr)
					}
					continue
				}
				if err != nil || full.Len() != path.Steps+1 || len(got) != full.Len() {
					t.Fatalf("%v→%v step %v: %d samples, %v; profile %d", a, b, step, len(got), err, full.Len())
				}
				for i := range got {
					if math.Float64bits(got[i]) != math.Float64bits(full.HeightsM[i]) || math.Float64bits(path.DistanceM(i)) != math.Float64bits(full.DistancesM[i]) {
						t.Fatalf("%v→%v step %v sample %d: %v m at %v m, profile %v m at %v m", a, b, step, i, got[i], path.DistanceM(i), full.HeightsM[i], full.DistancesM[i])
					}
				}
				// Any order, stopping where yield says.
				perm := rng.Perm(len(all))
				stop := rng.IntN(len(all))
				seen := 0
				if err := src.t.SamplePath(&path, perm, func(i int, h float64) bool {
					if i != perm[seen] || math.Float64bits(h) != math.Float64bits(full.HeightsM[i]) {
						t.Fatalf("%v→%v: sample %d out of order or %v m, profile %v m", a, b, i, h, full.HeightsM[i])
					}
					seen++
					return seen <= stop
				}); err != nil || seen != stop+1 {
					t.Fatalf("%v→%v: %d samples before the stop at %d: %v", a, b, seen, stop+1, err)
				}
			}
			t.Logf("%d paths covered, %d failed", covered, failed)
			if covered == 0 || failed == 0 {
				t.Fatal("the paths do not exercise both covered and failing paths")
			}
		})
	}
}

// TestCoversPath: which tiles let CoversPath vouch for a path, on a
// synthetic pack: land and sea tiles do; a void tile, a land tile with a
// NoData sample (even far from the path) and a tile no pack holds do
// not, nor does a pack's unsound tile that another layer holds soundly.
func TestCoversPath(t *testing.T) {
	land := []int16{0, 10, 20, 30, 40, 50, 60, 70, 80}
	holed := []int16{0, 10, terrain.NoData, 30, 40, 50, 60, 70, 80}
	tLand := terrain.TileID{Lat: -23, Lon: -44}  // S23W044
	tSea := terrain.TileID{Lat: -23, Lon: -43}   // S23W043, east of it
	tVoid := terrain.TileID{Lat: -24, Lon: -44}  // S24W044, south of it
	tHoled := terrain.TileID{Lat: -22, Lon: -44} // S22W044, north of it
	open := func(tiles []synthTile) *terrain.Pack {
		p, err := terrain.OpenBytes(makePack(t, 2, terrain.CodecZstdRaw, terrain.VersionV1, tiles))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Close() })
		return p
	}
	p := open([]synthTile{
		{id: tLand, kind: terrain.KindLand, samples: land},
		{id: tSea, kind: terrain.KindSea},
		{id: tVoid, kind: terrain.KindVoid},
		{id: tHoled, kind: terrain.KindLand, samples: holed},
	})
	full := open([]synthTile{{id: tVoid, kind: terrain.KindLand, samples: land}, {id: tHoled, kind: terrain.KindLand, samples: land}})
	at := func(lat, lon float64) appliance.LatLon { return appliance.LatLon{Lat: lat, Lon: lon} }
	for _, tc := range []struct {
		name string
		t    interface {
			CoversPath(path *appliance.ProfilePath) bool
		}
		a, b appliance.LatLon
		want bool
	}{
		{"inside a land tile", p, at(-22.5, -43.8), at(-22.6, -43.5), true},
		{"from land to sea", p, at(-22.5, -43.2), at(-22.5, -42.8), true},
		{"near the void tile's edge", p, at(-22.5, -43.5), at(-22.9999999, -43.5), false},
		{"into the void tile", p, at(-22.5, -43.5), at(-23.2, -43.5), false},
		{"into the tile with NoData", p, at(-22.5, -43.5), at(-21.9, -43.5), false},
		{"into a tile no pack holds", p, at(-22.5, -43.5), at(-22.5, -44.2), false},
		{"void below, sound in the next layer: still not", terrain.NewLayered(p, full), at(-22.5, -43.5), at(-23.2, -43.5), false},
		{"held soundly by the only layer that holds it", terrain.NewLayered(full), at(-23.5, -43.5), at(-23.4, -43.6), true},
		{"co-located", p, at(-22.5, -43.5), at(-22.5, -43.5), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := appliance.NewProfilePath(tc.a, tc.b, 90)
			for range 2 { // the second answer is the kept one
				if got := tc.t.CoversPath(&path); got != tc.want {
					t.Fatalf("CoversPath %v→%v = %v, want %v", tc.a, tc.b, got, tc.want)
				}
			}
		})
	}
}

// TestGaps: the gaps of a box are the tiles it touches that are not held
// soundly (the TestCoversPath tiles), alike for Pack and Layered; and
// every sample of random paths from a disc's centre to points inside it
// that meet none of the disc's gaps has a height (seed printed;
// TERRAIN_SEED replays one).
func TestGaps(t *testing.T) {
	land := []int16{0, 10, 20, 30, 40, 50, 60, 70, 80}
	holed := []int16{0, 10, terrain.NoData, 30, 40, 50, 60, 70, 80}
	p, err := terrain.OpenBytes(makePack(t, 2, terrain.CodecZstdRaw, terrain.VersionV1, []synthTile{
		{id: terrain.TileID{Lat: -23, Lon: -44}, kind: terrain.KindLand, samples: land},  // S23W044
		{id: terrain.TileID{Lat: -23, Lon: -43}, kind: terrain.KindSea},                  // S23W043
		{id: terrain.TileID{Lat: -24, Lon: -44}, kind: terrain.KindVoid},                 // S24W044
		{id: terrain.TileID{Lat: -22, Lon: -44}, kind: terrain.KindLand, samples: holed}, // S22W044
	}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	tile := func(lat, lon float64) appliance.BBox {
		return appliance.BBox{MinLat: lat, MinLon: lon, MaxLat: lat + 1, MaxLon: lon + 1}
	}
	box := func(minLat, minLon, maxLat, maxLon float64) appliance.BBox {
		return appliance.BBox{MinLat: minLat, MinLon: minLon, MaxLat: maxLat, MaxLon: maxLon}
	}
	for _, tc := range []struct {
		name string
		b    appliance.BBox
		want []appliance.BBox
	}{
		{"inside the land tile", box(-22.8, -43.8, -22.2, -43.2), nil},
		{"land and sea", box(-22.8, -43.5, -22.2, -42.5), nil},
		{"into the void tile", box(-23.1, -43.5, -22.5, -43.2), []appliance.BBox{tile(-24, -44)}},
		{"into the tile with NoData", box(-22.5, -43.5, -21.9, -43.2), []appliance.BBox{tile(-22, -44)}},
		{"into a tile no pack holds", box(-22.5, -44.1, -22.4, -43.9), []appliance.BBox{tile(-23, -45)}},
		// A point on a tile's south edge is the tile's (TileOf).
		{"down to the void tile's north edge", box(-23, -43.5, -22.5, -43.2), nil},
		{"up to the NoData tile's south edge", box(-22.5, -43.5, -22, -43.2), []appliance.BBox{tile(-22, -44)}},
		{"every kind, south-west to north-east", box(-23.5, -44.5, -21.5, -42.5), []appliance.BBox{
			tile(-24, -45), tile(-24, -44), tile(-24, -43), tile(-23, -45), tile(-22, -45), tile(-22, -44), tile(-22, -43)}},
		{"invalid box is its own gap", box(-22, -43, -23, -44), []appliance.BBox{box(-22, -43, -23, -44)}},
		{"too many tiles is its own gap", box(-40, -80, -10, -30), []appliance.BBox{box(-40, -80, -10, -30)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for name, g := range map[string]interface {
				Gaps(appliance.BBox, []appliance.BBox) []appliance.BBox
			}{"pack": p, "layered": terrain.NewLayered(p)} {
				if got := g.Gaps(tc.b, nil); !slices.Equal(got, tc.want) {
					t.Fatalf("%s Gaps(%+v) = %+v, want %+v", name, tc.b, got, tc.want)
				}
			}
		})
	}
	r := rand.New(rand.NewPCG(testSeed(t), 5))
	at := func(lat, lon float64) appliance.LatLon { return appliance.LatLon{Lat: lat, Lon: lon} }
	clear := 0
	for range 400 {
		c := at(-23+2*r.Float64(), -44+2*r.Float64())
		radiusM := 60000 * r.Float64()
		db, ok := appliance.DiscBox(c, radiusM)
		if !ok {
			t.Fatalf("no box for the disc %v %g m", c, radiusM)
		}
		gs := p.Gaps(db, nil)
		for range 5 {
			q := c.Destination(360*r.Float64(), radiusM*math.Sqrt(r.Float64()))
			d := q.DistanceM(c)
			ab, ok := appliance.ArcBox(q, c, d)
			if d > radiusM || !ok || slices.ContainsFunc(gs, ab.Intersects) {
				continue
			}
			clear++
			if _, err := p.Profile(q, c, 90); err != nil {
				t.Fatalf("the path %v→%v meets none of the gaps %+v of its disc but fails: %v", q, c, gs, err)
			}
		}
	}
	if clear < 100 {
		t.Fatalf("only %d random paths clear of the gaps: the property is barely tested", clear)
	}
}
