package engines_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/engines"
	"linkplan/engines/enginetest"
)

// newRegistry returns a registry with the zero Config (Brazil defaults).
func newRegistry(tb testing.TB) *engines.Registry {
	tb.Helper()
	r, err := engines.New(engines.Config{})
	if err != nil {
		tb.Fatalf("engines.New: %v", err)
	}
	return r
}

// loadCase parses testdata/cases/name.
func loadCase(tb testing.TB, name string) engines.Case {
	tb.Helper()
	f, err := os.Open(filepath.Join("testdata", "cases", name))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	c, err := engines.ParseCase(f)
	if err != nil {
		tb.Fatalf("ParseCase(%s): %v", name, err)
	}
	return c
}

// p1812Profile is one P.1812 validation profile (km, metres).
type p1812Profile struct {
	dKm, hM, rM []float64
	zone        []int
}

// readP1812Profile reads a committed P.1812 profile fixture.
func readP1812Profile(tb testing.TB, rel string) p1812Profile {
	tb.Helper()
	return readP1812ProfileIn(tb, enginetest.Fixtures("p1812"), rel)
}

// readP1812ProfileIn reads a P.1812 profile relative to dir (a validation
// suite folder).
func readP1812ProfileIn(tb testing.TB, dir, rel string) p1812Profile {
	tb.Helper()
	rows, err := enginetest.ReadCSV(filepath.Join(dir, rel))
	if err != nil {
		tb.Fatal(err)
	}
	var p p1812Profile
	for _, r := range rows {
		d, err1 := r.Float("d_km")
		h, err2 := r.Float("h_masl")
		c, err3 := r.Float("R_m")
		z, err4 := r.Float("zone")
		for _, e := range []error{err1, err2, err3, err4} {
			if e != nil {
				tb.Fatalf("%s: %v", rel, e)
			}
		}
		p.dKm, p.hM, p.rM, p.zone = append(p.dKm, d), append(p.hM, h), append(p.rM, c), append(p.zone, int(z))
	}
	return p
}

// readPFL reads a committed ITM PFL fixture.
func readPFL(tb testing.TB, rel string) []float64 {
	tb.Helper()
	return readPFLIn(tb, enginetest.Fixtures("itm"), rel)
}

// readPFLIn reads an ITM PFL file relative to dir (a validation suite
// folder).
func readPFLIn(tb testing.TB, dir, rel string) []float64 {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		tb.Fatal(err)
	}
	var out []float64
	for _, f := range strings.FieldsFunc(string(b), func(r rune) bool { return r == ',' || r == '\n' || r == '\r' || r == ' ' }) {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			tb.Fatalf("%s: %v", rel, err)
		}
		out = append(out, v)
	}
	return out
}

// pflProfile turns a PFL into a PathProfile with distances i·xi.
func pflProfile(pfl []float64) *appliance.PathProfile {
	np := int(pfl[0])
	p := &appliance.PathProfile{DistancesM: make([]float64, np+1), HeightsM: append([]float64(nil), pfl[2:]...)}
	for i := range p.DistancesM {
		p.DistancesM[i] = float64(i) * pfl[1]
	}
	return p
}

// resample returns p re-interpolated every stepM metres up to its length
// (the last step shorter), the way a terrain pack samples a path.
func resample(p *appliance.PathProfile, stepM float64) *appliance.PathProfile {
	L := p.LengthM()
	out := &appliance.PathProfile{}
	j := 0
	for x := 0.0; ; x += stepM {
		if x > L {
			x = L
		}
		for j+2 < p.Len() && p.DistancesM[j+1] < x {
			j++
		}
		t := (x - p.DistancesM[j]) / (p.DistancesM[j+1] - p.DistancesM[j])
		out.DistancesM = append(out.DistancesM, x)
		out.HeightsM = append(out.HeightsM, p.HeightsM[j]+t*(p.HeightsM[j+1]-p.HeightsM[j]))
		if x == L {
			return out
		}
	}
}

// profileTerrain is an appliance.Terrain that answers every Profile call
// with a real validation profile stretched to the requested path length
// and resampled at the requested step: the terrain of a real path, without
// a terrain pack in this package's testdata.
type profileTerrain struct {
	base *appliance.PathProfile
}

func (t profileTerrain) ElevationM(appliance.LatLon) (float64, error) { return t.base.HeightsM[0], nil }

func (t profileTerrain) Profile(a, b appliance.LatLon, stepM float64) (*appliance.PathProfile, error) {
	L := a.DistanceM(b)
	if L == 0 {
		return &appliance.PathProfile{DistancesM: []float64{0}, HeightsM: []float64{t.base.HeightsM[0]}}, nil
	}
	scaled := &appliance.PathProfile{HeightsM: t.base.HeightsM}
	for _, d := range t.base.DistancesM {
		scaled.DistancesM = append(scaled.DistancesM, d*L/t.base.LengthM())
	}
	return resample(scaled, stepM), nil
}

// missingTerrain reports a missing tile for every query.
type missingTerrain struct{}

func (missingTerrain) ElevationM(appliance.LatLon) (float64, error) {
	return 0, &appliance.TileMissingError{Tile: "S23W044"}
}

func (missingTerrain) Profile(appliance.LatLon, appliance.LatLon, float64) (*appliance.PathProfile, error) {
	return nil, &appliance.TileMissingError{Tile: "S23W044"}
}

// rjProfile returns the real Sumaré → Niterói profile (15.65 km, 86.47 m
// spacing) and its terminals.
func rjLink(tb testing.TB) appliance.LinkInput {
	tb.Helper()
	return appliance.LinkInput{
		Tx: appliance.LatLon{Lat: -22.9519, Lon: -43.2367}, Rx: appliance.LatLon{Lat: -22.8833, Lon: -43.1036},
		TxHeightM: 50, RxHeightM: 10, FreqMHz: 700,
		Profile: pflProfile(readPFL(tb, "pfls/rj_sumare_to_niteroi.pfl.csv")),
	}
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func fieldsOf(err error) string {
	var v *appliance.ValidationError
	if !errors.As(err, &v) {
		return ""
	}
	var s []string
	for _, f := range v.Fields {
		s = append(s, f.Field)
	}
	return strings.Join(s, ",")
}

func describe(p appliance.LinkPrediction) string {
	return fmt.Sprintf("%s %.4f dB warnings=%v", p.Engine, p.PathLossDB, p.Warnings)
}

func nan() float64 { return math.NaN() }

func contextWithCancel(t *testing.T) (context.Context, context.CancelFunc) {
	return context.WithCancel(t.Context())
}

// refLoss returns column col of case id in a committed validation suite's
// CSV (a named case is a fixture, not a suite run).
func refLoss(tb testing.TB, suite, file, id, col string) float64 {
	tb.Helper()
	rows, err := enginetest.ReadCSV(filepath.Join(enginetest.Fixtures(suite), file))
	if err != nil {
		tb.Fatal(err)
	}
	for _, r := range rows {
		if r["case_id"] == id {
			v, err := r.Float(col)
			if err != nil {
				tb.Fatal(err)
			}
			return v
		}
	}
	tb.Fatalf("%s/%s: no case %s", suite, file, id)
	return 0
}

// TestFinding10_UnitFixturesIgnoreValidationDir: issue 7, finding 10. The
// fixtures unit tests name (a case id, a profile) are read from the
// committed copy even when LINKPLAN_VALIDATION_DIR points at a set that
// lacks them (here an empty folder).
func TestFinding10_UnitFixturesIgnoreValidationDir(t *testing.T) {
	t.Setenv(enginetest.EnvValidationDir, t.TempDir())
	if v := refLoss(t, "itm", "ntia_generated_rj_p2p_cases.csv", "rj_niteroi_f700_cr", "A__db"); math.Abs(v-113.2328) > 1e-9 {
		t.Errorf("reference loss %g, want 113.2328", v)
	}
	if p := readPFL(t, "pfls/rj_sumare_to_niteroi.pfl.csv"); len(p) < 3 {
		t.Errorf("PFL has %d values", len(p))
	}
	if p := readP1812Profile(t, "profiles/rburg_urban_with_clutter.csv"); len(p.dKm) < 3 {
		t.Errorf("P.1812 profile has %d points", len(p.dKm))
	}
}
