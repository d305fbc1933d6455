package raytrace

import (
	"math"
	"math/cmplx"

	"linkplan/engines/radio"
)

// TransitionF returns the UTD transition function of Kouyoumjian and
// Pathak (1974),
//
//	F(X) = 2j·√X·e^{jX}·∫_{√X}^{∞} e^{−jτ²} dτ,
//
// for X ≥ 0, evaluated through the Fresnel integrals of engines/radio:
// ∫_a^∞ e^{−jτ²}dτ = √(π/2)·[(½ − C(ν)) − j(½ − S(ν))], ν = a·√(2/π).
// F(0) = 0 and F → 1 as X → ∞.
func TransitionF(x float64) complex128 {
	if !(x > 0) {
		return 0
	}
	if x > 1e7 {
		return 1 + complex(0, 0.5/x)
	}
	a := math.Sqrt(x)
	c, s := radio.FresnelIntegrals(a * math.Sqrt(2/math.Pi))
	integral := complex(math.Sqrt(math.Pi/2), 0) * complex(0.5-c, -(0.5-s))
	return complex(0, 2*a) * cmplx.Exp(complex(0, x)) * integral
}

// Wedge describes the faces of a diffracting wedge for WedgeDiffraction.
// The exterior (free-space) angle of the wedge is N·π, 1 < N ≤ 2 (N = 2 is
// a half-plane, N = 1.5 a right-angled corner). PEC makes both faces
// perfect conductors; otherwise Eta0 and EtaN are the complex relative
// permittivities of face 0 and face N. With Rough, Spec0 and SpecN (0 to
// 1) scale each face's reflection coefficient: the share of the field a
// rough face reflects specularly (a wall's √(1 − S²) under diffuse
// scattering, as its reflected rays get; 0 at S = 1), so that the
// diffracted field still cancels the reflected one's jump at the
// reflection shadow boundary. Without Rough both faces are smooth.
type Wedge struct {
	N            float64
	PEC          bool
	Eta0, EtaN   complex128
	Rough        bool
	Spec0, SpecN float64
}

// WedgeDiffraction returns the soft and hard UTD diffraction coefficients
// of a wedge (Kouyoumjian and Pathak 1974, eq. (25)), with the finite
// conductivity heuristic of Luebbers (1984):
//
//	D_s,h = −e^{−jπ/4} / (2N·√(2πk)·sin β0) ·
//	        [ cot((π+(φ−φ'))/2N)·F(kL·a⁺(φ−φ'))
//	        + cot((π−(φ−φ'))/2N)·F(kL·a⁻(φ−φ'))
//	        + R0 · cot((π−(φ+φ'))/2N)·F(kL·a⁻(φ+φ'))
//	        + Rn · cot((π+(φ+φ'))/2N)·F(kL·a⁺(φ+φ')) ]
//
// phi and phiP (radians, in (0, N·π)) are the angles of the observation and
// of the source measured from face 0, lDist (metres) the distance parameter
// L, k the wavenumber (rad/m) and sinBeta0 the sine of the angle between
// the incident ray and the edge. R0 and Rn are the reflection coefficients
// of face 0 and face N (TE for the soft coefficient, TM for the hard one;
// −1 and +1 for PEC faces). Luebbers evaluates R0 at the incident grazing
// angle φ' and Rn at the reflected grazing angle Nπ − φ; this code
// evaluates both at the angle of incidence |φ − φ'|/2 from the face normal,
// which equals Luebbers' angles on each face's reflection shadow boundary
// (where these terms matter) and, unlike them, is the same when source and
// observation are swapped, so that the coefficient is reciprocal.
//
// Near a shadow boundary (cot → ∞, F → 0) each term is replaced by its
// limit n·e^{jπ/4}·[√(2πkL)·sgn ε − 2kL·ε·e^{jπ/4}] (McNamara, Pistorius
// and Malherbe 1990, eq. (4.55)).
func WedgeDiffraction(w Wedge, phi, phiP, lDist, k, sinBeta0 float64) (ds, dh complex128) {
	n := w.N
	kl := k * lDist
	t1 := cotF(n, kl, phi-phiP, true)
	t2 := cotF(n, kl, phi-phiP, false)
	t3 := cotF(n, kl, phi+phiP, false)
	t4 := cotF(n, kl, phi+phiP, true)
	var r0s, r0h, rns, rnh complex128
	if w.PEC {
		r0s, r0h, rns, rnh = -1, 1, -1, 1
	} else {
		cosT := math.Cos((phi - phiP) / 2)
		r0s, r0h = Fresnel(w.Eta0, cosT)
		rns, rnh = Fresnel(w.EtaN, cosT)
		if w.Rough {
			r0s, r0h = r0s*complex(w.Spec0, 0), r0h*complex(w.Spec0, 0)
			rns, rnh = rns*complex(w.SpecN, 0), rnh*complex(w.SpecN, 0)
		}
	}
	pre := -cmplx.Exp(complex(0, -math.Pi/4)) / complex(2*n*math.Sqrt(2*math.Pi*k)*sinBeta0, 0)
	ds = pre * (t1 + t2 + r0s*t3 + rns*t4)
	dh = pre * (t1 + t2 + r0h*t3 + rnh*t4)
	return ds, dh
}

// cotF is one term cot((π ± β)/2n)·F(kL·a^±(β)) of the UTD coefficient.
func cotF(n, kl, beta float64, plus bool) complex128 {
	var bigN, eps, arg float64
	if plus {
		bigN = math.Round((beta + math.Pi) / (2 * math.Pi * n))
		eps = math.Pi + beta - 2*math.Pi*n*bigN
		arg = (math.Pi + beta) / (2 * n)
	} else {
		bigN = math.Round((beta - math.Pi) / (2 * math.Pi * n))
		eps = math.Pi - beta + 2*math.Pi*n*bigN
		arg = (math.Pi - beta) / (2 * n)
	}
	if math.Abs(eps) < 1e-6 {
		sgn := 1.0
		if eps < 0 {
			sgn = -1
		}
		e4 := cmplx.Exp(complex(0, math.Pi/4))
		return complex(n, 0) * e4 * (complex(math.Sqrt(2*math.Pi*kl)*sgn, 0) - complex(2*kl*eps, 0)*e4)
	}
	c := math.Cos((2*math.Pi*n*bigN - beta) / 2)
	a := 2 * c * c
	return complex(1/math.Tan(arg), 0) * TransitionF(kl*a)
}
