package packer

import (
	"math"

	"linkplan/terrain-packs/terrain"
)

// FillVoids replaces every void (terrain.NoData) of the n×n tile s, in
// place, by the inverse-distance-squared mean of the nearest valid sample
// in each of the 8 grid directions (N, S, E, W and the diagonals; distance
// in sample steps, √2 per diagonal step). Only original valid samples take
// part, so the result does not depend on the order of filling. It returns
// the number of samples filled; ok is false when the tile has no valid
// sample at all (nothing is changed then).
//
// Cost: two row-major sweeps of the tile plus one pass per row that holds
// voids; memory: 16 bytes per void plus 4 arrays of about 2n ints.
func FillVoids(s []int16, n int) (filled int, ok bool) {
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
					add(k, float64(abs(r-lr)), s[lr*n+c])
				}
				if lr := diagA[a]; lr >= 0 {
					d := lr - r // the diagonal c-r constant: column moves with the row
					add(k, math.Sqrt2*float64(abs(d)), s[lr*n+c+d])
				}
				if lr := diagB[b]; lr >= 0 {
					d := r - lr // c+r constant
					add(k, math.Sqrt2*float64(abs(d)), s[lr*n+c+d])
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
		more, _ := FillVoids(s, n)
		filled += more
	}
	return filled, true
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
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
