package h3

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
)

func seed(tb testing.TB) uint64 {
	s := uint64(20261125)
	if v, err := strconv.ParseUint(os.Getenv("SEED"), 10, 64); err == nil {
		s = v
	}
	tb.Logf("SEED=%d", s)
	return s
}

type refPoint struct {
	kind           string
	latDeg, lonDeg float64
	res            int
}

// acceptancePoints draws the points of the h3-js comparison: worldwide,
// Brazil, and the edge cases (poles, antimeridian, pentagon neighbourhoods,
// face edges), each at resolution 8 and at one other resolution.
func acceptancePoints(tb testing.TB, rng *rand.Rand, pentagons [][2]float64) []refPoint {
	tb.Helper()
	var pts []refPoint
	add := func(kind string, lat, lon float64) {
		lat = math.Max(-90, math.Min(90, lat))
		for lon > 180 {
			lon -= 360
		}
		for lon < -180 {
			lon += 360
		}
		pts = append(pts, refPoint{kind, lat, lon, 8}, refPoint{kind, lat, lon, len(pts) / 2 % (MaxResolution + 1)})
	}
	for range 6000 { // uniform over the sphere
		add("world", radToDeg(math.Asin(2*rng.Float64()-1)), 360*rng.Float64()-180)
	}
	for range 5000 { // Brazil's bounding box
		add("brazil", -33.75+39.03*rng.Float64(), -73.99+39.2*rng.Float64())
	}
	for _, lat := range []float64{90, -90, 89.999999, -89.999999, 89.9, -89.9} {
		for _, lon := range []float64{-180, -135, -90, -45, 0, 45, 90, 135, 180, 12.345} {
			add("pole", lat, lon)
		}
	}
	for range 300 {
		lat := radToDeg(math.Asin(2*rng.Float64() - 1))
		d := math.Pow(10, -12*rng.Float64())
		add("antimeridian", lat, 180-d)
		add("antimeridian", lat, -180+d)
		add("antimeridian", lat, 180)
	}
	for _, p := range pentagons {
		for range 100 {
			d := 0.1 * math.Pow(10, -10*rng.Float64()) // 1e-11..0.1 rad
			lat, lon := destination(degToRad(p[0]), degToRad(p[1]), rng.Float64()*twoPi, d)
			add("pentagon", radToDeg(lat), radToDeg(lon))
		}
		add("pentagon", p[0], p[1])
	}
	// Face edges: points on the great circle equidistant from two adjacent
	// face centres, nudged to either side by 1e-13..1e-3 rad.
	for a := range numFaces {
		for b := a + 1; b < numFaces; b++ {
			fa, fb := &faceFrames[a], &faceFrames[b]
			if d := math.Acos(fa.x*fb.x + fa.y*fb.y + fa.z*fb.z); d > degToRad(45) {
				continue
			}
			m := norm3([3]float64{fa.x + fb.x, fa.y + fb.y, fa.z + fb.z})
			e := norm3(cross3([3]float64{fa.x, fa.y, fa.z}, [3]float64{fb.x, fb.y, fb.z}))
			n := norm3([3]float64{fa.x - fb.x, fa.y - fb.y, fa.z - fb.z})
			for range 20 {
				s := 0.7 * (rng.Float64() - 0.5)
				off := math.Pow(10, -13+10*rng.Float64())
				if rng.IntN(2) == 0 {
					off = -off
				}
				p := norm3([3]float64{m[0] + s*e[0] + off*n[0], m[1] + s*e[1] + off*n[1], m[2] + s*e[2] + off*n[2]})
				add("face-edge", radToDeg(math.Asin(p[2])), radToDeg(math.Atan2(p[1], p[0])))
			}
		}
	}
	return pts
}

func norm3(v [3]float64) [3]float64 {
	n := math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2])
	return [3]float64{v[0] / n, v[1] / n, v[2] / n}
}

func cross3(a, b [3]float64) [3]float64 {
	return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

// TestLatLngToCellMatchesH3js is issue 11's acceptance check: over 10,000
// random points (and the edge cases) every cell equals h3-js's.
func TestLatLngToCellMatchesH3js(t *testing.T) {
	var infos []res0Info
	if err := json.Unmarshal([]byte(runRef(t, "res0", nil)[0]), &infos); err != nil {
		t.Fatal(err)
	}
	var pentagons [][2]float64
	for _, in := range infos {
		if in.Pentagon {
			pentagons = append(pentagons, [2]float64{in.Lat, in.Lon})
		}
	}
	rng := rand.New(rand.NewPCG(seed(t), 0))
	pts := acceptancePoints(t, rng, pentagons)
	q := make([]string, len(pts))
	for i, p := range pts {
		q[i] = fmt.Sprintf("%s %s %d", fmtF(p.latDeg), fmtF(p.lonDeg), p.res)
	}
	ans := runRef(t, "cells", q)
	total, agree := map[string]int{}, map[string]int{}
	bad := 0
	for i, p := range pts {
		total[p.kind]++
		got, err := LatLngToCell(p.latDeg, p.lonDeg, p.res)
		if err == nil && got.String() == ans[i] {
			agree[p.kind]++
			continue
		}
		if bad++; bad <= 20 {
			t.Errorf("%s point (%s, %s) res %d: got %v (err %v), h3-js %s", p.kind, fmtF(p.latDeg), fmtF(p.lonDeg), p.res, got, err, ans[i])
		}
	}
	n := 0
	for _, k := range []string{"world", "brazil", "pole", "antimeridian", "pentagon", "face-edge"} {
		t.Logf("%-12s %6d of %6d cells identical", k, agree[k], total[k])
		n += total[k]
	}
	if len(pts) != n || total["world"]+total["brazil"] < 2*10000 {
		t.Fatalf("sample accounting: %d points, %d counted", len(pts), n)
	}
	if bad > 0 {
		t.Fatalf("%d of %d cells differ from h3-js", bad, len(pts))
	}
}

// TestCellToLatLngMatchesH3js compares cell centres with h3-js's for the
// cells of the acceptance points, and requires each centre to lie in its
// own cell.
func TestCellToLatLngMatchesH3js(t *testing.T) {
	var infos []res0Info
	if err := json.Unmarshal([]byte(runRef(t, "res0", nil)[0]), &infos); err != nil {
		t.Fatal(err)
	}
	var pentagons [][2]float64
	for _, in := range infos {
		if in.Pentagon {
			pentagons = append(pentagons, [2]float64{in.Lat, in.Lon})
		}
	}
	rng := rand.New(rand.NewPCG(seed(t), 1))
	pts := acceptancePoints(t, rng, pentagons)
	var cells []Cell
	var q []string
	for _, p := range pts {
		c, err := LatLngToCell(p.latDeg, p.lonDeg, p.res)
		if err != nil {
			t.Fatal(err)
		}
		cells = append(cells, c)
		q = append(q, c.String())
	}
	for _, in := range infos {
		c, err := ParseCell(in.Cell)
		if err != nil {
			t.Fatal(err)
		}
		cells = append(cells, c)
		q = append(q, in.Cell)
	}
	ans := runRef(t, "centres", q)
	// Centres within 1 mm (on a 6,371,008.8 m sphere), and 5 cm within
	// 0.01° of a pole: there the arcsine that gives the latitude is
	// ill-conditioned, and two libms differ by up to ~1e-9 rad.
	const tolM, tolPoleM = 0.001, 0.05
	worst, worstPole, bad := 0.0, 0.0, 0
	for i, c := range cells {
		var wantLat, wantLon float64
		if _, err := fmt.Sscan(ans[i], &wantLat, &wantLon); err != nil {
			t.Fatalf("h3-js centre %q: %v", ans[i], err)
		}
		lat, lon, err := CellToLatLng(c)
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		d := greatCircleM(lat, lon, wantLat, wantLon)
		tol := tolM
		if math.Abs(wantLat) > 89.99 {
			tol = tolPoleM
			worstPole = math.Max(worstPole, d)
		} else {
			worst = math.Max(worst, d)
		}
		back, err := LatLngToCell(lat, lon, c.Resolution())
		if d > tol || err != nil || back != c {
			if bad++; bad <= 20 {
				t.Errorf("%s: centre (%s, %s), h3-js (%s, %s), back to %v (err %v)", c, fmtF(lat), fmtF(lon), fmtF(wantLat), fmtF(wantLon), back, err)
			}
		}
	}
	t.Logf("%d centres, %d farther than %g m (%g m near the poles) from h3-js's; largest distance %.3g m (%.3g m near the poles)", len(cells), bad, tolM, tolPoleM, worst, worstPole)
	if bad > 0 {
		t.Fatalf("%d of %d centres differ from h3-js", bad, len(cells))
	}
}

// greatCircleM returns the distance between two points (degrees) in metres
// on a sphere of radius 6,371,008.8 m (haversine).
func greatCircleM(lat1, lon1, lat2, lon2 float64) float64 {
	p1, p2 := degToRad(lat1), degToRad(lat2)
	dp, dl := p2-p1, degToRad(lon2-lon1)
	a := math.Sin(dp/2)*math.Sin(dp/2) + math.Cos(p1)*math.Cos(p2)*math.Sin(dl/2)*math.Sin(dl/2)
	return 2 * 6371008.8 * math.Asin(math.Min(1, math.Sqrt(a)))
}

// TestRes0CellsMatchH3js: the 122 base cells parse, carry h3-js's base
// number and pentagon flag, and their centres encode back to them.
func TestRes0CellsMatchH3js(t *testing.T) {
	var infos []res0Info
	if err := json.Unmarshal([]byte(runRef(t, "res0", nil)[0]), &infos); err != nil {
		t.Fatal(err)
	}
	if len(infos) != NumBaseCells {
		t.Fatalf("h3-js lists %d base cells", len(infos))
	}
	pentagons := 0
	for _, in := range infos {
		c, err := ParseCell(in.Cell)
		if err != nil {
			t.Fatal(err)
		}
		if c.BaseCell() != in.Base || c.Resolution() != 0 || c.IsPentagon() != in.Pentagon {
			t.Errorf("%s: base %d res %d pentagon %v; h3-js base %d pentagon %v", c, c.BaseCell(), c.Resolution(), c.IsPentagon(), in.Base, in.Pentagon)
		}
		if got, err := LatLngToCell(in.Lat, in.Lon, 0); err != nil || got != c {
			t.Errorf("centre of %s encodes to %v (%v)", c, got, err)
		}
		if c.IsPentagon() {
			pentagons++
		}
	}
	if pentagons != 12 {
		t.Fatalf("%d pentagons, want 12", pentagons)
	}
}

// TestCellEdgesMatchH3js locates cell edges (walking east from random
// points, then bisecting to adjacent doubles) and asks h3-js about points
// on both sides: from 1e-12° (~0.1 µm) off an edge on, both must agree;
// closer than that the last-bit differences of two libms (and of the face
// centres, read back from degrees) decide, and the share is only logged.
func TestCellEdgesMatchH3js(t *testing.T) {
	rng := rand.New(rand.NewPCG(seed(t), 3))
	offsets := []float64{0, 1e-14, 1e-13, 1e-12, 1e-11, 1e-9}
	const asserted = 1e-12
	type probe struct {
		lat, lon float64
		res      int
		off      float64
		mine     Cell
	}
	var probes []probe
	var q []string
	for n := range 400 {
		lat := radToDeg(math.Asin(2*rng.Float64() - 1))
		lon := 360*rng.Float64() - 180
		res := 8
		if n%2 == 1 {
			res = rng.IntN(MaxResolution + 1)
		}
		a, err := LatLngToCell(lat, lon, res)
		if err != nil {
			t.Fatal(err)
		}
		step := 0.1 * math.Pow(7, -float64(res)/2) // degrees, < a cell
		lo, hi := lon, lon
		for {
			hi = lo + step
			if hi > 180 {
				lo, hi = lo-360, hi-360
			}
			if c, err := LatLngToCell(lat, hi, res); err != nil || c != a {
				break
			}
			lo = hi
		}
		for {
			mid := lo + (hi-lo)/2
			if mid == lo || mid == hi {
				break
			}
			if c, _ := LatLngToCell(lat, mid, res); c == a {
				lo = mid
			} else {
				hi = mid
			}
		}
		for _, off := range offsets {
			for _, x := range []float64{lo - off, hi + off} {
				c, err := LatLngToCell(lat, x, res)
				if err != nil {
					t.Fatal(err)
				}
				probes = append(probes, probe{lat, x, res, off, c})
				q = append(q, fmt.Sprintf("%s %s %d", fmtF(lat), fmtF(x), res))
			}
		}
	}
	ans := runRef(t, "cells", q)
	differ, total := map[float64]int{}, map[float64]int{}
	bad := 0
	for i, p := range probes {
		total[p.off]++
		if p.mine.String() == ans[i] {
			continue
		}
		differ[p.off]++
		if p.off >= asserted {
			if bad++; bad <= 10 {
				t.Errorf("%g° from an edge, (%s, %s) res %d: %s, h3-js %s", p.off, fmtF(p.lat), fmtF(p.lon), p.res, p.mine, ans[i])
			}
		}
	}
	for _, off := range offsets {
		t.Logf("%-6g° from a cell edge: %3d of %d cells differ from h3-js", off, differ[off], total[off])
	}
	if bad > 0 {
		t.Fatalf("%d cells at ≥ %g° from an edge differ from h3-js", bad, asserted)
	}
}
