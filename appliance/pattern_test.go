package appliance_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"linkplan/appliance"
)

func patternSeed(t testing.TB) uint64 {
	t.Helper()
	v := uint64(20250125)
	if e := os.Getenv("SEED"); e != "" {
		p, err := strconv.ParseUint(e, 10, 64)
		if err != nil {
			t.Fatalf("SEED=%q: %v", e, err)
		}
		v = p
	}
	t.Logf("SEED=%d", v)
	return v
}

func TestPatternCutAt(t *testing.T) {
	c := appliance.PatternCut{AnglesDeg: []float64{0, 90, 180, 350}, AttDB: []float64{0, 10, 30, 4}}
	for _, tc := range []struct {
		name        string
		angle, want float64
	}{
		{"on a sample", 90, 10},
		{"between samples", 45, 5},
		{"wrap before the first", 355, 2},
		{"negative angle", -5, 2},
		{"beyond 360", 450, 10},
		{"between the last two", 265, 30 + (4-30)*85.0/170},
	} {
		if got := c.At(tc.angle); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: At(%g) = %g, want %g", tc.name, tc.angle, got, tc.want)
		}
	}
}

// TestGenericRadiatorKeepsLegacy: a generic antenna without a known tilt
// is the 65°/25 dB sector of planner.PatternLossDB bit for bit (this
// expression), so results without tilt or pattern data do not move.
func TestGenericRadiatorKeepsLegacy(t *testing.T) {
	legacy := func(az, b float64) float64 {
		if math.IsNaN(az) {
			return 0
		}
		d := math.Abs(math.Mod(b-az+540, 360) - 180)
		return math.Min(12*(d/65.0)*(d/65.0), 25.0)
	}
	rng := rand.New(rand.NewPCG(patternSeed(t), 1))
	for i := 0; i < 20000; i++ {
		az, b := rng.Float64()*360, rng.Float64()*720-360
		if i%7 == 0 {
			az = math.NaN()
		}
		r := appliance.NewGenericRadiator(appliance.GenericSector{}, az, math.NaN())
		if got, want := r.LossDB(b, rng.Float64()*180-90), legacy(az, b); got != want || r.HasVertical() {
			t.Fatalf("az %g bearing %g: %v, want %v", az, b, got, want)
		}
	}
}

// TestRadiatorBounds: HorizontalLossDB never exceeds LossDB at any
// elevation (the planner prunes with it), for generic and file patterns,
// tilted or not, and the loss stays within [0, cap].
func TestRadiatorBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(patternSeed(t), 2))
	sector := appliance.SectorPattern(65, 8, 28, 20, 3)
	dish := appliance.DishPattern(35)
	omni := appliance.OmniPattern(12, 20, 2)
	for i := 0; i < 30000; i++ {
		az, tilt := rng.Float64()*360, rng.Float64()*20-5
		var r appliance.Radiator
		switch i % 4 {
		case 0:
			r = appliance.NewGenericRadiator(appliance.GenericSector{HBeamwidthDeg: 30 + rng.Float64()*90, VBeamwidthDeg: 3 + rng.Float64()*20}, az, tilt)
		case 1:
			r = appliance.NewPatternRadiator(&sector, az, tilt, "sector")
		case 2:
			r = appliance.NewPatternRadiator(&dish, az, tilt, "dish")
		default:
			r = appliance.NewPatternRadiator(&omni, math.NaN(), tilt, "omni")
		}
		b, th := rng.Float64()*360, rng.Float64()*180-90
		l, h := r.LossDB(b, th), r.HorizontalLossDB(b)
		if l < h-1e-9 || l < 0 || l > 200 || math.IsNaN(l) {
			t.Fatalf("case %d az %g tilt %g bearing %g elevation %g: loss %g, horizontal bound %g", i%4, az, tilt, b, th, l, h)
		}
	}
}

// TestDowntiltGeometry: a sector tilted t° down sees its peak t° below
// the horizon along the boresight and t° above it behind (the back lobe
// tilts up), and no change of plane at 90° to the side.
func TestDowntiltGeometry(t *testing.T) {
	r := appliance.NewGenericRadiator(appliance.GenericSector{VBeamwidthDeg: 10}, 0, 6)
	if got := r.LossDB(0, 6); got != 0 {
		t.Errorf("boresight, 6° down: %g dB, want 0", got)
	}
	// at the horizon along the boresight: 12·(6/10)² = 4.32 dB
	if got := r.LossDB(0, 0); math.Abs(got-4.32) > 1e-9 {
		t.Errorf("boresight, horizon: %g dB, want 4.32", got)
	}
	// at 90° to the side the horizontal loss is 12·(90/65)² = 23.0 dB and
	// the vertical weight R = (25 − 23.0)/25; the tilt leaves the
	// elevation of a horizontal ray unchanged there.
	h := 12 * (90.0 / 65) * (90.0 / 65)
	if got := r.LossDB(90, 0); math.Abs(got-h) > 1e-9 {
		t.Errorf("side, horizon: %g dB, want %g", got, h)
	}
	// hand check against the rotation: 10° below the horizon, 30° off the
	// boresight: sin θ′ = sin10·cos6 − cos10·cos30·sin6
	st := math.Sin(10*math.Pi/180)*math.Cos(6*math.Pi/180) - math.Cos(10*math.Pi/180)*math.Cos(30*math.Pi/180)*math.Sin(6*math.Pi/180)
	th := math.Asin(st) * 180 / math.Pi
	hh := 12 * (30.0 / 65) * (30.0 / 65)
	want := hh + (25-hh)/25*math.Min(12*(th/10)*(th/10), 20)
	if got := r.LossDB(30, 10); math.Abs(got-want) > 1e-9 {
		t.Errorf("30° off, 10° down: %g dB, want %g (θ′ = %g°)", got, want, th)
	}
}

func TestElevationDownDeg(t *testing.T) {
	// 50 m above a point 1 km away: atan(0.05) = 2.862° plus the
	// effective earth's 1000/(2·8 494 667) rad = 0.00337°.
	if got, want := appliance.ElevationDownDeg(150, 100, 1000), math.Atan(0.05)*180/math.Pi+1000/(2*6371000.0*4/3)*180/math.Pi; math.Abs(got-want) > 1e-12 {
		t.Errorf("got %g, want %g", got, want)
	}
	if got := appliance.ElevationDownDeg(100, 150, 0); got != -90 {
		t.Errorf("straight up: %g", got)
	}
}

// TestSynthesisedPatterns: the reference patterns show the figures they
// were made from.
func TestSynthesisedPatterns(t *testing.T) {
	for _, c := range []struct {
		name         string
		p            appliance.AntennaPattern
		hbw, vbw, fb float64
		tilt, tolDeg float64
		directional  bool
	}{
		{"3GPP sector", appliance.SectorPattern(65, 10, 25, 20, 0), 65, 10, 25, 0, 0.05, true},
		{"narrow tilted sector", appliance.SectorPattern(33, 6, 30, 20, 4), 33, 6, 30, 4, 0.05, true},
		{"omni", appliance.OmniPattern(8, 20, 2), 360, 8, 0, 2, 0.05, false},
		// F.699: 35 dBi → D/λ = 10^(27.3/20) = 23.2, HPBW ≈ 69.3/23.2 = 2.99°
		{"dish 35 dBi", appliance.DishPattern(35), 69.3 / math.Pow(10, 27.3/20), 69.3 / math.Pow(10, 27.3/20), 35 - (10 - 10*math.Log10(math.Pow(10, 27.3/20))), 0, 0.05, true},
	} {
		s := c.p.Stats()
		if math.Abs(s.HBeamwidthDeg-c.hbw) > c.tolDeg || math.Abs(s.VBeamwidthDeg-c.vbw) > c.tolDeg || math.Abs(s.FrontToBackDB-c.fb) > 0.01 || s.VPeakDeg != c.tilt {
			t.Errorf("%s: %+v, want H %g V %g F/B %g tilt %g", c.name, s, c.hbw, c.vbw, c.fb, c.tilt)
		}
		v := &appliance.ValidationError{}
		c.p.Validate("", v)
		if v.Err() != nil {
			t.Errorf("%s: %v", c.name, v.Err())
		}
	}
}

func validRadio() appliance.Radio {
	return appliance.Radio{Name: "r", Bands: []appliance.FreqRange{{MinMHz: 5150, MaxMHz: 5850}},
		Channels: []appliance.RadioChannel{{WidthMHz: 20, Modes: []appliance.RadioMode{
			{Name: "BPSK 1/2", TxPowerDBm: 27, SensitivityDBm: -94, ThroughputMbps: 6},
			{Name: "64QAM 5/6", TxPowerDBm: 24, SensitivityDBm: -75, ThroughputMbps: 54}}}}}
}

func TestRadioValidate(t *testing.T) {
	for _, c := range []struct {
		name   string
		mut    func(r *appliance.Radio)
		fields string
	}{
		{"valid", func(*appliance.Radio) {}, ""},
		{"no name", func(r *appliance.Radio) { r.Name = " " }, "name"},
		{"band reversed", func(r *appliance.Radio) { r.Bands[0] = appliance.FreqRange{MinMHz: 6000, MaxMHz: 5000} }, "bands[0]"},
		{"band out of range", func(r *appliance.Radio) { r.Bands[0].MaxMHz = 2e5 }, "bands[0].max_mhz"},
		{"no channel", func(r *appliance.Radio) { r.Channels = nil }, "channels"},
		{"duplicate width", func(r *appliance.Radio) { r.Channels = append(r.Channels, r.Channels[0]) }, "channels[1].width_mhz"},
		{"faster mode needing less", func(r *appliance.Radio) { r.Channels[0].Modes[1].SensitivityDBm = -99 }, "channels[0].modes[1].sensitivity_dbm"},
		{"throughput not rising", func(r *appliance.Radio) { r.Channels[0].Modes[1].ThroughputMbps = 6 }, "channels[0].modes[1].throughput_mbps"},
		{"NaN power", func(r *appliance.Radio) { r.Channels[0].Modes[0].TxPowerDBm = math.NaN() }, "channels[0].modes[0].tx_power_dbm"},
		{"control character", func(r *appliance.Radio) { r.Make = "a\x01" }, "make"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := validRadio()
			c.mut(&r)
			err := r.Validate()
			var ve *appliance.ValidationError
			switch {
			case c.fields == "" && err != nil:
				t.Fatalf("unexpected %v", err)
			case c.fields == "":
			case !errors.As(err, &ve):
				t.Fatalf("error %v, want fields %s", err, c.fields)
			default:
				var got []string
				for _, f := range ve.Fields {
					got = append(got, f.Field)
				}
				if strings.Join(got, ",") != c.fields {
					t.Errorf("fields %v, want %s", got, c.fields)
				}
			}
		})
	}
}
