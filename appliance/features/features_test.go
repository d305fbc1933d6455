package features_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/features"
	"linkplan/appliance/planner"
	"linkplan/terrain-packs/sample"
	"linkplan/terrain-packs/terrain"
)

// rio is the real embedded SRTM3 sample (no land-cover layer).
func rio(t testing.TB) appliance.Terrain {
	t.Helper()
	p, err := terrain.OpenBytes(sample.Pack())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// seed returns FEATURES_SEED or a fresh seed, and logs it.
func seed(t *testing.T) uint64 {
	s := rand.Uint64()
	if v := os.Getenv("FEATURES_SEED"); v != "" {
		var err error
		if s, err = strconv.ParseUint(v, 10, 64); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("FEATURES_SEED=%d", s)
	return s
}

var base = features.Link{
	Tx: appliance.LatLon{Lat: -22.95, Lon: -43.21}, Rx: appliance.LatLon{Lat: -22.90, Lon: -43.18},
	TxHeightM: 30, RxHeightM: 1.5, FreqMHz: 1800, TxPowerDBm: 43, TxGainDBi: 15, RxGainDBi: 0,
}

func TestSchema(t *testing.T) {
	for _, tc := range []struct {
		name    string
		version int
		n       int
		last    string
	}{
		{"17 features", features.Version17, 17, "terrain_std_log_d"},
		{"27 with clutter", features.Version27, 27, "clutter_other"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := features.Schema(tc.version)
			if err != nil || len(s.Names) != tc.n || s.Names[len(s.Names)-1] != tc.last || s.Version != tc.version {
				t.Fatalf("Schema(%d) = %+v, %v", tc.version, s, err)
			}
			if s.Names[0] != "log_distance_km" || s.Names[13] != "min_fresnel_ratio" {
				t.Fatalf("order: %v", s.Names)
			}
		})
	}
	if _, err := features.Schema(3); !errors.Is(err, appliance.ErrInvalid) {
		t.Fatalf("Schema(3) = %v, want ErrInvalid", err)
	}
}

func TestValidateNamesFields(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(*features.Link)
		field string
	}{
		{"tx lat", func(l *features.Link) { l.Tx.Lat = 91 }, "tx_lat"},
		{"rx lon", func(l *features.Link) { l.Rx.Lon = math.NaN() }, "rx_lon"},
		{"tx height zero", func(l *features.Link) { l.TxHeightM = 0 }, "tx_height_m"},
		{"rx height 501", func(l *features.Link) { l.RxHeightM = 501 }, "rx_height_m"},
		{"freq", func(l *features.Link) { l.FreqMHz = 1 }, "freq_mhz"},
		{"power", func(l *features.Link) { l.TxPowerDBm = 81 }, "tx_power_dbm"},
		{"tx gain", func(l *features.Link) { l.TxGainDBi = -21 }, "tx_gain_dbi"},
		{"rx gain", func(l *features.Link) { l.RxGainDBi = 61 }, "rx_gain_dbi"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := base
			tc.edit(&l)
			var v *appliance.ValidationError
			if err := l.Validate(); !errors.As(err, &v) || len(v.Fields) != 1 || v.Fields[0].Field != tc.field {
				t.Fatalf("Validate = %v, want one error naming %s", err, tc.field)
			}
			b := &features.Builder{Terrain: rio(t)}
			if _, _, err := b.Vector(context.Background(), l, features.Version17); !errors.Is(err, appliance.ErrInvalid) {
				t.Fatalf("Vector = %v, want ErrInvalid", err)
			}
		})
	}
	if err := base.Validate(); err != nil {
		t.Fatal(err)
	}
}

// flat is a terrain of constant height with one optional ridge: a
// profile whose features can be worked out by hand.
type flat struct {
	groundM, ridgeM float64
	ridgeAt         int // sample index of the ridge, 0 none
	samples         int
	lengthM         float64
	classes         []uint8
}

func (f flat) ElevationM(appliance.LatLon) (float64, error) { return f.groundM, nil }

func (f flat) Profile(a, b appliance.LatLon, _ float64) (*appliance.PathProfile, error) {
	p := &appliance.PathProfile{ClutterClass: f.classes}
	for i := range f.samples {
		p.DistancesM = append(p.DistancesM, f.lengthM*float64(i)/float64(f.samples-1))
		h := f.groundM
		if i == f.ridgeAt && i > 0 {
			h = f.ridgeM
		}
		p.HeightsM = append(p.HeightsM, h)
	}
	return p, nil
}

func TestVectorByHand(t *testing.T) {
	l := base
	d := l.Tx.DistanceM(l.Rx)
	logD, logF := math.Log10(d/1000), math.Log10(1800)
	// Five samples 0, 1, 2, 3, 4 km: a ridge of 100 m at the middle sample
	// of a 10 m plain. Line of sight at the middle: 10 + (40 + 11.5)/2 −
	// 10 … tips 40 and 11.5 m; LOS at 2 km is 25.75 m; effective ground
	// 100 + 2000·2000/(2·4/3·6371000) = 100.2354 m: one obstruction of
	// 74.4854 m.
	ter := flat{groundM: 10, ridgeM: 100, ridgeAt: 2, samples: 5, lengthM: 4000}
	b := &features.Builder{Terrain: ter}
	x, info, err := b.Vector(context.Background(), l, features.Version17)
	if err != nil {
		t.Fatal(err)
	}
	bulge := 2000.0 * 2000 / (2 * 4.0 / 3 * 6371000)
	mean := (4*10 + 100) / 5.0
	std := math.Sqrt((4*(10-mean)*(10-mean) + (100-mean)*(100-mean)) / 5)
	slope := 2 * math.Atan2(90, 1000) / 4 * 180 / math.Pi
	want := map[int]float64{
		0: logD, 1: logF, 2: 30, 3: 1.5, 4: 43, 5: 15, 6: 0,
		7: mean, 8: 100, 9: std, 10: slope, 11: 1, 12: 100 + bulge - 25.75,
		13: -features.MaxFresnelRatio, 14: logD * logD, 15: logD * logF, 16: std * logD,
	}
	for i, w := range want {
		if math.Abs(x[i]-w) > 1e-9 {
			t.Errorf("feature %d = %.12g, want %.12g", i, x[i], w)
		}
	}
	if len(x) != 17 || info.Morphology != features.MorphologyRuralMountainous || info.BandMHz != 1800 ||
		math.Abs(info.DistanceKM-d/1000) > 1e-12 || info.ClutterClass != 0 {
		t.Fatalf("len %d, info %+v", len(x), info)
	}
	// A version-2 vector needs a land-cover layer.
	if _, _, err := b.Vector(context.Background(), l, features.Version27); !errors.Is(err, features.ErrNoLandCover) || !errors.Is(err, appliance.ErrUnavailable) {
		t.Fatalf("version 2 without land cover: %v", err)
	}
	// With one: the receiver's class (the last sample) is the one-hot.
	ter.classes = []uint8{1, 1, 1, 1, 6}
	x, info, err = (&features.Builder{Terrain: ter}).Vector(context.Background(), l, features.Version27)
	if err != nil || len(x) != 27 || info.ClutterLabel != "Urban" || info.ClutterClass != 6 {
		t.Fatalf("version 2: %d features, %+v, %v", len(x), info, err)
	}
	for i, v := range x[17:] {
		if want := 0.0; (i == 5 && v != 1) || (i != 5 && v != want) {
			t.Fatalf("one-hot = %v", x[17:])
		}
	}
	// Clear path: no obstruction, positive clearance ratio.
	ter = flat{groundM: 10, samples: 5, lengthM: 4000}
	x, _, err = (&features.Builder{Terrain: ter}).Vector(context.Background(), l, features.Version17)
	if err != nil || x[11] != 0 || x[12] != 0 || x[13] <= 0 || x[9] != 0 || x[10] != 0 {
		t.Fatalf("clear path: %v, %v", x, err)
	}
}

// TestMinFresnelAgainstPathCheck compares min_fresnel_ratio on real Rio
// paths with the planner's path check, an independent computation of the
// same geometry (its dominant obstacle has the smallest ratio).
func TestMinFresnelAgainstPathCheck(t *testing.T) {
	ter := rio(t)
	b := &features.Builder{Terrain: ter}
	r := rand.New(rand.NewPCG(seed(t), 1))
	for i := range 200 {
		l := base
		l.Tx = appliance.LatLon{Lat: -23 + 0.3*r.Float64(), Lon: -43.6 + 0.5*r.Float64()}
		l.Rx = appliance.LatLon{Lat: -23 + 0.3*r.Float64(), Lon: -43.6 + 0.5*r.Float64()}
		l.TxHeightM, l.RxHeightM = 5+100*r.Float64(), 1+20*r.Float64()
		l.FreqMHz = 400 + 5000*r.Float64()
		x, _, err := b.Vector(context.Background(), l, features.Version17)
		if err != nil {
			t.Fatal(err)
		}
		prof, err := ter.Profile(l.Tx, l.Rx, features.ProfileStepM)
		if err != nil {
			t.Fatal(err)
		}
		pc, err := planner.CheckPath(prof, l.TxHeightM, l.RxHeightM, l.FreqMHz)
		if err != nil {
			t.Fatal(err)
		}
		want := float64(features.MaxFresnelRatio)
		if pc.Obstacle != nil {
			want = math.Max(-features.MaxFresnelRatio, math.Min(features.MaxFresnelRatio, pc.Obstacle.ClearanceF1))
		}
		if math.Abs(x[13]-want) > 1e-9 {
			t.Fatalf("path %d: min_fresnel_ratio %.12g, path check %.12g", i, x[13], want)
		}
		if (x[11] > 0) != (pc.Obstacle != nil && pc.Obstacle.ClearanceM <= 0) {
			t.Fatalf("path %d: %g obstructions, path check clearance %+v", i, x[11], pc.Obstacle)
		}
	}
}

func TestMissingTerrainIsAnError(t *testing.T) {
	l := base
	l.Rx = appliance.LatLon{Lat: -3.1, Lon: -60.0} // Manaus: no pack here
	_, _, err := (&features.Builder{Terrain: rio(t)}).Vector(context.Background(), l, features.Version17)
	if !errors.Is(err, appliance.ErrTerrainMissing) {
		t.Fatalf("Vector = %v, want ErrTerrainMissing", err)
	}
}

func TestSnapAndMorphology(t *testing.T) {
	for _, tc := range []struct {
		name string
		mhz  float64
		want int
	}{
		{"B28", 758, 700}, {"tie 775 goes low", 775, 700}, {"850", 869, 850}, {"900", 940, 900},
		{"B3", 1842.5, 1800}, {"B1", 2140, 2100}, {"B7", 2655, 2600}, {"n78", 3650, 3500}, {"mmwave", 26000, 3500},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := features.SnapBandMHz(tc.mhz); got != tc.want {
				t.Fatalf("SnapBandMHz(%g) = %d, want %d", tc.mhz, got, tc.want)
			}
		})
	}
	for _, tc := range []struct {
		stdM float64
		want string
	}{{0, "open_or_flat"}, {4.999, "open_or_flat"}, {5, "rural_rolling"}, {14.999, "rural_rolling"}, {15, "rural_mountainous"}} {
		if got := features.Morphology(tc.stdM); got != tc.want {
			t.Errorf("Morphology(%g) = %s, want %s", tc.stdM, got, tc.want)
		}
	}
}

func BenchmarkVector(b *testing.B) {
	bl := &features.Builder{Terrain: rio(b)}
	l := base
	l.Rx = appliance.LatLon{Lat: -22.80, Lon: -43.30} // about 20 km
	for b.Loop() {
		if _, _, err := bl.Vector(context.Background(), l, features.Version17); err != nil {
			b.Fatal(err)
		}
	}
}
