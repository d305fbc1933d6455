package equipment

import (
	"fmt"
	"math"

	"linkplan/appliance"
)

// builtinNote is the note every built-in record carries.
const builtinNote = "Built-in generic example computed from the formulas of the linkplan documentation (appliance/equipment); not a vendor's data sheet or claim. Copy its figures into your own equipment and replace them with your radio's and antenna's."

// Builtins returns the built-in generic examples (package doc,
// "Built-in examples"), fresh on every call.
func Builtins() ([]*appliance.Radio, []*appliance.Antenna) {
	radios := []*appliance.Radio{wifi5(), microwave(), eband()}
	antennas := []*appliance.Antenna{
		sectorAntenna("builtin:sector-65-17dbi", "Generic 65° sector, 17 dBi", 65, 17, 698, 3800),
		sectorAntenna("builtin:sector-90-16dbi", "Generic 90° sector, 16 dBi (5 GHz)", 90, 16, 4900, 6000),
		sectorAntenna("builtin:sector-120-14dbi", "Generic 120° sector, 14 dBi (5 GHz)", 120, 14, 4900, 6000),
		omniAntenna("builtin:omni-10dbi", "Generic omnidirectional, 10 dBi", 10, 698, 6000),
		dishAntenna("builtin:dish-23dbi", "Generic 23 dBi dish/panel (5 GHz CPE)", 23, 4900, 6000),
		dishAntenna("builtin:dish-30dbi", "Generic 30 dBi dish (0.6 m at 5.8 GHz)", 30, 4900, 6000),
		dishAntenna("builtin:dish-38dbi", "Generic 38 dBi dish (0.6 m at 18 GHz)", 38, 17700, 19700),
		dishAntenna("builtin:dish-44dbi", "Generic 44 dBi dish (1.2 m at 23 GHz, 0.3 m at 80 GHz)", 44, 21200, 86000),
	}
	return radios, antennas
}

func builtinAntenna(id, name string, gain, minMHz, maxMHz float64, p appliance.AntennaPattern, model string) *appliance.Antenna {
	a := &appliance.Antenna{ID: id, Name: name, GainDBi: gain, MinMHz: minMHz, MaxMHz: maxMHz, Notes: builtinNote,
		Pattern: p, Source: appliance.PatternSource{Format: "parametric", Model: model}, Builtin: true, Warnings: []appliance.Warning{}}
	a.SetStats()
	return a
}

// sectorAntenna: the 3GPP TR 36.814 sector, its vertical beamwidth from
// the gain (ITU-R F.1336 eq. 2b), 25 dB front-to-back, 20 dB vertical side
// lobes, no electrical tilt.
func sectorAntenna(id, name string, hbw, gain, minMHz, maxMHz float64) *appliance.Antenna {
	p := appliance.SectorPattern(hbw, appliance.VBeamwidthFromGainDeg(gain, hbw), appliance.GenericFrontBackDB, appliance.GenericVSideLobeDB, 0)
	return builtinAntenna(id, name, gain, minMHz, maxMHz, p, ModelSector)
}

// omniAntenna: flat horizontally, the vertical beamwidth from the gain
// (F.1336 eq. 1b), 20 dB side lobes.
func omniAntenna(id, name string, gain, minMHz, maxMHz float64) *appliance.Antenna {
	p := appliance.OmniPattern(appliance.VBeamwidthFromGainDeg(gain, 360), appliance.GenericVSideLobeDB, 0)
	return builtinAntenna(id, name, gain, minMHz, maxMHz, p, ModelOmni)
}

// dishAntenna: the ITU-R F.699-8 reference pattern of the gain.
func dishAntenna(id, name string, gain, minMHz, maxMHz float64) *appliance.Antenna {
	return builtinAntenna(id, name, gain, minMHz, maxMHz, appliance.DishPattern(gain), ModelDish)
}

// wifi5 is a 2×2 MIMO OFDM radio of the 5 GHz bands (IEEE 802.11ac
// VHT, two spatial streams, 800 ns guard interval). Sensitivity: the VHT
// receiver minimum input sensitivity per MCS of IEEE 802.11-2016 clause
// 21 (−82, −79, −77, −74, −70, −66, −65, −64, −59, −57 dBm at 20 MHz,
// +3 dB per doubling of the width); real radios are usually some dB
// better. Throughput: the PHY rate × 0.65 (MAC, TDD and protocol overhead
// of a point-to-point link, an assumption). Transmit power: 27 dBm,
// backed off at the dense modulations for linearity (25, 24, 23, 21,
// 20 dBm at MCS5..9), an assumption.
func wifi5() *appliance.Radio {
	names := []string{"MCS0 BPSK 1/2", "MCS1 QPSK 1/2", "MCS2 QPSK 3/4", "MCS3 16-QAM 1/2", "MCS4 16-QAM 3/4",
		"MCS5 64-QAM 2/3", "MCS6 64-QAM 3/4", "MCS7 64-QAM 5/6", "MCS8 256-QAM 3/4", "MCS9 256-QAM 5/6"}
	sens20 := []float64{-82, -79, -77, -74, -70, -66, -65, -64, -59, -57}
	power := []float64{27, 27, 27, 27, 27, 25, 24, 23, 21, 20}
	// data subcarriers × coded bits × rate per 4 µs symbol, 2 streams
	bitsPerSC := []float64{0.5, 1, 1.5, 2, 3, 4, 4.5, 5, 6, 20.0 / 3}
	r := &appliance.Radio{ID: "builtin:wifi5-2x2", Name: "Generic 5 GHz OFDM radio, 2×2 MIMO (802.11ac-like)",
		Notes: builtinNote, Builtin: true,
		Bands: []appliance.FreqRange{{MinMHz: 5150, MaxMHz: 5350}, {MinMHz: 5470, MaxMHz: 5725}, {MinMHz: 5725, MaxMHz: 5850}}}
	for k, w := range []struct {
		width float64
		sc    float64 // data subcarriers
	}{{20, 52}, {40, 108}, {80, 234}} {
		ch := appliance.RadioChannel{WidthMHz: w.width}
		for i := range names {
			if w.width == 20 && i == 9 {
				continue // MCS9 is not defined for 2 streams at 20 MHz
			}
			phy := w.sc * bitsPerSC[i] * 2 / 4 // Mbit/s: 2 streams, 4 µs symbols
			ch.Modes = append(ch.Modes, appliance.RadioMode{Name: names[i], TxPowerDBm: power[i],
				SensitivityDBm: sens20[i] + 3*float64(k), ThroughputMbps: math.Round(phy*0.65*10) / 10})
		}
		r.Channels = append(r.Channels, ch)
	}
	return r
}

// qamRadio is a single-carrier QAM radio whose thresholds follow from the
// thermal noise: sensitivity = −174 dBm/Hz + 10·log10(Rs) + NF + SNR(BER
// 10⁻⁶), the symbol rate Rs = width/1.2 (roll-off 0.2), the required SNR
// 10, 16.5, 19.5, 22.5, 25.5, 28.5, 31.5 and 34.5 dB for QPSK to 1024-QAM
// (coded), throughput Rs·log2(M)·0.9 (code rate), transmit power falling
// 1 dB per modulation step from maxPowerDBm.
func qamRadio(id, name string, bands []appliance.FreqRange, widths []float64, nfDB, maxPowerDBm float64) *appliance.Radio {
	mods := []struct {
		name string
		bits float64
		snr  float64
	}{{"QPSK", 2, 10}, {"16-QAM", 4, 16.5}, {"32-QAM", 5, 19.5}, {"64-QAM", 6, 22.5}, {"128-QAM", 7, 25.5},
		{"256-QAM", 8, 28.5}, {"512-QAM", 9, 31.5}, {"1024-QAM", 10, 34.5}}
	r := &appliance.Radio{ID: id, Name: name, Notes: builtinNote, Builtin: true, Bands: bands}
	for _, w := range widths {
		ch := appliance.RadioChannel{WidthMHz: w}
		rs := w * 1e6 / 1.2
		for i, m := range mods {
			sens := -174 + 10*math.Log10(rs) + nfDB + m.snr
			ch.Modes = append(ch.Modes, appliance.RadioMode{Name: m.name, TxPowerDBm: maxPowerDBm - float64(i),
				SensitivityDBm: math.Round(sens*10) / 10, ThroughputMbps: math.Round(rs*m.bits*0.9/1e5) / 10})
		}
		r.Channels = append(r.Channels, ch)
	}
	return r
}

func microwave() *appliance.Radio {
	return qamRadio("builtin:microwave-11-23ghz", "Generic licensed microwave radio, 11/18/23 GHz",
		[]appliance.FreqRange{{MinMHz: 10700, MaxMHz: 11700}, {MinMHz: 17700, MaxMHz: 19700}, {MinMHz: 21200, MaxMHz: 23600}},
		[]float64{7, 14, 28, 56, 112}, 6, 24)
}

func eband() *appliance.Radio {
	return qamRadio("builtin:eband-80ghz", "Generic E-band radio, 71–76/81–86 GHz",
		[]appliance.FreqRange{{MinMHz: 71000, MaxMHz: 76000}, {MinMHz: 81000, MaxMHz: 86000}},
		[]float64{250, 500, 1000, 2000}, 8, 18)
}

// checkBuiltins validates every built-in (the package's tests call it).
func checkBuiltins() error {
	r, a := Builtins()
	for _, x := range r {
		if err := x.Validate(); err != nil {
			return fmt.Errorf("built-in radio %s: %w", x.ID, err)
		}
	}
	for _, x := range a {
		if err := x.Validate(); err != nil {
			return fmt.Errorf("built-in antenna %s: %w", x.ID, err)
		}
	}
	return nil
}
