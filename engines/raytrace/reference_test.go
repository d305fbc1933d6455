package raytrace_test

import (
	"context"
	"math"
	"math/cmplx"
	"testing"

	"linkplan/appliance"
	"linkplan/engines/radio"
	"linkplan/engines/raytrace"
)

// rio is a point in Rio de Janeiro used as the origin of synthetic scenes.
var rio = appliance.LatLon{Lat: -22.9068, Lon: -43.1729}

// east returns the point distM metres east of p in the scene frame of p.
func east(f raytrace.Frame, distM float64) appliance.LatLon { return f.ToLatLon(distM, 0) }

func emptyScene(t testing.TB, ground string) *raytrace.Scene {
	t.Helper()
	s, err := raytrace.NewScene(raytrace.SceneInput{Origin: rio, Ground: ground, GroundHeightM: 10})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// logDistances returns n distances from lo to hi metres, log spaced.
func logDistances(lo, hi float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = lo * math.Pow(hi/lo, float64(i)/float64(n-1))
	}
	return out
}

// TestFreeSpaceEmptyScene: in an empty scene without ground reflection
// the only path is the direct one and the loss is 20·log10(4πd/λ) exactly.
func TestFreeSpaceEmptyScene(t *testing.T) {
	t.Parallel()
	s := emptyScene(t, "")
	opt := raytrace.DefaultOptions()
	opt.GroundReflection = false
	worst := 0.0
	for _, d := range logDistances(1, 10000, 41) {
		for _, f := range []float64{700, 1800, 3500, 28000} {
			r, err := s.Point(context.Background(), raytrace.PointRequest{
				Tx: raytrace.Antenna{Pos: rio, HeightM: 20}, Rx: raytrace.Antenna{Pos: east(s.Frame(), d), HeightM: 20},
				FreqMHz: f, TxPowerDBm: 30, Options: opt})
			if err != nil {
				t.Fatal(err)
			}
			want := radio.FreeSpaceLossExactDB(f, d/1000)
			if len(r.Paths) != 1 || r.Paths[0].Kind != "los" || !r.LOS {
				t.Fatalf("d=%g f=%g: want one LOS path, got %+v", d, f, r.Paths)
			}
			if e := math.Abs(r.PathLossDB - want); e > worst {
				worst = e
			}
		}
	}
	t.Logf("free space, empty scene, 1 m–10 km, 700 MHz–28 GHz: max |raytrace − 20·log10(4πd/λ)| = %.2e dB", worst)
	if worst > 1e-6 {
		t.Errorf("free space differs from the closed form by %.2e dB", worst)
	}
}

// gammaGrazing is the plane-wave reflection coefficient of ground with
// complex permittivity eta at grazing angle psi, in the two-ray textbook
// form (Parsons, The Mobile Radio Propagation Channel, §2.4):
//
//	Γ_h = (sin ψ − √(η − cos²ψ)) / (sin ψ + √(η − cos²ψ))
//	Γ_v = (η·sin ψ − √(η − cos²ψ)) / (η·sin ψ + √(η − cos²ψ))
func gammaGrazing(eta complex128, psi float64, vertical bool) complex128 {
	s := complex(math.Sin(psi), 0)
	c2 := complex(math.Cos(psi)*math.Cos(psi), 0)
	root := cmplx.Sqrt(eta - c2)
	if vertical {
		return (eta*s - root) / (eta*s + root)
	}
	return (s - root) / (s + root)
}

// TestTwoRayClosedForm: over flat P.527 ground the engine equals the
// two-ray closed form E = e^{−jkd1}/d1 + Γ(ψ)·e^{−jkd2}/d2 within 0.01 dB
// from 1 m to 10 km, for both polarisations and the three ground types.
func TestTwoRayClosedForm(t *testing.T) {
	t.Parallel()
	const ht, hr = 30.0, 1.5
	for _, g := range []string{"very_dry_ground", "medium_dry_ground", "wet_ground"} {
		s := emptyScene(t, g)
		gm, _ := raytrace.LookupMaterial(g)
		for _, f := range []float64{900, 1800, 3500} {
			eta := complex(gm.A*math.Pow(f/1000, gm.B), -17.98*gm.C*math.Pow(f/1000, gm.D)/(f/1000))
			lambda := radio.SpeedOfLightMS / (f * 1e6)
			k := 2 * math.Pi / lambda
			for _, pol := range []raytrace.Polarization{raytrace.PolVertical, raytrace.PolHorizontal} {
				opt := raytrace.DefaultOptions()
				opt.Polarization = pol
				worst, worstD := 0.0, 0.0
				for _, d := range logDistances(1, 10000, 200) {
					r, err := s.Point(context.Background(), raytrace.PointRequest{
						Tx: raytrace.Antenna{Pos: rio, HeightM: ht}, Rx: raytrace.Antenna{Pos: east(s.Frame(), d), HeightM: hr},
						FreqMHz: f, TxPowerDBm: 0, Options: opt})
					if err != nil {
						t.Fatal(err)
					}
					d1 := math.Hypot(d, ht-hr)
					d2 := math.Hypot(d, ht+hr)
					gam := gammaGrazing(eta, math.Atan2(ht+hr, d), pol == raytrace.PolVertical)
					e := cmplx.Exp(complex(0, -k*d1))/complex(d1, 0) + gam*cmplx.Exp(complex(0, -k*d2))/complex(d2, 0)
					want := -20 * math.Log10(lambda/(4*math.Pi)*cmplx.Abs(e))
					if len(r.Paths) != 2 {
						t.Fatalf("%s %g MHz %s d=%g: want 2 paths, got %d", g, f, pol, d, len(r.Paths))
					}
					if e := math.Abs(r.PathLossDB - want); e > worst {
						worst, worstD = e, d
					}
				}
				t.Logf("two-ray %s %4.0f MHz %-10s h=%g/%g m, 1 m–10 km (200 points): max |raytrace − closed form| = %.2e dB (at %.1f m)",
					g, f, pol, ht, hr, worst, worstD)
				if worst > 0.01 {
					t.Errorf("two-ray %s %g MHz %s: differs from the closed form by %.4f dB at %.1f m", g, f, pol, worst, worstD)
				}
			}
		}
	}
}

// TestReflectionCoefficientsP2040 checks Fresnel against P.2040's
// formulas written independently in the grazing-angle form, and against
// their known limits: at normal incidence R_TE = −R_TM = (1−√η)/(1+√η);
// at grazing incidence both tend to −1; for a lossless dielectric R_TM
// vanishes at the Brewster angle tan θ = √ε.
func TestReflectionCoefficientsP2040(t *testing.T) {
	t.Parallel()
	worst := 0.0
	for _, name := range raytrace.MaterialNames() {
		m, _ := raytrace.LookupMaterial(name)
		for _, fGHz := range []float64{0.7, 1.8, 3.5, 28} {
			eta := m.Permittivity(fGHz)
			wantEta := complex(m.A*math.Pow(fGHz, m.B), -17.98*m.C*math.Pow(fGHz, m.D)/fGHz)
			if cmplx.Abs(eta-wantEta) > 1e-9*cmplx.Abs(wantEta) {
				t.Fatalf("%s at %g GHz: η = %v, want %v", name, fGHz, eta, wantEta)
			}
			for th := 0.0; th < 90; th += 0.5 {
				te, tm := raytrace.Fresnel(eta, math.Cos(th*math.Pi/180))
				psi := (90 - th) * math.Pi / 180
				for _, c := range []struct{ got, want complex128 }{{te, gammaGrazing(eta, psi, false)}, {tm, gammaGrazing(eta, psi, true)}} {
					if e := cmplx.Abs(c.got - c.want); e > worst {
						worst = e
					}
				}
			}
			te, tm := raytrace.Fresnel(eta, 1)
			want := (1 - cmplx.Sqrt(eta)) / (1 + cmplx.Sqrt(eta))
			if cmplx.Abs(te-want) > 1e-12 || cmplx.Abs(tm+want) > 1e-12 {
				t.Errorf("%s normal incidence: R_TE=%v R_TM=%v, want ±%v", name, te, tm, want)
			}
			te, tm = raytrace.Fresnel(eta, 1e-9)
			if cmplx.Abs(te+1) > 1e-6 || cmplx.Abs(tm+1) > 1e-4 {
				t.Errorf("%s grazing: R_TE=%v R_TM=%v, want −1", name, te, tm)
			}
		}
	}
	for _, eps := range []float64{2, 5.24, 15} {
		_, tm := raytrace.Fresnel(complex(eps, 0), math.Cos(math.Atan(math.Sqrt(eps))))
		if cmplx.Abs(tm) > 1e-12 {
			t.Errorf("Brewster angle for ε=%g: |R_TM| = %g, want 0", eps, cmplx.Abs(tm))
		}
	}
	t.Logf("P.2040 reflection coefficients, 8 materials × 4 frequencies × 180 angles: max |Fresnel − grazing-angle form| = %.2e", worst)
	if worst > 1e-12 {
		t.Errorf("reflection coefficients differ from P.2040's formulas by %g", worst)
	}
}
