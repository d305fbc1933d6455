package itm

import "math"

// The receiver-side and transmitter-side distances of findHorizons are
// sums of the spacing taken one step at a time (d − xi − xi − …,
// 0 + xi + xi + …), each step rounded. ITM truncates distances derived
// from them to whole profile intervals, so the sweep must reproduce them
// bit for bit, but without a loop as long as the profile.
//
// Within a binade [lo, 2·lo) every double is a whole number of its ulp u,
// so v ± xi = (V ± X)·u with V whole and X = xi/u fixed: the fraction
// rounded off is the same at every step and every step moves v by the
// same amount, unless that fraction is exactly one half (round-half-even
// then depends on V's parity). Runs of identical steps are taken at once;
// ties, the steps next to a binade boundary and anything unusual (xi not
// positive, subnormals, infinities) go one step at a time.

// binade returns the lower bound and the ulp of the binade of v (v a
// positive normal double).
func binade(v float64) (lo, u float64) {
	lo = math.Float64frombits(math.Float64bits(v) & 0x7ff0000000000000)
	return lo, lo * 0x1p-52
}

// subtractRepeated is d with xi subtracted k times, one rounded step at a
// time, bit for bit.
func subtractRepeated(d, xi float64, k int) float64 {
	v := d
	for k > 0 {
		if !(xi > 0) || !(v > 2*xi) || v < 0x1p-1000 || math.IsInf(v, 0) {
			v -= xi
			k--
			continue
		}
		next := v - xi
		lo, u := binade(v)
		err := (v - next) - xi // the step's rounding error, exactly (Fast2Sum)
		if next < lo || err == u/2 || err == -u/2 {
			v = next
			k--
			continue
		}
		step := v - next // exact, a whole number of u
		// steps after which the exact difference is still ≥ lo + u
		m := min(max(int((v-lo-xi-u)/step), 1), k)
		v -= float64(m) * step // exact: a whole number of u within the binade
		k -= m
	}
	return v
}

// addRepeated is 0 with xi added k times, one rounded step at a time,
// bit for bit.
func addRepeated(xi float64, k int) float64 {
	v := 0.0
	for k > 0 {
		if !(xi > 0) || !(v >= xi) || v < 0x1p-1000 || math.IsInf(v, 0) || v > 0x1p1000 {
			v += xi
			k--
			continue
		}
		next := v + xi
		lo, u := binade(v)
		hi := 2 * lo
		err := (next - v) - xi // the step's rounding error, exactly (Fast2Sum)
		if next >= hi || err == u/2 || err == -u/2 {
			v = next
			k--
			continue
		}
		step := next - v
		// steps after which the exact sum is still ≤ hi − u
		m := min(max(int((hi-v-xi-u)/step), 1), k)
		v += float64(m) * step
		k -= m
	}
	return v
}
