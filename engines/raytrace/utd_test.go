package raytrace_test

import (
	"math"
	"math/cmplx"
	"testing"

	"linkplan/engines/radio"
	"linkplan/engines/raytrace"
)

// sommerfeldG is (e^{jπ/4}/√π)·∫_{−∞}^{x} e^{−jt²} dt, the Fresnel-integral
// factor of Sommerfeld's exact half-plane solution (Born and Wolf,
// Principles of Optics, §11.5), e^{jωt} convention.
func sommerfeldG(x float64) complex128 {
	c, s := radio.FresnelIntegrals(x * math.Sqrt(2/math.Pi))
	integral := complex(math.Sqrt(math.Pi)/2, 0)*cmplx.Exp(complex(0, -math.Pi/4)) +
		complex(math.Sqrt(math.Pi/2), 0)*complex(c, -s)
	return cmplx.Exp(complex(0, math.Pi/4)) / complex(math.Sqrt(math.Pi), 0) * integral
}

// halfPlaneExact is the exact total field of a perfectly conducting
// half-plane (face at φ = 0) lit by a unit plane wave from direction phiP:
// soft (E parallel to the edge) when soft, hard otherwise.
func halfPlaneExact(kr, phi, phiP float64, soft bool) complex128 {
	u := func(psi float64) complex128 {
		return cmplx.Exp(complex(0, kr*math.Cos(psi))) * sommerfeldG(math.Sqrt(2*kr)*math.Cos(psi/2))
	}
	if soft {
		return u(phi-phiP) - u(phi+phiP)
	}
	return u(phi-phiP) + u(phi+phiP)
}

// besselJ is J_ν(x) by its power series, for the wedge eigenfunction
// reference (accurate to better than 1e-8 for x ≤ 20).
func besselJ(nu, x float64) float64 {
	if x == 0 {
		if nu == 0 {
			return 1
		}
		return 0
	}
	lx := math.Log(x / 2)
	sum := 0.0
	for k := 0; k < 200; k++ {
		lg1, _ := math.Lgamma(float64(k) + 1)
		lg2, _ := math.Lgamma(float64(k) + nu + 1)
		term := math.Exp((2*float64(k)+nu)*lx - lg1 - lg2)
		if k%2 == 1 {
			term = -term
		}
		sum += term
		if k > int(x) && math.Abs(term) < 1e-18 {
			break
		}
	}
	return sum
}

// wedgeExact is the exact total field of a perfectly conducting wedge
// with exterior angle nπ lit by a unit plane wave from phiP (eigenfunction
// series, e.g. Balanis, Advanced Engineering Electromagnetics, §13.3):
//
//	soft: u = (4/n)·Σ_{m≥1} e^{jmπ/2n}·J_{m/n}(kρ)·sin(mφ/n)·sin(mφ'/n)
//	hard: u = (2/n)·Σ_{m≥0} ε_m·e^{jmπ/2n}·J_{m/n}(kρ)·cos(mφ/n)·cos(mφ'/n)
func wedgeExact(n, kr, phi, phiP float64, soft bool) complex128 {
	var u complex128
	mMax := int(n*(kr+40)) + 10
	for m := 0; m <= mMax; m++ {
		v := float64(m) / n
		j := besselJ(v, kr)
		ph := cmplx.Exp(complex(0, float64(m)*math.Pi/(2*n)))
		if soft {
			if m == 0 {
				continue
			}
			u += complex(4/n*j*math.Sin(v*phi)*math.Sin(v*phiP), 0) * ph
		} else {
			eps := 2.0
			if m == 0 {
				eps = 1
			}
			u += complex(2/n*eps*j*math.Cos(v*phi)*math.Cos(v*phiP), 0) * ph
		}
	}
	return u
}

// utdTotal is the UTD total field around a wedge for a unit plane wave:
// incident and reflected geometrical optics where they exist, plus the
// diffracted field D·e^{−jkρ}/√ρ (L = ρ for a plane wave).
func utdTotal(w raytrace.Wedge, kr, phi, phiP float64, soft bool) complex128 {
	const k = 1.0 // ρ = kr metres
	rho := kr / k
	var u complex128
	if phi < math.Pi+phiP { // incident shadow boundary at π + φ'
		u += cmplx.Exp(complex(0, kr*math.Cos(phi-phiP)))
	}
	r := complex(1, 0)
	if soft {
		r = -1
	}
	if phi < math.Pi-phiP { // face 0 reflection boundary
		u += r * cmplx.Exp(complex(0, kr*math.Cos(phi+phiP)))
	}
	if phi > (2*w.N-1)*math.Pi-phiP { // face n reflection boundary
		u += r * cmplx.Exp(complex(0, kr*math.Cos(2*w.N*math.Pi-phi-phiP)))
	}
	ds, dh := raytrace.WedgeDiffraction(w, phi, phiP, rho, k, 1)
	d := dh
	if soft {
		d = ds
	}
	return u + d*cmplx.Exp(complex(0, -kr))/complex(math.Sqrt(rho), 0)
}

func db(c complex128) float64 { return 20 * math.Log10(cmplx.Abs(c)) }

// TestUTDHalfPlaneAgainstSommerfeld checks the UTD coefficients of a
// perfectly conducting half-plane (n = 2, a thin screen) against
// Sommerfeld's exact Fresnel-integral solution, both polarisations, at
// kρ = 10 and 30 all around the edge: within 0.5 dB wherever the exact
// field is above −20 dB (below it a null makes dB meaningless).
func TestUTDHalfPlaneAgainstSommerfeld(t *testing.T) {
	t.Parallel()
	w := raytrace.Wedge{N: 2, PEC: true}
	for _, kr := range []float64{10, 30} {
		for _, phiPDeg := range []float64{30, 60, 90, 135} {
			for _, soft := range []bool{true, false} {
				worst, worstPhi := 0.0, 0.0
				for phiDeg := 0.5; phiDeg < 360; phiDeg += 1 {
					phi, phiP := phiDeg*math.Pi/180, phiPDeg*math.Pi/180
					ex := halfPlaneExact(kr, phi, phiP, soft)
					if db(ex) < -20 {
						continue
					}
					if e := math.Abs(db(utdTotal(w, kr, phi, phiP, soft)) - db(ex)); e > worst {
						worst, worstPhi = e, phiDeg
					}
				}
				t.Logf("half-plane kρ=%g φ'=%g° soft=%v: max |UTD − Sommerfeld| = %.3f dB (at φ=%g°)", kr, phiPDeg, soft, worst, worstPhi)
				if worst > 0.5 {
					t.Errorf("half-plane kρ=%g φ'=%g° soft=%v: UTD differs from the exact solution by %.3f dB at φ=%g°", kr, phiPDeg, soft, worst, worstPhi)
				}
			}
		}
	}
}

// TestUTDWedgeAgainstEigenfunctions checks a perfectly conducting
// right-angled wedge (n = 1.5, a building corner) against the exact
// eigenfunction series, and the series itself against Sommerfeld's
// half-plane at n = 2.
func TestUTDWedgeAgainstEigenfunctions(t *testing.T) {
	t.Parallel()
	for _, soft := range []bool{true, false} {
		if d := cmplx.Abs(wedgeExact(2, 10, 4, 1, soft) - halfPlaneExact(10, 4, 1, soft)); d > 1e-6 {
			t.Fatalf("eigenfunction series at n=2 differs from Sommerfeld by %g (soft=%v)", d, soft)
		}
	}
	w := raytrace.Wedge{N: 1.5, PEC: true}
	const kr = 12
	for _, phiPDeg := range []float64{30, 60, 100} {
		for _, soft := range []bool{true, false} {
			worst, worstPhi := 0.0, 0.0
			for phiDeg := 0.5; phiDeg < 270; phiDeg += 1 {
				phi, phiP := phiDeg*math.Pi/180, phiPDeg*math.Pi/180
				ex := wedgeExact(1.5, kr, phi, phiP, soft)
				if db(ex) < -20 {
					continue
				}
				if e := math.Abs(db(utdTotal(w, kr, phi, phiP, soft)) - db(ex)); e > worst {
					worst, worstPhi = e, phiDeg
				}
			}
			t.Logf("90° wedge kρ=%d φ'=%g° soft=%v: max |UTD − exact| = %.3f dB (at φ=%g°)", kr, phiPDeg, soft, worst, worstPhi)
			if worst > 0.5 {
				t.Errorf("90° wedge φ'=%g° soft=%v: UTD differs from the exact solution by %.3f dB at φ=%g°", phiPDeg, soft, worst, worstPhi)
			}
		}
	}
}
