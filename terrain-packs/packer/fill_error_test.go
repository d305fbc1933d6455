package packer_test

import (
	"fmt"
	"math"
	"math/rand"
	"slices"
	"testing"

	"linkplan/terrain-packs/packer"
	"linkplan/terrain-packs/terrain"
)

// fillIDW8 is the fill the packer used before format 4 (the baseline of
// TestFillError): each void becomes the inverse-distance-squared mean of
// the nearest valid sample in each of the 8 grid directions, sea samples
// included.
func fillIDW8(s []int16, n int) (filled int, ok bool) {
	rowStart := make([]int, n+1)
	var voids []int32
	for r := 0; r < n; r++ {
		rowStart[r] = len(voids)
		for c := 0; c < n; c++ {
			if s[r*n+c] == terrain.NoData {
				voids = append(voids, int32(r*n+c))
			}
		}
	}
	rowStart[n] = len(voids)
	if len(voids) == 0 {
		return 0, true
	}
	if len(voids) == n*n {
		return 0, false
	}
	sumW := make([]float64, len(voids))
	sumWV := make([]float64, len(voids))
	add := func(k int, dist float64, v int16) {
		w := 1 / (dist * dist)
		sumW[k] += w
		sumWV[k] += w * float64(v)
	}

	// West and east neighbours, row by row.
	for r := 0; r < n; r++ {
		if rowStart[r] == rowStart[r+1] {
			continue
		}
		row := s[r*n : (r+1)*n]
		last, k := -1, rowStart[r]
		for c := 0; c < n; c++ {
			if row[c] != terrain.NoData {
				last = c
				continue
			}
			if last >= 0 {
				add(k, float64(c-last), row[last])
			}
			k++
		}
		last, k = -1, rowStart[r+1]-1
		for c := n - 1; c >= 0; c-- {
			if row[c] != terrain.NoData {
				last = c
				continue
			}
			if last >= 0 {
				add(k, float64(last-c), row[last])
			}
			k--
		}
	}

	// North, north-west, north-east (sweep down), then south, south-west,
	// south-east (sweep up). last* hold the row of the nearest valid sample
	// on the column / diagonal, -1 for none.
	vert := make([]int, n)
	diagA := make([]int, 2*n) // keyed by c-r+n-1: the NW-SE diagonal
	diagB := make([]int, 2*n) // keyed by c+r: the NE-SW diagonal
	sweep := func(down bool) {
		for i := range vert {
			vert[i] = -1
		}
		for i := range diagA {
			diagA[i], diagB[i] = -1, -1
		}
		for step := 0; step < n; step++ {
			r := step
			if !down {
				r = n - 1 - step
			}
			k := rowStart[r]
			for c := 0; c < n; c++ {
				v := s[r*n+c]
				a, b := c-r+n-1, c+r
				if v != terrain.NoData {
					vert[c], diagA[a], diagB[b] = r, r, r
					continue
				}
				if lr := vert[c]; lr >= 0 {
					add(k, float64(absInt(r-lr)), s[lr*n+c])
				}
				if lr := diagA[a]; lr >= 0 {
					d := lr - r // the diagonal c-r constant: column moves with the row
					add(k, math.Sqrt2*float64(absInt(d)), s[lr*n+c+d])
				}
				if lr := diagB[b]; lr >= 0 {
					d := r - lr // c+r constant
					add(k, math.Sqrt2*float64(absInt(d)), s[lr*n+c+d])
				}
				k++
			}
		}
	}
	sweep(true)
	sweep(false)

	for k, i := range voids {
		if sumW[k] == 0 {
			// No valid sample on any of the 8 lines: leave it for a second
			// round below.
			continue
		}
		s[i] = int16(math.Round(sumWV[k] / sumW[k]))
		filled++
	}
	if filled < len(voids) {
		// Rare: a void that sees no valid sample on its 8 lines (inside a
		// very large void). Repeat with the samples filled so far; each
		// round fills at least one more sample.
		more, _ := fillIDW8(s, n)
		filled += more
	}
	return filled, true
}

func absInt(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// fillError is the error of a fill on masked known samples, metres.
type fillError struct {
	cells              int
	rmse, maxAbs, bias float64 // bias: mean of (filled − true); negative reads low
	peakDeficit        float64 // mean over discs of (true disc maximum − filled disc maximum)
}

func (e fillError) String() string {
	return fmt.Sprintf("%d samples: RMSE %.1f m, max |error| %.0f m, bias %+.1f m, mean peak deficit %.1f m",
		e.cells, e.rmse, e.maxAbs, e.bias, e.peakDeficit)
}

// The fills TestFillError compares, in the order of measureFill's result.
var fillMethods = []struct {
	name string
	fill func([]int16, int) (int, bool)
}{
	{"membrane land-only (FillVoids)", packer.FillVoids},
	{"membrane with sea", packer.FillVoidsSeaPinned},
	{"old idw-8", fillIDW8},
}

// patchKind says where TestFillError centres its discs and which it keeps.
type patchKind int

const (
	randomInland  patchKind = iota // any centre; relief ≥ 150 m, no sea within 8 samples
	randomCoastal                  // any centre; ≥ 1/4 of the disc sea, land ≥ 40 m
	steepInland                    // top-decile-slope centre; no sea within 8 samples
	steepCoastal                   // top-decile-slope centre; sea touches the masked samples
	peakInland                     // local-maximum centre; no sea within 8 samples
	peakCoastal                    // local-maximum centre; sea touches the masked samples
)

// TestFillError measures the void fill on the real tile S23W044 (Rio):
// discs of known-good samples the size of real SRTM voids (radius 2 to 6
// samples: 13 to 113 samples) are masked as voids, filled, and compared
// with the truth, for the land-only membrane (FillVoids), the membrane
// with the sea border held at 0 m (the format-4 fill before it) and the
// old 8-direction inverse-distance fill (fillIDW8). Only land samples are
// masked, as SRTM voids lie on land.
//
// Two families. Random discs (any centre): inland with relief (disc
// maximum − minimum) of at least 150 m and no sea within 8 samples;
// coastal with at least a quarter of the disc over the sea (0 m) and land
// of at least 40 m. Void-like discs: SRTM voids are not random, they sit
// on steep ground (radar shadow and layover on peaks and cliffs), so the
// centre is a sample in the top decile of the tile's land slope or a local
// maximum (highest of its 7×7 window, above 50 m); inland with no sea
// within 8 samples, coastal with a sea sample touching the masked land
// (within one sample of the disc). 300 discs each, the seed printed (SEED=
// overrides). The bounds are the figures of the default seed plus a small
// margin, and on the coastal void-like discs a bias at least 5 m above the
// sea-pinned membrane's, checked for that seed (other seeds only print their figures;
// TestFillVoidsRealHoles checks any seed). The figures are in
// packer/doc.go.
func TestFillError(t *testing.T) {
	s, spd, err := packer.ReadHGT(rio)
	if err != nil {
		t.Fatal(err)
	}
	n := spd + 1
	seed := seedFromEnv(t)
	t.Logf("seed %d", seed)
	steep, peaks := voidLikeCentres(s, n)
	t.Logf("void-like centres: %d of top-decile slope, %d local maxima", len(steep), len(peaks))
	cases := []struct {
		name    string
		kind    patchKind
		maxRMSE float64 // FillVoids RMSE at most (default seed), metres
		minBias float64 // FillVoids bias at least (default seed), metres
		maxBias float64 // FillVoids bias at most (default seed), metres
		// higher: FillVoids's bias is at least 5 m above the sea-pinned
		// membrane's (default seed): the reason for the land-only border.
		higher bool
	}{
		{"random inland discs", randomInland, 37.5, -4.5, 0, false},
		{"random coastal discs", randomCoastal, 34.5, 13, 16, false},
		{"steep inland discs", steepInland, 39.5, -9.5, -6.5, false},
		{"steep coastal discs", steepCoastal, 42.5, -5, -1.5, true},
		{"peak inland discs", peakInland, 32.5, -14, -11, false},
		{"peak coastal discs", peakCoastal, 34, -16, -13, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewSource(seed))
			centres := steep
			if tc.kind == peakInland || tc.kind == peakCoastal {
				centres = peaks
			}
			errs := measureFill(t, s, n, tc.kind, centres, rng, 300)
			for k, m := range fillMethods {
				t.Logf("%-32s %v", m.name+":", errs[k])
			}
			got := errs[0]
			if seed == defaultSeed && (got.rmse > tc.maxRMSE || got.bias < tc.minBias || got.bias > tc.maxBias) {
				t.Errorf("RMSE %.1f m, bias %+.1f m: outside the documented ≤ %.1f m, %+.1f … %+.1f m",
					got.rmse, got.bias, tc.maxRMSE, tc.minBias, tc.maxBias)
			}
			if seed == defaultSeed && tc.higher && got.bias < errs[1].bias+5 {
				t.Errorf("bias %+.1f m, sea-pinned membrane %+.1f m: the land-only border should read at least 5 m higher", got.bias, errs[1].bias)
			}
		})
	}
}

// voidLikeCentres returns the samples of the n×n tile s (row-major, in
// order) where SRTM voids form, among land samples (above 0 m, 3 or more
// samples from the edge, no void in their 7×7 window): steep, those whose
// slope (central differences, metres per sample step) is in the top decile
// of the tile's land; peaks, those that are the highest sample of their
// 7×7 window and above 50 m.
func voidLikeCentres(s []int16, n int) (steep, peaks []int) {
	slope := make([]float64, len(s))
	var land []float64
	ok := make([]bool, len(s))
	for r := 3; r < n-3; r++ {
		for c := 3; c < n-3; c++ {
			i := r*n + c
			if s[i] <= 0 {
				continue
			}
			clean := true
			for dr := -3; dr <= 3 && clean; dr++ {
				for dc := -3; dc <= 3; dc++ {
					if s[i+dr*n+dc] == terrain.NoData {
						clean = false
						break
					}
				}
			}
			if !clean {
				continue
			}
			ok[i] = true
			gx := float64(s[i+1]-s[i-1]) / 2
			gy := float64(s[i+n]-s[i-n]) / 2
			slope[i] = math.Hypot(gx, gy)
			land = append(land, slope[i])
		}
	}
	slices.Sort(land)
	p90 := land[len(land)*9/10]
	for i, good := range ok {
		if !good {
			continue
		}
		if slope[i] >= p90 {
			steep = append(steep, i)
		}
		peak := s[i] > 50
		for dr := -3; dr <= 3 && peak; dr++ {
			for dc := -3; dc <= 3; dc++ {
				if (dr != 0 || dc != 0) && s[i+dr*n+dc] >= s[i] {
					peak = false
					break
				}
			}
		}
		if peak {
			peaks = append(peaks, i)
		}
	}
	return steep, peaks
}

// measureFill masks count discs of the given kind (see TestFillError;
// void-like kinds are centred on centres) and returns the error of each of
// fillMethods over all masked samples.
func measureFill(t *testing.T, s []int16, n int, kind patchKind, centres []int, rng *rand.Rand, count int) []fillError {
	t.Helper()
	type acc struct {
		sum, sum2, maxAbs, deficit float64
		cells                      int
	}
	accs := make([]acc, len(fillMethods))
	const margin = 12
	tries := 0
	for discs := 0; discs < count; {
		tries++
		if tries > 2000000 {
			t.Fatalf("found only %d discs", discs)
		}
		rad := 2 + rng.Intn(5)
		var r0, c0 int
		if kind >= steepInland {
			k := centres[rng.Intn(len(centres))]
			r0, c0 = k/n, k%n
			if r0 < 20 || r0 >= n-20 || c0 < 20 || c0 >= n-20 {
				continue
			}
		} else {
			r0, c0 = 20+rng.Intn(n-40), 20+rng.Intn(n-40) // the window of radius rad+margin stays in the tile
		}
		// The disc and a ring of 8 samples around it: no real void.
		clean, sea, seaTouch, lo, hi, land := true, 0, false, int16(math.MaxInt16), int16(math.MinInt16), 0
		coastal := kind == randomCoastal || kind == steepCoastal || kind == peakCoastal
		var disc []int
		for r := r0 - rad - 8; r <= r0+rad+8 && clean; r++ {
			for c := c0 - rad - 8; c <= c0+rad+8; c++ {
				v := s[r*n+c]
				if v == terrain.NoData {
					clean = false
					break
				}
				dr, dc := r-r0, c-c0
				d2 := dr*dr + dc*dc
				if v <= 0 && d2 <= (rad+1)*(rad+1) {
					seaTouch = true
				}
				if d2 <= rad*rad {
					if v <= 0 {
						sea++
						continue
					}
					disc = append(disc, r*n+c)
					lo, hi = min(lo, v), max(hi, v)
					land++
				} else if v <= 0 && !coastal {
					clean = false
					break
				}
			}
		}
		if !clean || land == 0 {
			continue
		}
		switch kind {
		case randomInland:
			if sea > 0 || hi-lo < 150 {
				continue
			}
		case randomCoastal:
			if sea*4 < land+sea || hi < 40 {
				continue
			}
		case steepCoastal, peakCoastal:
			if !seaTouch {
				continue
			}
		}
		discs++
		for k, m := range fillMethods {
			// Only the neighbourhood matters (the ring of 8 samples around
			// the disc is measured): fill a window to keep it fast.
			w := 2*(rad+margin) + 1
			win := make([]int16, w*w)
			br, bc := r0-rad-margin, c0-rad-margin
			for r := 0; r < w; r++ {
				copy(win[r*w:(r+1)*w], s[(br+r)*n+bc:(br+r)*n+bc+w])
			}
			for _, i := range disc {
				win[(i/n-br)*w+(i%n-bc)] = terrain.NoData
			}
			if _, ok := m.fill(win, w); !ok {
				t.Fatal("fill not ok")
			}
			a := &accs[k]
			var fillMax int16 = math.MinInt16
			for _, i := range disc {
				got := win[(i/n-br)*w+(i%n-bc)]
				e := float64(got) - float64(s[i])
				a.sum += e
				a.sum2 += e * e
				a.maxAbs = max(a.maxAbs, math.Abs(e))
				a.cells++
				fillMax = max(fillMax, got)
			}
			a.deficit += float64(hi) - float64(fillMax)
		}
	}
	out := make([]fillError, len(accs))
	for k, a := range accs {
		out[k] = fillError{cells: a.cells, rmse: math.Sqrt(a.sum2 / float64(a.cells)), maxAbs: a.maxAbs,
			bias: a.sum / float64(a.cells), peakDeficit: a.deficit / float64(count)}
	}
	return out
}
