package packer

import (
	"math"
	"slices"

	"linkplan/terrain-packs/terrain"
)

// FillVoids replaces every void (terrain.NoData) of the n×n tile s, in
// place, by a membrane (Laplace) fill held by the land border only: the
// voids of each 4-connected void region take the values of the smooth
// surface (each filled sample the mean of its non-sea 4-neighbours) that
// meets the region's measured land border samples. Sea border samples
// (0 m or below, SRTM's sea) are a no-flux (Neumann) boundary, like the
// tile's edge: they neither pull the void toward sea level nor hold it. A
// region with no land border at all (only sea around it) is filled from
// its sea border (about 0 m). SRTM voids lie on steep ground (radar shadow
// and layover on peaks and cliffs) where the truth is above the border, so
// a sea-pinned fill reads coastal peaks near 0 m, the unsafe direction for
// link planning; the measurement behind this choice is in doc.go. It
// returns the number of samples filled; ok is false when the tile has no
// valid sample at all (nothing is changed then).
//
// The fill is deterministic (regions in row-major order of their first
// sample, successive over-relaxation in row-major order until no sample
// moves by more than 0.005 m). Cost: about O(region samples × region
// width) per region; memory: a few ints per void.
func FillVoids(s []int16, n int) (filled int, ok bool) {
	return fillVoids(s, n, false)
}

// isSea reports whether the measured sample v (metres) is SRTM sea: 0 m
// or below (SRTM writes 0 m over the sea; a few shore samples are below).
func isSea(v int16) bool { return v <= 0 }

// fillVoids is FillVoids; seaPinned keeps the sea border samples as fixed
// (Dirichlet) border like land, the membrane fill of commit 017a0fa that
// TestFillError measures against.
func fillVoids(s []int16, n int, seaPinned bool) (filled int, ok bool) {
	nv := 0
	for _, v := range s {
		if v == terrain.NoData {
			nv++
		}
	}
	if nv == 0 {
		return 0, true
	}
	if nv == len(s) {
		return 0, false
	}
	// region[i] is 1 + the index of the region holding void i, 0 for
	// samples that are not voids or not yet labelled.
	region := make([]int32, len(s))
	var cells, stack []int
	id := int32(0)
	for i, v := range s {
		if v != terrain.NoData || region[i] != 0 {
			continue
		}
		id++
		cells, stack = cells[:0], append(stack[:0], i)
		region[i] = id
		for len(stack) > 0 {
			k := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			cells = append(cells, k)
			for _, j := range neighbours4(k, n) {
				if j >= 0 && s[j] == terrain.NoData && region[j] == 0 {
					region[j] = id
					stack = append(stack, j)
				}
			}
		}
		slices.Sort(cells)
		fillRegion(s, n, cells, region, id, seaPinned)
		filled += len(cells)
	}
	return filled, true
}

// neighbours4 returns the north, south, west and east neighbours of
// sample k of an n×n tile, -1 outside the tile.
func neighbours4(k, n int) [4]int {
	r, c := k/n, k%n
	out := [4]int{-1, -1, -1, -1}
	if r > 0 {
		out[0] = k - n
	}
	if r < n-1 {
		out[1] = k + n
	}
	if c > 0 {
		out[2] = k - 1
	}
	if c < n-1 {
		out[3] = k + 1
	}
	return out
}

// fillRegion fills the void samples cells (row-major order) of region id
// from its land border (sea border samples are no-flux), or from its whole
// border when it has no land border or seaPinned is set.
func fillRegion(s []int16, n int, cells []int, region []int32, id int32, seaPinned bool) {
	// The border: the measured 4-neighbours of the region.
	minR, maxR, minC, maxC := n, 0, n, 0
	for _, k := range cells {
		r, c := k/n, k%n
		minR, maxR, minC, maxC = min(minR, r), max(maxR, r), min(minC, c), max(maxC, c)
	}
	landBorder := false
	for _, k := range cells {
		for _, j := range neighbours4(k, n) {
			if j >= 0 && region[j] != id && s[j] != terrain.NoData && !isSea(s[j]) {
				landBorder = true
			}
		}
	}
	// uses reports whether a measured border sample holds the membrane
	// (Dirichlet); the others (sea, when there is land) are no-flux.
	uses := func(v int16) bool { return v != terrain.NoData && (seaPinned || !landBorder || !isSea(v)) }
	// Start from the mean of the border, then relax.
	sum, cnt := 0.0, 0
	for _, k := range cells {
		for _, j := range neighbours4(k, n) {
			if j >= 0 && region[j] != id && uses(s[j]) {
				sum += float64(s[j])
				cnt++
			}
		}
	}
	start := sum / float64(cnt)
	pos := make(map[int]int, len(cells))
	for x, k := range cells {
		pos[k] = x
	}
	// For each cell: its neighbours in the region (as positions) and the
	// sum and count of its border neighbours, which do not change.
	type node struct {
		in        [4]int
		nin       int
		fixed     float64
		nfixed    int
		neighbour int // nin + nfixed
	}
	nodes := make([]node, len(cells))
	x := make([]float64, len(cells))
	for q, k := range cells {
		nd := &nodes[q]
		for _, j := range neighbours4(k, n) {
			switch {
			case j < 0:
			case region[j] == id:
				nd.in[nd.nin] = pos[j]
				nd.nin++
			case uses(s[j]):
				nd.fixed += float64(s[j])
				nd.nfixed++
			}
		}
		nd.neighbour = nd.nin + nd.nfixed
		x[q] = start
	}
	// Successive over-relaxation with the optimal factor of a square of
	// the region's extent.
	l := float64(max(maxR-minR, maxC-minC) + 2)
	omega := 2 / (1 + math.Sin(math.Pi/l))
	maxIter := 100 + 50*int(l)
	for it := 0; it < maxIter; it++ {
		worst := 0.0
		for q := range nodes {
			nd := &nodes[q]
			if nd.neighbour == 0 {
				continue
			}
			v := nd.fixed
			for _, p := range nd.in[:nd.nin] {
				v += x[p]
			}
			d := omega * (v/float64(nd.neighbour) - x[q])
			x[q] += d
			worst = max(worst, math.Abs(d))
		}
		if worst < 0.005 {
			break
		}
	}
	for q, k := range cells {
		s[k] = int16(math.Round(math.Min(math.Max(x[q], -32767), 32767)))
	}
}

// Resample maps an nSrc×nSrc tile onto an nDst×nDst tile of the same
// one-degree extent by bilinear interpolation. When (nSrc-1) is a multiple
// of (nDst-1) every output sample falls on a source sample and is copied
// exactly (1″ → 3″ is plain decimation). NoData propagates: an output
// sample whose weighted neighbours include NoData is NoData.
func Resample(src []int16, nSrc, nDst int) []int16 {
	dst := make([]int16, nDst*nDst)
	scale := float64(nSrc-1) / float64(nDst-1)
	for r := 0; r < nDst; r++ {
		y := float64(r) * scale
		r0 := min(int(y), nSrc-2)
		fy := y - float64(r0)
		for c := 0; c < nDst; c++ {
			x := float64(c) * scale
			c0 := min(int(x), nSrc-2)
			fx := x - float64(c0)
			i := r0*nSrc + c0
			vs := [4]int16{src[i], src[i+1], src[i+nSrc], src[i+nSrc+1]}
			ws := [4]float64{(1 - fx) * (1 - fy), fx * (1 - fy), (1 - fx) * fy, fx * fy}
			h, bad := 0.0, false
			for j := range vs {
				if ws[j] == 0 {
					continue
				}
				if vs[j] == terrain.NoData {
					bad = true
					break
				}
				h += ws[j] * float64(vs[j])
			}
			if bad {
				dst[r*nDst+c] = terrain.NoData
			} else {
				dst[r*nDst+c] = int16(math.Round(h))
			}
		}
	}
	return dst
}
