package raytrace

import (
	"context"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"
	"time"

	"linkplan/appliance"
)

// box is a building with a rectangular footprint in frame f.
func box(f Frame, x0, y0, x1, y1, h float64) appliance.Building {
	fp := appliance.Footprint{Outer: []appliance.LatLon{f.ToLatLon(x0, y0), f.ToLatLon(x1, y0), f.ToLatLon(x1, y1), f.ToLatLon(x0, y1)}}
	return appliance.Building{ID: "b", Footprints: []appliance.Footprint{fp}, HeightM: h, HeightSource: appliance.HeightTagged}
}

// TestScatteringReflectedLeg checks the transmitter leg through a wall
// (Options.ScatteringReflections) against the image method written out
// here: two 30 m blocks face each other across a 40 m street, the
// transmitter between them; every tile of the south block's north face
// receives, besides the direct leg, the leg through the north block's
// south face, the only wall facing the transmitter: cosθ·|Γ|²/L² with L
// the distance from the transmitter's image, θ the tile's angle to the
// reflection point and |Γ|² the P.2040 coefficients (times 1 − S²) of
// the TE and TM parts of the vertical polarisation, computed from the
// plane of incidence.
func TestScatteringReflectedLeg(t *testing.T) {
	origin := appliance.LatLon{Lat: -22.9068, Lon: -43.1729}
	f := NewFrame(origin)
	s, err := NewScene(SceneInput{Buildings: []appliance.Building{box(f, -50, 20, 50, 30, 30), box(f, -50, -30, 50, -20, 30)}, Origin: origin})
	if err != nil {
		t.Fatal(err)
	}
	opt := DefaultOptions()
	opt.DiffuseScattering = 0.4
	opt.ScatteringReflections = true
	const freq = 2600.0
	c, _, err := s.newCtx(context.Background(), Antenna{Pos: f.ToLatLon(-30, 0), HeightM: 10}, nil, freq, opt, everywhere(1.5), false, true)
	if err != nil {
		t.Fatal(err)
	}
	tx := c.tx
	img := vec3{tx.X, 40 - tx.Y, tx.Z} // mirror in the plane y = 20
	eta := c.etas[s.surfaces[s.tileSurf[0]].mat]
	base := c.lambda / (4 * math.Pi)
	base *= base * 0.16 / math.Pi
	checked, worst := 0, 0.0
	for _, lt := range c.litTiles {
		tl := s.tile(lt.ti)
		if tl.n.Y < 0.99 || math.Abs(tl.c.Y+20) > 0.02 { // the south block's north face
			continue
		}
		// direct leg
		u := tx.sub(tl.c)
		direct := tl.n.dot(u) / u.norm() / u.dot(u)
		// the reflection point on y = 20
		d := tl.c.sub(img)
		x := img.add(d.scale((20 - img.Y) / d.Y))
		if x.X < -50 || x.X > 50 || x.Z > s.groundZ+30 {
			continue // the reflection misses the wall: no such leg
		}
		k0 := x.sub(tx).unit()
		cosT := math.Abs(k0.Y)
		rTE, rTM := Fresnel(eta, cosT)
		// vertical polarisation along k0: its part perpendicular to the
		// plane of incidence (spanned by k0 and the wall's normal ŷ)
		perp := vec3{k0.Z, 0, -k0.X}.unit() // ∝ k0 × ŷ
		te := thetaHat(k0).dot(perp)
		g2 := (cmplx.Abs(rTE)*cmplx.Abs(rTE)*te*te + cmplx.Abs(rTM)*cmplx.Abs(rTM)*(1-te*te)) * (1 - 0.16)
		back := x.sub(tl.c)
		refl := tl.n.dot(back) / back.norm() / d.dot(d) * g2
		want := base * tl.area * (direct + refl)
		rel := math.Abs(lt.part-want) / want
		worst = math.Max(worst, rel)
		checked++
	}
	t.Logf("%d tiles of the facing wall: worst relative difference from the image method %.2e", checked, worst)
	if checked < 50 {
		t.Fatalf("only %d tiles checked", checked)
	}
	if worst > 1e-9 {
		t.Errorf("transmitter legs differ from the image method by up to %.2e (relative)", worst)
	}
}

// TestTilesInBeam: the tiles the grid finds in a wall's beam within the
// range are those a scan of every tile finds, on a random city (printed
// seed) with random antennas, for every wall facing them.
func TestTilesInBeam(t *testing.T) {
	seed := uint64(61)
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	s, _ := boxCity(t, rng, 60, 600)
	beams, found := 0, 0
	for i := 0; i < 20; i++ {
		p := vec3{rng.Float64()*700 - 350, rng.Float64()*700 - 350, 1.5 + rng.Float64()*30}
		rangeM := 50 + rng.Float64()*300
		for _, m := range s.facingWalls(nil, p, rangeM) {
			sf := &s.surfaces[m.surf]
			r, ok := wallBeam(sf, m.img)
			if !ok {
				continue
			}
			got := s.tilesInBeam(nil, &r, sf, p.xy(), rangeM)
			in := map[int32]bool{}
			for _, ti := range got {
				in[ti] = true
			}
			want := 0
			for ti := range s.numTiles() {
				c := s.tile(int32(ti)).c.xy()
				if d := c.sub(p.xy()); d.dot(d) <= rangeM*rangeM && r.contains(c) {
					want++
					if !in[int32(ti)] {
						t.Fatalf("antenna %v, range %.0f m, wall %d: tile %d in the beam was missed", p, rangeM, m.surf, ti)
					}
				}
			}
			if want != len(got) {
				t.Fatalf("antenna %v, wall %d: %d tiles found, %d in the beam", p, m.surf, len(got), want)
			}
			beams++
			found += want
		}
	}
	t.Logf("%d beams, %d tiles found, every one a scan finds", beams, found)
	if beams < 100 || found == 0 {
		t.Fatalf("%d beams, %d tiles: the test checks too little", beams, found)
	}
}

// boxCity is a scene of n rectangular buildings (10–50 m sides, 8–38 m
// tall) placed by rng in a square of side sizeM around Rio, and its frame.
func boxCity(t *testing.T, rng *rand.Rand, n int, sizeM float64) (*Scene, Frame) {
	t.Helper()
	origin := appliance.LatLon{Lat: -22.9068, Lon: -43.1729}
	f := NewFrame(origin)
	var bs []appliance.Building
	for k := 0; k < n; k++ {
		x0, y0 := (rng.Float64()-0.5)*sizeM, (rng.Float64()-0.5)*sizeM
		bs = append(bs, box(f, x0, y0, x0+10+rng.Float64()*40, y0+10+rng.Float64()*40, 8+rng.Float64()*30))
	}
	s, err := NewScene(SceneInput{Buildings: bs, Origin: origin})
	if err != nil {
		t.Fatal(err)
	}
	return s, f
}

// nearWall returns a point in front of a random wall of s, offM metres
// from its plane (at its ends one time in three), outside every building.
func nearWall(rng *rand.Rand, s *Scene, offM float64) vec2 {
	for {
		sf := &s.surfaces[rng.IntN(len(s.surfaces))]
		if sf.kind != kindWall {
			continue
		}
		u := rng.Float64()
		if rng.IntN(3) == 0 {
			u = []float64{0.001, 0.999}[rng.IntN(2)]
		}
		p := sf.a.add(sf.b.sub(sf.a).scale(u)).add(vec2{sf.n.X, sf.n.Y}.scale(offM))
		if s.insideBuilding(vec3{p.X, p.Y, s.groundZ + 1}) < 0 {
			return p
		}
	}
}

// TestScatteringReflectionsReciprocityNearWalls: with the scattering's
// reflections, the received power and the RMS delay spread are the same
// whichever end transmits, for antennas from 3 mm to 5 m in front of a
// wall (closer than the tiles' centres, which stand 1 cm in front), on
// random cities (printed seeds).
func TestScatteringReflectionsReciprocityNearWalls(t *testing.T) {
	opt := DefaultOptions()
	opt.DiffuseScattering = 0.4
	opt.ScatteringReflections = true
	opt.ReflectionDiffraction = true
	worstDB, worstNs := 0.0, 0.0
	n := 0
	for seed := uint64(1); seed <= 4; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		s, f := boxCity(t, rng, 40, 400)
		for i := 0; i < 25; i++ {
			off := []float64{0.003, 0.008, 0.02, 0.5, 5}[i%5]
			a, b := nearWall(rng, s, off), nearWall(rng, s, 0.003+rng.Float64()*3)
			A := Antenna{Pos: f.ToLatLon(a.X, a.Y), HeightM: 1.5 + rng.Float64()*30}
			B := Antenna{Pos: f.ToLatLon(b.X, b.Y), HeightM: 1.5 + rng.Float64()*10}
			ab, err := s.Point(context.Background(), PointRequest{Tx: A, Rx: B, FreqMHz: 2600, TxPowerDBm: 40, Options: opt})
			if err != nil {
				t.Fatal(err)
			}
			ba, err := s.Point(context.Background(), PointRequest{Tx: B, Rx: A, FreqMHz: 2600, TxPowerDBm: 40, Options: opt})
			if err != nil {
				t.Fatal(err)
			}
			if ab.Reachable != ba.Reachable {
				t.Fatalf("seed %d link %d: reachable one way only", seed, i)
			}
			if !ab.Reachable {
				continue
			}
			n++
			worstDB = math.Max(worstDB, math.Abs(ab.PathLossDB-ba.PathLossDB))
			worstNs = math.Max(worstNs, math.Abs(ab.RMSDelaySpreadNs-ba.RMSDelaySpreadNs))
		}
	}
	t.Logf("seeds 1–4, %d reachable links with an antenna 3 mm to 5 m from a wall: reciprocity max %.2e dB, delay spread max %.2e ns", n, worstDB, worstNs)
	if n < 50 {
		t.Fatalf("only %d reachable links", n)
	}
	if worstDB > 1e-6 || worstNs > 1e-6 {
		t.Errorf("not reciprocal: %.3g dB, %.3g ns", worstDB, worstNs)
	}
}

// TestTilesPartitionWalls: the tiles Scene.tile computes from each wall
// and the tile's place in it cover every wall exactly (their areas sum to
// the wall's, each at most 3 m × 3 m), stand 1 cm in front of it with its
// normal, and tileAt finds each tile from its own centre (printed seed).
func TestTilesPartitionWalls(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	s, _ := boxCity(t, rand.New(rand.NewPCG(seed, 7)), 40, 400)
	walls := 0
	for si := range s.surfaces {
		sf := &s.surfaces[si]
		wt := s.wallTiles[si]
		if sf.kind != kindWall {
			if wt.nu != 0 || wt.nv != 0 {
				t.Fatalf("surface %d is not a wall but has tiles", si)
			}
			continue
		}
		walls++
		l, h := sf.b.sub(sf.a).norm(), sf.zt-sf.zb
		area := 0.0
		for k := int32(0); k < wt.nu*wt.nv; k++ {
			ti := wt.first + k
			tl := s.tile(ti)
			area += tl.area
			if tl.surf != int32(si) || tl.bld != sf.bld || tl.n != sf.n {
				t.Fatalf("tile %d: wall %d building %d normal %v, want %d %d %v", ti, tl.surf, tl.bld, tl.n, si, sf.bld, sf.n)
			}
			if d := sf.n.dot(tl.c) - sf.d; math.Abs(d-0.01) > 1e-9 {
				t.Fatalf("tile %d stands %g m in front of its wall, want 0.01", ti, d)
			}
			if got := s.tileAt(int32(si), tl.c.sub(sf.n.scale(0.01))); got != ti {
				t.Fatalf("tileAt finds tile %d at the centre of tile %d", got, ti)
			}
			if tl.area > scatterTileM*scatterTileM+1e-9 {
				t.Fatalf("tile %d: %g m², more than %g", ti, tl.area, scatterTileM*scatterTileM)
			}
		}
		if math.Abs(area-l*h) > 1e-6*l*h {
			t.Fatalf("wall %d: tiles of %g m², the wall has %g", si, area, l*h)
		}
	}
	if walls == 0 || s.numTiles() == 0 {
		t.Fatal("no walls or tiles: the test checks nothing")
	}
	t.Logf("%d walls, %d tiles: each tile on its wall, areas summing to the walls'", walls, s.numTiles())
}

// TestLitTilesRangeCut: the transmitter traces only the tiles within
// 2·range + 5 m of it or range + 1 m of the receivers (litTiles); every
// answer is bit-identical to the one over every tile of the layer: a
// reflection point beyond range + 1 m of both ends (the case that fails
// with a margin of range + 1 m at the transmitter), and 40 links with and
// without the scattering's reflections on a city wider than the range
// (printed seed).
func TestLitTilesRangeCut(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	// the case the transmitter's margin is for: a reflection point 80 to
	// 86 m from the transmitter (range 80 m) on a long wall, reflecting it
	// onto the south face of a building 74 m away, which a receiver 110 m
	// farther east sees along the gap
	origin := appliance.LatLon{Lat: -22.9068, Lon: -43.1729}
	f := NewFrame(origin)
	wall, err := NewScene(SceneInput{Buildings: []appliance.Building{box(f, -300, -20, 300, 0, 20), box(f, 30, 10, 50, 20, 20)}, Origin: origin})
	if err != nil {
		t.Fatal(err)
	}
	opt := DefaultOptions()
	opt.DiffractionRangeM = 80
	opt.DiffuseScattering = 0.4
	opt.ScatteringReflections = true
	opt.Sum = SumPower
	rangeCutCase(t, wall, opt, vec3{0, 75, wall.groundZ + 10}, vec3{150, 5, wall.groundZ + 1.5})
	rng := rand.New(rand.NewPCG(seed, 11))
	s, _ := boxCity(t, rng, 150, 1500)
	for _, sr := range []bool{false, true} {
		opt := DefaultOptions()
		opt.DiffractionRangeM = 60
		opt.DiffuseScattering = 0.4
		opt.ScatteringReflections = sr
		opt.Sum = SumPower
		cut, all, links := 0, 0, 0
		for links < 40 {
			p := func() vec3 {
				for {
					q := vec3{(rng.Float64() - 0.5) * 1400, (rng.Float64() - 0.5) * 1400, 0}
					q.Z = s.groundZ + 1.5 + 20*rng.Float64()
					if s.insideBuilding(q) < 0 {
						return q
					}
				}
			}
			tx, rx := p(), p()
			if tx.sub(rx).norm() > 300 {
				continue
			}
			c, a := rangeCutCase(t, s, opt, tx, rx)
			cut += c
			all += a
			links++
		}
		t.Logf("scattering reflections %v: %d links bit-identical; the transmitters traced %d tiles instead of %d (%.0f %%)", sr, links, cut, all, 100*float64(cut)/float64(all))
		if cut >= all {
			t.Errorf("the cut traced no fewer tiles (%d of %d): the test checks nothing", cut, all)
		}
	}
}

// rangeCutCase checks that the link tx–rx gets the same answer from the
// tiles litTiles traces for it as from every tile, and returns how many
// the transmitter saw of each.
func rangeCutCase(t *testing.T, s *Scene, opt Options, tx, rx vec3) (cut, all int) {
	t.Helper()
	ant := Antenna{Pos: s.frame.ToLatLon(tx.X, tx.Y), HeightM: tx.Z - s.groundZ}
	ca, _, err := s.newCtx(context.Background(), ant, nil, 2600, opt, rxBounds{lo: rx, hi: rx}, false, true)
	if err != nil {
		t.Fatal(err)
	}
	cb, _, err := s.newCtx(context.Background(), ant, nil, 2600, opt, everywhere(rx.Z), false, true)
	if err != nil {
		t.Fatal(err)
	}
	var a, b accum
	newWorker(ca).receiver(rx, &a)
	newWorker(cb).receiver(rx, &b)
	ra, rb := a.result(0, SumPower), b.result(0, SumPower)
	if ra.ReceivedPowerDBm != rb.ReceivedPowerDBm || ra.RMSDelaySpreadNs != rb.RMSDelaySpreadNs || ra.Reachable != rb.Reachable {
		t.Fatalf("scattering reflections %v, tx %v rx %v: %v dBm and %v ns with the cut, %v dBm and %v ns over every tile",
			opt.ScatteringReflections, tx, rx, ra.ReceivedPowerDBm, ra.RMSDelaySpreadNs, rb.ReceivedPowerDBm, rb.RMSDelaySpreadNs)
	}
	return len(ca.lit), len(cb.lit)
}
