package learn

import (
	"math"
	"slices"
)

// binThresholds returns the ascending, distinct upper edges of the bins of
// one feature column (at most maxBins-1 edges, so at most maxBins bins).
// A value x falls in bin b = the number of edges strictly below x, so bin b
// holds edges[b-1] < x <= edges[b].
//
// The edges follow scikit-learn's HistGradientBoostingRegressor: with at
// most maxBins distinct values, the midpoints between consecutive distinct
// values; otherwise the quantiles at 100·i/maxBins %, i = 1…maxBins-1, each
// taken as the midpoint of the two order statistics around the position
// i/maxBins·(n-1) (NumPy's "midpoint" percentile). Repeated quantiles (a
// value that fills several bins) are kept once.
func binThresholds(col []float64, maxBins int) []float64 {
	s := slices.Clone(col)
	slices.Sort(s)
	distinct := s[:0:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			distinct = append(distinct, v)
		}
	}
	var edges []float64
	if len(distinct) <= maxBins {
		edges = make([]float64, 0, len(distinct))
		for i := 1; i < len(distinct); i++ {
			edges = append(edges, (distinct[i-1]+distinct[i])*0.5)
		}
	} else {
		n := len(s)
		edges = make([]float64, 0, maxBins-1)
		for i := 1; i < maxBins; i++ {
			pos := float64(i) / float64(maxBins) * float64(n-1)
			lo := int(math.Floor(pos))
			hi := int(math.Ceil(pos))
			edges = append(edges, (s[lo]+s[hi])*0.5)
		}
	}
	out := edges[:0]
	for i, e := range edges {
		if i == 0 || e != edges[i-1] {
			out = append(out, e)
		}
	}
	return slices.Clip(out)
}

// binOf returns the bin of x among ascending edges: the number of edges
// strictly below x.
func binOf(edges []float64, x float64) uint8 {
	lo, hi := 0, len(edges)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if x <= edges[mid] {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return uint8(lo)
}
