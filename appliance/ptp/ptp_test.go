package ptp_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/equipment"
	"linkplan/appliance/ptp"
	"linkplan/engines/itur"
)

const (
	microwave = "builtin:microwave-11-23ghz"
	wifi      = "builtin:wifi5-2x2"
	eband     = "builtin:eband-80ghz"
)

// inlineDish11 is an 11 GHz dish given inline (ITU-R F.699 reference
// pattern of 40 dBi): no built-in dish is meant for 11 GHz.
func inlineDish11(t testing.TB) *appliance.Antenna {
	t.Helper()
	g := 40.0
	a, err := equipment.AntennaInput{Name: "11 GHz 1.0 m dish", GainDBi: &g, MinMHz: 10700, MaxMHz: 11700,
		Parametric: &equipment.Parametric{Model: equipment.ModelDish}}.Build()
	if err != nil {
		t.Fatal(err)
	}
	return a
}

type rioPath struct {
	name        string
	a, b        appliance.PTPEnd
	freq, chMHz float64
	obstructed  bool
}

// rioPaths are five real Rio de Janeiro paths on the embedded SRTM3
// sample (summits found on its grid): four clear, one obstructed.
func rioPaths(t testing.TB) []rioPath {
	sumare := func(h float64, r, a string) appliance.PTPEnd { return end(-22.9517, -43.2371, h, r, a) }
	galeaoA := end(-22.8150, -43.2465, 40, microwave, "")
	galeaoA.Antenna, galeaoA.CableLossDB = inlineDish11(t), 1.5
	sumareA := sumare(30, microwave, "")
	sumareA.Antenna, sumareA.CableLossDB = inlineDish11(t), 2
	pedraBonita := end(-22.9877, -43.2826, 20, microwave, "builtin:dish-38dbi")
	pedraBonita.CableLossDB = 0.5
	return []rioPath{
		{name: "Sumaré to Pedra Bonita, 18.7 GHz", a: sumare(30, microwave, "builtin:dish-38dbi"), b: pedraBonita, freq: 18700, chMHz: 28},
		{name: "Sumaré to Galeão, 11.2 GHz, inline dishes", a: sumareA, b: galeaoA, freq: 11200, chMHz: 28},
		{name: "Pedra Bonita to Barra, 23 GHz", a: end(-22.9877, -43.2826, 20, microwave, "builtin:dish-44dbi"),
			b: end(-22.9825, -43.3630, 40, microwave, "builtin:dish-44dbi"), freq: 23000, chMHz: 56},
		{name: "Corcovado to Botafogo, 73.5 GHz", a: end(-22.9514, -43.2120, 20, eband, "builtin:dish-44dbi"),
			b: end(-22.9510, -43.1840, 40, eband, "builtin:dish-44dbi"), freq: 73500, chMHz: 500},
		{name: "Campo Grande to Bangu, 5.5 GHz, obstructed", a: end(-22.9035, -43.5610, 30, wifi, "builtin:dish-30dbi"),
			b: end(-22.8760, -43.4650, 30, wifi, "builtin:dish-30dbi"), freq: 5500, chMHz: 40, obstructed: true},
	}
}

// handLoss is the fspl engine's loss written out from its definition:
// free space over the slant path between the antenna tips,
// 20·log10(4π·d/λ), plus the ITU-R P.526 eq. (31) knife edge
// J(ν) = 6.9 + 20·log10(√((ν−0.1)²+1) + ν − 0.1) (0 for ν ≤ −0.78, at
// most 40 dB) of the sample with the largest
// ν = −clearance·√(2/λ·(1/d1 + 1/d2)), the ground lifted by the k = 4/3
// earth bulge d1·d2/(2·k·6 371 000 m).
func handLoss(p *appliance.PathProfile, hA, hB, freqMHz float64) (fsDB, knifeDB float64) {
	lambda := 299792458 / (freqMHz * 1e6)
	n := len(p.HeightsM)
	d := p.DistancesM[n-1]
	tipA, tipB := p.HeightsM[0]+hA, p.HeightsM[n-1]+hB
	slant := math.Sqrt(d*d + (tipA-tipB)*(tipA-tipB))
	fsDB = 20 * math.Log10(4*math.Pi*slant/lambda)
	nu := math.Inf(-1)
	for i := 1; i < n-1; i++ {
		d1, d2 := p.DistancesM[i], d-p.DistancesM[i]
		clearance := tipA + (tipB-tipA)*d1/d - (p.HeightsM[i] + d1*d2/(2*4.0/3*6371000))
		nu = math.Max(nu, -clearance*math.Sqrt(2/lambda*(1/d1+1/d2)))
	}
	if nu > -0.78 {
		v := nu - 0.1
		knifeDB = math.Min(40, 6.9+20*math.Log10(math.Sqrt(v*v+1)+v))
	}
	return fsDB, knifeDB
}

// TestIssue25_PTPBudgetOnFiveRioPaths: issue 25 acceptance. On five real
// Rio paths (one obstructed) every mode's received level, fade margin
// and availability both ways equal a computation written out here: the
// radios' and antennas' figures from the catalogue, the fspl loss from
// its formula (handLoss) on the terrain profile, the gaseous absorption
// and the outage from engines/itur on inputs computed here (mid-point,
// antenna tips above sea level), and the recommended mode the fastest
// whose availability reaches the target.
func TestIssue25_PTPBudgetOnFiveRioPaths(t *testing.T) {
	s := service(t)
	maps, err := itur.LoadMaps()
	if err != nil {
		t.Fatal(err)
	}
	radios, _ := equipment.Builtins()
	radio := func(id string) *appliance.Radio {
		for _, r := range radios {
			if r.ID == id {
				return r
			}
		}
		t.Fatalf("no built-in %s", id)
		return nil
	}
	const tol = 0.01 // dB
	for _, c := range rioPaths(t) {
		t.Run(c.name, func(t *testing.T) {
			req := appliance.PTPRequest{A: c.a, B: c.b, FreqMHz: c.freq, ChannelMHz: c.chMHz}
			l, err := s.Plan(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			prof, err := s.Terrain.Profile(c.a.Pos, c.b.Pos, 90)
			if err != nil {
				t.Fatal(err)
			}
			fs, knife := handLoss(prof, c.a.HeightM, c.b.HeightM, c.freq)
			if got := l.Prediction.PathLossDB; math.Abs(got-(fs+knife)) > tol {
				t.Errorf("path loss %.4f dB, by hand %.4f + %.4f", got, fs, knife)
			}
			if c.obstructed != (knife > 0) || c.obstructed == l.Prediction.LOSClear {
				t.Errorf("knife edge %.2f dB, LOS clear %v: the path is obstructed: %v", knife, l.Prediction.LOSClear, c.obstructed)
			}
			n := len(prof.HeightsM)
			tipA, tipB := prof.HeightsM[0]+c.a.HeightM, prof.HeightsM[n-1]+c.b.HeightM
			mid := c.a.Pos.Intermediate(c.b.Pos, 0.5)
			link, err := maps.PrepareLink(itur.LinkInput{LatDeg: mid.Lat, LonDeg: mid.Lon, DistKm: c.a.Pos.DistanceM(c.b.Pos) / 1000,
				FreqGHz: c.freq / 1000, PolTiltDeg: 90, HTxAmslM: tipA, HRxAmslM: tipB})
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(l.GasAttenuationDB-link.GasAttenuationDB) > 1e-9 || (c.freq > 10000) != (link.GasAttenuationDB > 0.2) {
				t.Errorf("gas %.4f dB, itur %.4f", l.GasAttenuationDB, link.GasAttenuationDB)
			}
			gainA, gainB := antennaOf(t, s, c.a).GainDBi, antennaOf(t, s, c.b).GainDBi
			// Aligned antennas: boresight, no pattern loss.
			if math.Abs(l.A.AntennaLossDB) > 1e-6 || math.Abs(l.B.AntennaLossDB) > 1e-6 || !l.A.AzimuthAligned || !l.B.TiltAligned {
				t.Errorf("aligned antenna losses %g, %g dB", l.A.AntennaLossDB, l.B.AntennaLossDB)
			}
			ra, rb := c.a.Radio, c.b.Radio
			if ra == nil {
				ra, rb = radio(c.a.RadioID), radio(c.b.RadioID)
			}
			chA, _ := ra.Channel(c.chMHz)
			chB, _ := rb.Channel(c.chMHz)
			if len(l.Modes) != len(chA.Modes) {
				t.Fatalf("%d modes, the radio has %d", len(l.Modes), len(chA.Modes))
			}
			loss := fs + knife + link.GasAttenuationDB
			want := -1
			t.Logf("%s: %.3f km, FSPL %.2f dB, knife edge %.2f dB, gas %.3f dB, gains %.1f/%.1f dBi, cables %.1f/%.1f dB",
				c.name, l.DistanceKm, fs, knife, link.GasAttenuationDB, gainA, gainB, c.a.CableLossDB, c.b.CableLossDB)
			for i, m := range l.Modes {
				ma, mb := chA.Modes[i], chB.Modes[i]
				rxAB := ma.TxPowerDBm - c.a.CableLossDB + gainA - loss + gainB - c.b.CableLossDB
				rxBA := mb.TxPowerDBm - c.b.CableLossDB + gainB - loss + gainA - c.a.CableLossDB
				fm := math.Min(rxAB-mb.SensitivityDBm, rxBA-ma.SensitivityDBm)
				if m.Name != ma.Name || math.Abs(m.AB.RxLevelDBm-rxAB) > tol || math.Abs(m.BA.RxLevelDBm-rxBA) > tol ||
					math.Abs(m.FadeMarginDB-fm) > tol || m.ThroughputMbps != ma.ThroughputMbps {
					t.Errorf("%s: rx %.3f/%.3f dBm, margin %.3f dB; by hand %.3f/%.3f, %.3f", m.Name, m.AB.RxLevelDBm, m.BA.RxLevelDBm, m.FadeMarginDB, rxAB, rxBA, fm)
				}
				o := link.Outage(fm)
				if av := m.Availability; math.Abs(av.AvailabilityPct-o.AvailabilityPct) > 1e-6 || av.Bound != string(o.Bound) ||
					math.Abs(av.OutageMinutesPerYear-o.OutageMinutesPerYear) > 0.01 {
					t.Errorf("%s: availability %.6f %% (%s), itur at the hand margin %.6f %% (%s)", m.Name, av.AvailabilityPct, av.Bound, o.AvailabilityPct, o.Bound)
				}
				if o.AvailabilityPct >= appliance.DefaultPTPTargetPct && o.Bound != itur.AtMost {
					want = i
				}
				t.Logf("  %-16s %7.1f Mbit/s  Rx %8.2f dBm (sens %6.1f)  margin %6.2f dB  availability %9.5f %% %-8s %8.1f min/yr",
					m.Name, m.ThroughputMbps, m.AB.RxLevelDBm, mb.SensitivityDBm, m.FadeMarginDB, m.Availability.AvailabilityPct, m.Availability.Bound, m.Availability.OutageMinutesPerYear)
			}
			if l.Recommended != want {
				t.Errorf("recommended mode %d, want %d", l.Recommended, want)
			}
			codes := appliance.WarningCodes(l.Warnings)
			if !slices.Contains(codes, appliance.WarnR001Annex1) {
				t.Errorf("no R0.01 warning: %v", codes)
			}
			if c.obstructed {
				for _, w := range []string{appliance.WarnFSPLObstructed, appliance.WarnClearanceRule, appliance.WarnAvailabilityObstructed} {
					if !slices.Contains(codes, w) {
						t.Errorf("obstructed path without %s: %v", w, codes)
					}
				}
			} else if slices.Contains(codes, appliance.WarnFSPLObstructed) || slices.Contains(codes, appliance.WarnAvailabilityObstructed) {
				t.Errorf("clear path with obstruction warnings: %v", codes)
			}
			if len(l.Required) != 3 || l.Required[0].AvailabilityPct != 99.9 || !(l.Required[0].FadeMarginDB < l.Required[1].FadeMarginDB) ||
				!(l.Required[1].FadeMarginDB < l.Required[2].FadeMarginDB) || l.Required[2].Bound != "at_least" {
				t.Errorf("required margins %+v", l.Required)
			}
		})
	}
}

func antennaOf(t testing.TB, s *ptp.Service, e appliance.PTPEnd) *appliance.Antenna {
	t.Helper()
	if e.Antenna != nil {
		return e.Antenna
	}
	a, err := s.Equipment.Antenna("", e.AntennaID)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestIssue25_PTPAvailabilityMonotoneInMargin: as the cable loss at one
// end grows, every mode's fade margin falls and its availability never
// rises; across the modes of one answer, a smaller margin never has the
// higher availability.
func TestIssue25_PTPAvailabilityMonotoneInMargin(t *testing.T) {
	s := service(t)
	c := rioPaths(t)[0]
	prev := make([]float64, 8)
	for i := range prev {
		prev[i] = math.Inf(1)
	}
	prevMargin := math.Inf(1)
	for loss := 0.0; loss <= 50; loss += 0.25 {
		a := c.a
		a.CableLossDB = loss
		l, err := s.Plan(context.Background(), appliance.PTPRequest{A: a, B: c.b, FreqMHz: c.freq, ChannelMHz: c.chMHz})
		if err != nil {
			t.Fatal(err)
		}
		if !(l.Modes[0].FadeMarginDB < prevMargin) {
			t.Fatalf("cable %g dB: margin %g did not fall from %g", loss, l.Modes[0].FadeMarginDB, prevMargin)
		}
		prevMargin = l.Modes[0].FadeMarginDB
		for i, m := range l.Modes {
			if m.Availability.AvailabilityPct > prev[i] {
				t.Errorf("cable %g dB, %s: availability rose to %.7f %% from %.7f %%", loss, m.Name, m.Availability.AvailabilityPct, prev[i])
			}
			prev[i] = m.Availability.AvailabilityPct
		}
		ms := slices.Clone(l.Modes)
		slices.SortFunc(ms, func(x, y appliance.PTPMode) int { return cmpF(x.FadeMarginDB, y.FadeMarginDB) })
		for i := 1; i < len(ms); i++ {
			if ms[i].Availability.AvailabilityPct < ms[i-1].Availability.AvailabilityPct {
				t.Errorf("cable %g dB: %s (%.2f dB) less available than %s (%.2f dB)", loss, ms[i].Name, ms[i].FadeMarginDB, ms[i-1].Name, ms[i-1].FadeMarginDB)
			}
		}
	}
	if prev[0] != 0 {
		t.Errorf("50 dB of cable loss leaves QPSK %.4f %% available", prev[0])
	}
}

func cmpF(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestPTPTargetPicksTheMode: a lower target admits faster modes; the
// recommended mode meets it and the next one does not.
func TestPTPTargetPicksTheMode(t *testing.T) {
	s := service(t)
	c := rioPaths(t)[0]
	last := -2
	for _, target := range []float64{99.999, 99.995, 99.99, 99.9, 99} {
		l, err := s.Plan(context.Background(), appliance.PTPRequest{A: c.a, B: c.b, FreqMHz: c.freq, ChannelMHz: c.chMHz, AvailabilityTargetPct: target})
		if err != nil {
			t.Fatal(err)
		}
		r := l.Recommended
		if r < last {
			t.Errorf("target %g: mode %d, slower than %d at a stricter target", target, r, last)
		}
		last = r
		if r >= 0 && !l.Modes[r].Availability.MeetsTarget || r+1 < len(l.Modes) && l.Modes[r+1].Availability.MeetsTarget {
			t.Errorf("target %g: recommended %d does not split the modes", target, r)
		}
		if !slices.ContainsFunc(l.Required, func(m appliance.PTPRequiredMargin) bool { return m.AvailabilityPct == target }) {
			t.Errorf("target %g not among the required margins %+v", target, l.Required)
		}
	}
	if last != 7 {
		t.Errorf("at 99 %% the fastest mode should do, got %d", last)
	}
}

// TestPTPPointing: an antenna pointed 2° off the other end loses what its
// pattern says there, and the warning says so; an aligned one loses
// nothing.
func TestPTPPointing(t *testing.T) {
	s := service(t)
	c := rioPaths(t)[0]
	aligned, err := s.Plan(context.Background(), appliance.PTPRequest{A: c.a, B: c.b, FreqMHz: c.freq, ChannelMHz: c.chMHz})
	if err != nil {
		t.Fatal(err)
	}
	a := c.a
	a.AzimuthDeg = math.Mod(aligned.A.BearingDeg+2, 360)
	off, err := s.Plan(context.Background(), appliance.PTPRequest{A: a, B: c.b, FreqMHz: c.freq, ChannelMHz: c.chMHz})
	if err != nil {
		t.Fatal(err)
	}
	ant := antennaOf(t, s, c.a)
	rad := ant.Radiator(a.AzimuthDeg, aligned.A.TiltDeg)
	want := rad.LossDB(aligned.A.BearingDeg, aligned.A.ElevationDeg)
	// F.699-8 for 38 dBi at 2°: 2 dB above the 3 dB beamwidth of about 2.2°.
	if math.Abs(off.A.AntennaLossDB-want) > 1e-9 || want < 3 || off.A.AzimuthAligned || !off.A.TiltAligned {
		t.Errorf("loss %g dB, pattern %g dB", off.A.AntennaLossDB, want)
	}
	d := aligned.Modes[0].AB.RxLevelDBm - off.Modes[0].AB.RxLevelDBm
	if math.Abs(d-want) > 1e-9 {
		t.Errorf("received level fell %g dB, want %g", d, want)
	}
	if !slices.Contains(appliance.WarningCodes(off.Warnings), appliance.WarnAntennaMisaligned) ||
		slices.Contains(appliance.WarningCodes(aligned.Warnings), appliance.WarnAntennaMisaligned) {
		t.Errorf("warnings %v / %v", appliance.WarningCodes(off.Warnings), appliance.WarningCodes(aligned.Warnings))
	}
}

// TestPTPClearanceRules: the minimum heights of each rule meet it, and
// the k = 4/3 rules agree with the planner's path check.
func TestPTPClearanceRules(t *testing.T) {
	s := service(t)
	for _, c := range rioPaths(t) {
		l, err := s.Plan(context.Background(), appliance.PTPRequest{A: c.a, B: c.b, FreqMHz: c.freq, ChannelMHz: c.chMHz})
		if err != nil {
			t.Fatal(err)
		}
		if len(l.Clearance) != 5 {
			t.Fatalf("%d rules", len(l.Clearance))
		}
		if l.Clearance[0].MinHeightB != l.Path.RxMinLOS || l.Clearance[1].MinHeightA != l.Path.TxMinFresnel60 ||
			math.Abs(l.Clearance[1].ClearanceF1-l.Path.Obstacle.ClearanceF1) > 1e-12 {
			t.Errorf("%s: rules %+v, path check %+v", c.name, l.Clearance[:2], l.Path)
		}
		for _, r := range l.Clearance {
			if r.Met != (r.ClearanceF1 >= r.F1Fraction) {
				t.Errorf("%s: %+v", c.name, r)
			}
			if !r.MinHeightB.Achievable {
				continue
			}
			b := c.b
			b.HeightM = r.MinHeightB.HeightM
			if b.HeightM == 0 {
				continue
			}
			l2, err := s.Plan(context.Background(), appliance.PTPRequest{A: c.a, B: b, FreqMHz: c.freq, ChannelMHz: c.chMHz})
			if err != nil {
				t.Fatal(err)
			}
			for _, r2 := range l2.Clearance {
				if r2.KFactor == r.KFactor && r2.F1Fraction == r.F1Fraction && !r2.Met {
					t.Errorf("%s: b at its minimum height %g m misses %+v", c.name, b.HeightM, r2)
				}
			}
		}
	}
}

// TestPTPRefusals: bad requests are refused naming every bad field.
func TestPTPRefusals(t *testing.T) {
	s := service(t)
	c := rioPaths(t)[0]
	ok := appliance.PTPRequest{A: c.a, B: c.b, FreqMHz: c.freq, ChannelMHz: c.chMHz}
	short := &appliance.Radio{Name: "one mode", Bands: []appliance.FreqRange{{MinMHz: 17700, MaxMHz: 19700}},
		Channels: []appliance.RadioChannel{{WidthMHz: 28, Modes: []appliance.RadioMode{{Name: "QPSK", TxPowerDBm: 20, SensitivityDBm: -80, ThroughputMbps: 40}}}}}
	for _, tc := range []struct {
		name   string
		edit   func(r *appliance.PTPRequest)
		fields []string
	}{
		{"no radio", func(r *appliance.PTPRequest) { r.A.RadioID = "" }, []string{"a.radio_id"}},
		{"two antennas", func(r *appliance.PTPRequest) { r.B.Antenna = inlineDish11(t) }, []string{"b.antenna"}},
		{"unknown radio", func(r *appliance.PTPRequest) { r.B.RadioID = "radio_0123456789abcdef" }, []string{"b.radio_id"}},
		{"unknown antenna", func(r *appliance.PTPRequest) { r.A.AntennaID = "ant_0123456789abcdef" }, []string{"a.antenna_id"}},
		{"width the radio lacks", func(r *appliance.PTPRequest) { r.ChannelMHz = 30 }, []string{"channel_mhz"}},
		{"frequency the radio does not tune", func(r *appliance.PTPRequest) { r.FreqMHz = 15000 }, []string{"frequency_mhz"}},
		{"b lacks a's modes", func(r *appliance.PTPRequest) { r.B.RadioID, r.B.Radio = "", short }, []string{"b.radio_id"}},
		{"bad inline radio", func(r *appliance.PTPRequest) {
			r.A.RadioID, r.A.Radio = "", &appliance.Radio{Name: "x", Bands: []appliance.FreqRange{{MinMHz: 1, MaxMHz: 2}}}
		}, []string{"a.radio.bands[0].min_mhz", "a.radio.channels"}},
		{"heights, angles, cable", func(r *appliance.PTPRequest) {
			r.A.HeightM, r.B.AzimuthDeg, r.B.TiltDeg, r.A.CableLossDB = 0, 360, -91, -1
		}, []string{"a.height_m", "b.azimuth_deg", "b.tilt_deg", "a.cable_loss_db"}},
		{"same site", func(r *appliance.PTPRequest) { r.B.Pos = r.A.Pos }, []string{"b"}},
		{"polarization, engine, target, rain", func(r *appliance.PTPRequest) {
			r.Polarization, r.Engine, r.AvailabilityTargetPct, r.R001MMH = "circular", "p1411", 100, -1
		}, []string{"polarization", "engine", "availability_target_pct", "r001_mmh"}},
		{"station with a line break", func(r *appliance.PTPRequest) { r.A.AnatelStation = "12\n34" }, []string{"a.anatel_station"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := ok
			tc.edit(&r)
			_, err := s.Plan(context.Background(), r)
			var ve *appliance.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("error %v", err)
			}
			var got []string
			for _, f := range ve.Fields {
				got = append(got, f.Field)
			}
			for _, f := range tc.fields {
				if !slices.Contains(got, f) {
					t.Errorf("fields %v, want %s (%v)", got, f, err)
				}
			}
		})
	}
}

// TestPTPWithoutAvailability: at 900 MHz the ITU-R methods do not apply:
// the answer says so, has no availability and recommends the fastest
// mode that closes in clear air.
func TestPTPWithoutAvailability(t *testing.T) {
	s := service(t)
	r := &appliance.Radio{Name: "900 MHz radio", Bands: []appliance.FreqRange{{MinMHz: 902, MaxMHz: 928}},
		Channels: []appliance.RadioChannel{{WidthMHz: 5, Modes: []appliance.RadioMode{
			{Name: "BPSK", TxPowerDBm: 27, SensitivityDBm: -100, ThroughputMbps: 2},
			{Name: "64-QAM", TxPowerDBm: 24, SensitivityDBm: -75, ThroughputMbps: 12}}}}}
	c := rioPaths(t)[1]
	a, b := c.a, c.b
	a.RadioID, a.Radio, a.AntennaID, a.Antenna = "", r, "builtin:omni-10dbi", nil
	b.RadioID, b.Radio, b.AntennaID, b.Antenna = "", r, "builtin:omni-10dbi", nil
	l, err := s.Plan(context.Background(), appliance.PTPRequest{A: a, B: b, FreqMHz: 915, ChannelMHz: 5})
	if err != nil {
		t.Fatal(err)
	}
	if l.Availability || l.GasAttenuationDB != 0 || l.Climate != nil || len(l.Required) != 0 || l.Modes[0].Availability != nil {
		t.Errorf("availability computed at 915 MHz: %+v", l)
	}
	if !slices.Contains(appliance.WarningCodes(l.Warnings), appliance.WarnAvailabilityNotComputed) {
		t.Errorf("warnings %v", appliance.WarningCodes(l.Warnings))
	}
	want := -1
	for i, m := range l.Modes {
		if m.FadeMarginDB > 0 {
			want = i
		}
	}
	if l.Recommended != want || want < 0 {
		t.Errorf("recommended %d, want %d (%+v)", l.Recommended, want, l.Modes)
	}
	if !strings.Contains(strings.Join(l.Sources, "\n"), "given in the request") {
		t.Errorf("sources %v", l.Sources)
	}
}

// BenchmarkPlan: one 15 km Rio link (Sumaré to Galeão, 11.2 GHz) on the
// real embedded SRTM3 sample, fspl, with its availability for 8 modes
// and 3 targets. Issue 25's goal is 20 ms an answer.
func BenchmarkPlan(b *testing.B) {
	s := service(b)
	c := rioPaths(b)[1]
	req := appliance.PTPRequest{A: c.a, B: c.b, FreqMHz: c.freq, ChannelMHz: c.chMHz}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Plan(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPlanP1812 is BenchmarkPlan with the P.1812 engine.
func BenchmarkPlanP1812(b *testing.B) {
	s := service(b)
	c := rioPaths(b)[1]
	req := appliance.PTPRequest{A: c.a, B: c.b, FreqMHz: c.freq, ChannelMHz: c.chMHz, Engine: appliance.EngineP1812}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Plan(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}
