package raytrace

import (
	"math/rand/v2"
	"testing"
	"time"

	"linkplan/appliance"
)

// TestInsideBuildingEqualsNaive: the hierarchy's point query answers as
// the scan over every building did (the lowest index where buildings
// overlap), on random points in and around a scene of overlapping boxes,
// on façades and at roof level included.
func TestInsideBuildingEqualsNaive(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 7))
	origin := appliance.LatLon{Lat: -22.9, Lon: -43.2}
	f := NewFrame(origin)
	var bs []appliance.Building
	for i := range 300 {
		x, y := rng.Float64()*800-400, rng.Float64()*800-400
		w, d := 5+rng.Float64()*40, 5+rng.Float64()*40
		fp := appliance.Footprint{Outer: []appliance.LatLon{f.ToLatLon(x, y), f.ToLatLon(x+w, y), f.ToLatLon(x+w, y+d), f.ToLatLon(x, y+d)}}
		bs = append(bs, appliance.Building{ID: string(rune('a'+i%26)) + string(rune('a'+i/26)), Footprints: []appliance.Footprint{fp},
			HeightM: 3 + rng.Float64()*30, HeightSource: appliance.HeightTagged})
	}
	s, err := NewScene(SceneInput{Buildings: bs, Origin: origin})
	if err != nil {
		t.Fatal(err)
	}
	inside := 0
	for range 20000 {
		p := vec3{rng.Float64()*900 - 450, rng.Float64()*900 - 450, s.groundZ + rng.Float64()*40}
		if rng.IntN(4) == 0 { // on a vertex's façade line or at a roof's level
			b := &s.buildings[rng.IntN(len(s.buildings))]
			v := b.polys[0].rings[0][rng.IntN(len(b.polys[0].rings[0]))]
			p.X, p.Y = v.X, v.Y+rng.Float64()*5
			if rng.IntN(2) == 0 {
				p.Z = b.zt
			}
		}
		a, want := s.insideBuilding(p), s.insideBuildingNaive(p)
		if a != want {
			t.Fatalf("%+v: hierarchy %d, naive %d", p, a, want)
		}
		if a >= 0 {
			inside++
		}
	}
	t.Logf("20000 points, %d inside a building", inside)
}
