package raytrace

import (
	"fmt"
	"math"
	"math/cmplx"
	"sort"
)

// Material holds the electrical properties of a surface as the four
// parameters of the frequency fits of ITU-R P.2040-3 Table 3:
//
//	ε'r = A·f^B   (relative permittivity, real part)
//	σ   = C·f^D   (conductivity, S/m)
//
// with f in GHz, valid from MinGHz to MaxGHz (Table 3). ThicknessM is the
// slab thickness used for transmission through a wall (P.2040-3,
// single-layer slab); it plays no part in reflection, where the wall is a
// half-space.
type Material struct {
	Name       string  `json:"name"`
	A          float64 `json:"a"`           // dimensionless
	B          float64 `json:"b"`           // dimensionless
	C          float64 `json:"c"`           // S/m
	D          float64 `json:"d"`           // dimensionless
	MinGHz     float64 `json:"min_ghz"`     // GHz, lowest frequency of the fit
	MaxGHz     float64 `json:"max_ghz"`     // GHz, highest frequency of the fit
	ThicknessM float64 `json:"thickness_m"` // metres, for wall transmission
}

// Building materials of ITU-R P.2040-3 Table 3, and the ground types of
// ITU-R P.527-6 (whose land fits P.2040 Table 3 repeats: very dry, medium
// dry and wet ground, 1–10 GHz). Thicknesses are typical wall thicknesses
// chosen here (P.2040 gives none): concrete and brick 0.2 m, glass 10 mm,
// wood 40 mm, metal 2 mm.
var (
	MaterialConcrete = Material{"concrete", 5.24, 0, 0.0462, 0.7822, 1, 100, 0.2}
	MaterialBrick    = Material{"brick", 3.91, 0, 0.0238, 0.16, 1, 40, 0.2}
	MaterialGlass    = Material{"glass", 6.31, 0, 0.0036, 1.3394, 0.1, 100, 0.01}
	MaterialWood     = Material{"wood", 1.99, 0, 0.0047, 1.0718, 0.001, 100, 0.04}
	MaterialMetal    = Material{"metal", 1, 0, 1e7, 0, 1, 100, 0.002}

	GroundVeryDry   = Material{"very_dry_ground", 3, 0, 0.00015, 2.52, 1, 10, 0}
	GroundMediumDry = Material{"medium_dry_ground", 15, -0.1, 0.035, 1.63, 1, 10, 0}
	GroundWet       = Material{"wet_ground", 30, -0.4, 0.15, 1.30, 1, 10, 0}
)

// Default classes: walls and roofs are concrete unless the layer or the
// building says otherwise, and the ground is medium dry (P.527), the
// usual choice for an unknown urban ground.
const (
	DefaultBuildingMaterial = "concrete"
	DefaultGround           = "medium_dry_ground"
)

var materials = map[string]Material{
	MaterialConcrete.Name: MaterialConcrete,
	MaterialBrick.Name:    MaterialBrick,
	MaterialGlass.Name:    MaterialGlass,
	MaterialWood.Name:     MaterialWood,
	MaterialMetal.Name:    MaterialMetal,
	GroundVeryDry.Name:    GroundVeryDry,
	GroundMediumDry.Name:  GroundMediumDry,
	GroundWet.Name:        GroundWet,
}

// LookupMaterial returns the named material of P.2040 Table 3 or P.527
// ("concrete", "brick", "glass", "wood", "metal", "very_dry_ground",
// "medium_dry_ground", "wet_ground").
func LookupMaterial(name string) (Material, bool) {
	m, ok := materials[name]
	return m, ok
}

// MaterialNames lists the names LookupMaterial knows, sorted.
func MaterialNames() []string {
	out := make([]string, 0, len(materials))
	for k := range materials {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Validate checks that the parameters give a finite, physical permittivity.
func (m Material) Validate() error {
	for _, x := range []float64{m.A, m.B, m.C, m.D, m.MinGHz, m.MaxGHz, m.ThicknessM} {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("material %q: parameters must be finite", m.Name)
		}
	}
	if m.A < 1 || m.C < 0 || m.ThicknessM < 0 || m.MinGHz <= 0 || m.MaxGHz < m.MinGHz {
		return fmt.Errorf("material %q: need a ≥ 1, c ≥ 0, thickness ≥ 0 and 0 < min_ghz ≤ max_ghz", m.Name)
	}
	return nil
}

// InRange reports whether freqGHz lies in the material's fitted range.
func (m Material) InRange(freqGHz float64) bool {
	return freqGHz >= m.MinGHz && freqGHz <= m.MaxGHz
}

// Permittivity returns the complex relative permittivity
// η = ε'r − j·17.98·σ/f of P.2040-3 (f in GHz) at freqGHz (e^{jωt} convention).
// Outside [MinGHz, MaxGHz] the fit is extrapolated (callers warn).
func (m Material) Permittivity(freqGHz float64) complex128 {
	er := m.A * math.Pow(freqGHz, m.B)
	sigma := m.C * math.Pow(freqGHz, m.D)
	return complex(er, -17.98*sigma/freqGHz)
}

// Fresnel returns the reflection coefficients of a plane wave incident from
// air on a half-space of relative permittivity eta, at cosTheta = cos of
// the angle of incidence from the surface normal (P.2040-3, reflection
// at a planar interface):
//
//	R_TE = (cosθ − √(η − sin²θ)) / (cosθ + √(η − sin²θ))
//	R_TM = (η·cosθ − √(η − sin²θ)) / (η·cosθ + √(η − sin²θ))
//
// TE is the field perpendicular to the plane of incidence, TM the field in
// it (see doc.go for the basis vectors).
func Fresnel(eta complex128, cosTheta float64) (rTE, rTM complex128) {
	if cosTheta < 0 {
		cosTheta = -cosTheta
	}
	if cosTheta > 1 {
		cosTheta = 1
	}
	c := complex(cosTheta, 0)
	s2 := complex(1-cosTheta*cosTheta, 0)
	root := cmplx.Sqrt(eta - s2)
	rTE = (c - root) / (c + root)
	rTM = (eta*c - root) / (eta*c + root)
	return rTE, rTM
}

// SlabTransmission returns the transmission coefficients of a single
// dielectric slab of relative permittivity eta and thickness thicknessM in
// air (P.2040-3, single-layer slab), at cosTheta = cos of the angle
// of incidence and wavelength lambdaM:
//
//	T = (1 − R'²)·e^{−jq} / (1 − R'²·e^{−j2q}),  q = (2π·d/λ)·√(η − sin²θ)
//
// where R' is the air–material coefficient of Fresnel for the polarisation.
// The phase of free propagation over the slab's thickness is not removed
// (the path length is measured through the slab as if it were air; the
// difference is below a wavelength).
func SlabTransmission(eta complex128, cosTheta, thicknessM, lambdaM float64) (tTE, tTM complex128) {
	if cosTheta < 0 {
		cosTheta = -cosTheta
	}
	rTE, rTM := Fresnel(eta, cosTheta)
	s2 := complex(1-cosTheta*cosTheta, 0)
	q := complex(2*math.Pi*thicknessM/lambdaM, 0) * cmplx.Sqrt(eta-s2)
	e1 := cmplx.Exp(complex(0, -1) * q)
	e2 := e1 * e1
	tTE = (1 - rTE*rTE) * e1 / (1 - rTE*rTE*e2)
	tTM = (1 - rTM*rTM) * e1 / (1 - rTM*rTM*e2)
	return tTE, tTM
}
