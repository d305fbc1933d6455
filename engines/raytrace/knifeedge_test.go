package raytrace_test

import (
	"math"
	"math/cmplx"
	"testing"

	"linkplan/engines/radio"
	"linkplan/engines/raytrace"
)

// screenField is the UTD total field behind (or in front of) a thin
// screen, relative to free space: transmitter d1 metres before the screen
// and hT metres below its edge, receiver d2 metres behind it and hR
// metres below the edge; the screen is the half-plane below the edge.
func screenField(w raytrace.Wedge, d1, d2, hT, hR, lambda float64, soft bool) complex128 {
	k := 2 * math.Pi / lambda
	// edge at the origin; face 0 is the transmitter's side: t0 = (0,−1)
	// along the screen, n0 = (−1, 0) toward the transmitter
	ang := func(x, y float64) float64 {
		phi := math.Atan2(-x, -y) // (v·n0, v·t0) with v = (x, y)
		if phi < 0 {
			phi += 2 * math.Pi
		}
		return phi
	}
	phiP := ang(-d1, -hT)
	phi := ang(d2, -hR)
	s1 := math.Hypot(d1, hT)
	s2 := math.Hypot(d2, hR)
	d := math.Hypot(d1+d2, hT-hR)
	var u complex128
	// the direct ray exists when it passes above the edge
	yLine := -hT + (hT-hR)*d1/(d1+d2)
	if yLine > 0 {
		u += cmplx.Exp(complex(0, -k*d)) / complex(d, 0)
	}
	ds, dh := raytrace.WedgeDiffraction(w, phi, phiP, s1*s2/(s1+s2), k, 1)
	dc := dh
	if soft {
		dc = ds
	}
	u += cmplx.Exp(complex(0, -k*s1)) / complex(s1, 0) * dc * complex(math.Sqrt(s1/(s2*(s1+s2))), 0) * cmplx.Exp(complex(0, -k*s2))
	return u / (cmplx.Exp(complex(0, -k*d)) / complex(d, 0))
}

// TestThinScreenKnifeEdgeLimit: a thin screen (UTD half-plane, perfectly
// conducting and with concrete's P.2040 properties by Luebbers'
// heuristic) in the paraxial geometry of P.526's knife edge agrees with
// J(ν) (P.526 eq. (26), exact Fresnel integrals) within 0.5 dB for
// −2 ≤ ν ≤ 3, both polarisations.
func TestThinScreenKnifeEdgeLimit(t *testing.T) {
	t.Parallel()
	const d1, d2 = 1000.0, 1000.0
	for _, f := range []float64{900, 3500} {
		lambda := radio.SpeedOfLightMS / (f * 1e6)
		concrete := raytrace.MaterialConcrete.Permittivity(f / 1000)
		for _, w := range []struct {
			name string
			w    raytrace.Wedge
		}{{"PEC", raytrace.Wedge{N: 2, PEC: true}}, {"concrete", raytrace.Wedge{N: 2, Eta0: concrete, EtaN: concrete}}} {
			for _, soft := range []bool{true, false} {
				worst, worstNu := 0.0, 0.0
				for nu := -2.0; nu <= 3.0001; nu += 0.05 {
					// edge h above the line between antennas at equal heights
					h := nu / math.Sqrt(2/lambda*(1/d1+1/d2))
					got := -20 * math.Log10(cmplx.Abs(screenField(w.w, d1, d2, h, h, lambda, soft)))
					if e := math.Abs(got - radio.KnifeEdgeLossDB(nu)); e > worst {
						worst, worstNu = e, nu
					}
				}
				t.Logf("thin screen %-8s %4.0f MHz soft=%-5v d1=d2=1 km, −2 ≤ ν ≤ 3: max |UTD − J(ν)| = %.3f dB (at ν=%.2f)", w.name, f, soft, worst, worstNu)
				if worst > 0.5 {
					t.Errorf("thin screen %s %g MHz soft=%v: UTD differs from J(ν) by %.3f dB at ν=%.2f", w.name, f, soft, worst, worstNu)
				}
			}
		}
	}
}
