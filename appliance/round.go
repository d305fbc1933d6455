package appliance

import "math"

// Round rounds x to the given number of decimals for the wire (3 for dB,
// dBm, metres and bearings, 6 for degrees of latitude and longitude). It
// never returns -0 (a value that rounds to zero is +0) and never turns a
// finite value into an infinity: a value too large to hold a digit at that
// decimal (beyond 2^53 units of it, e.g. 1e308) is returned unchanged, where
// math.Round(x*1e6)/1e6 would overflow to +Inf, which JSON cannot encode
// (issue 20). NaN and infinities are returned as they are.
func Round(x float64, decimals int) float64 {
	scale := math.Pow10(decimals)
	if math.Abs(x)*scale >= 1<<53 { // no fraction left to round (and no overflow)
		return x
	}
	v := math.Round(x*scale) / scale
	if v == 0 {
		return 0 // +0: math.Round keeps the sign of a small negative value
	}
	return v
}
