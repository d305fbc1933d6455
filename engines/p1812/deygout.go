package p1812

import "math"

// DiffractionMethod selects the terrain diffraction model of Predict.
type DiffractionMethod int

const (
	// DeltaBullingtonMethod is the delta-Bullington model of P.1812-8 §4.3
	// (the Recommendation's method, the default).
	DeltaBullingtonMethod DiffractionMethod = iota
	// DeygoutMethod replaces the whole diffraction loss Ld (for both the
	// median and the β0 effective Earth radius) by the three-edge Deygout
	// multiple knife-edge construction (see Deygout). It is not part of
	// P.1812-8.
	DeygoutMethod
)

// String returns "delta-bullington" or "deygout".
func (m DiffractionMethod) String() string {
	switch m {
	case DeltaBullingtonMethod:
		return "delta-bullington"
	case DeygoutMethod:
		return "deygout"
	}
	return "unknown"
}

// Deygout returns the multiple knife-edge diffraction loss of the Deygout
// construction limited to three edges, dB, for the profile in.DKm/in.HM, the
// antenna heights in.HtsM/in.HrsM, the effective Earth radius in.ApKm and
// in.FreqGHz (in.CMps as for the other sub-models; the smooth-surface,
// polarization and sea-fraction fields are not used).
//
// Every intermediate point is raised by the Earth bulge 500·di·(d−di)/ap
// (metres, km). The main edge p is the point of largest ν over the whole
// path; the subsidiary edges t and r are the points of largest ν between the
// transmitter and p and between p and the receiver, each ν taken against the
// straight line joining the ends of its sub-path. The loss is
//
//	L = J(νp) + T·[J(νt) + J(νr) + C],  T = 1 − exp(−J(νp)/6),  C = 10 + 0.04·d
//
// with J of KnifeEdgeJ and d the path length, km: the ITU-R P.526 knife-edge
// loss with the empirical three-edge correction of the Deygout-based
// diffraction method of earlier ITU-R P.452 editions. It is 0 when
// J(νp) = 0. The subsidiary edges get no correction of their own (no
// further recursion).
func Deygout(in DiffractionInput) float64 {
	return deygout(in.DKm, in.HM, nil, in.HtsM, in.HrsM, in.ApKm, in.wavelengthM())
}

// deygout is Deygout for point heights h[i] + rr[i] (rr may be nil).
func deygout(d, h, rr []float64, hts, hrs, ap, lam float64) float64 {
	n := len(d)
	if n < 3 {
		return 0
	}
	dtot := d[n-1]
	ce := 500 / ap
	y := func(i int) float64 {
		switch i {
		case 0:
			return hts
		case n - 1:
			return hrs
		}
		g := h[i]
		if rr != nil {
			g += rr[i]
		}
		return g + ce*d[i]*(dtot-d[i])
	}
	// maxNu returns the largest ν over the points strictly between a and b
	// and its index (-1 when there is none).
	maxNu := func(a, b int) (float64, int) {
		best, at := math.Inf(-1), -1
		da, db := d[a], d[b]
		ya, yb := y(a), y(b)
		span := db - da
		for i := a + 1; i < b; i++ {
			di := d[i]
			clr := y(i) - (ya*(db-di)+yb*(di-da))/span
			nu := clr * math.Sqrt(0.002*span/(lam*(di-da)*(db-di)))
			if nu > best {
				best, at = nu, i
			}
		}
		return best, at
	}
	nup, p := maxNu(0, n-1)
	jp := KnifeEdgeJ(nup)
	if jp == 0 {
		return 0
	}
	var jt, jr float64
	if nut, t := maxNu(0, p); t >= 0 {
		jt = KnifeEdgeJ(nut)
	}
	if nur, r := maxNu(p, n-1); r >= 0 {
		jr = KnifeEdgeJ(nur)
	}
	tt := 1 - math.Exp(-jp/6)
	return jp + tt*(jt+jr+10+0.04*dtot)
}
