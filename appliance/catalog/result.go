package catalog

import (
	"math"
	"sort"

	"linkplan/appliance"
)

// Reject is one input row (or document) that an importer refused, or, in
// Result.Warnings, one field it ignored.
type Reject struct {
	Line   int    // 1-based line number in the input (for JSON: the line where the document starts)
	Reason string // why, in words
}

// Sector is one licensed emission of a station: one row of a per-emission
// export. Unknown numbers are NaN.
type Sector struct {
	Line         int     // input line of the emission
	Technology   string  // e.g. "GSM", "WCDMA", "LTE", "NR"; "" when unknown
	Emission     string  // ITU emission designator, e.g. "5M00G7W"
	FreqMHz      float64 // transmit (downlink) centre frequency, MHz
	BandMHz      float64 // nominal band of FreqMHz, MHz (700, 850, ..., 3500); NaN when outside every SMP band
	AzimuthDeg   float64 // main-lobe bearing, degrees clockwise from north
	TiltDeg      float64 // downtilt, degrees, positive down (MOSAICO AnguloElevacao)
	HeightM      float64 // antenna height above ground, metres
	GainDBi      float64 // antenna gain, dBi
	BeamwidthDeg float64 // horizontal half-power beamwidth, degrees (MOSAICO AnguloMeiaPotenciaAntena)
	FrontBackDB  float64 // front-to-back ratio, dB (MOSAICO FrenteCostaAntena)
	TxPowerW     float64 // transmitter power, watts
	ERPDBm       float64 // effective radiated power, dBm: 10·log10(TxPowerW·1000) + GainDBi − 2.15
	Polarization string  // e.g. "X", "V"
}

// Station is one imported tower together with where it came from.
type Station struct {
	Tower   appliance.Tower
	Line    int      // input line of the station's first row
	Sectors []Sector // per-emission details in input order; nil for one-row-per-station formats
	Flags   []string // non-fatal findings, e.g. "coordinates 75 km from municipality seat; placed at centroid"
}

// Result is what an importer returns: the stations it read, the rows it
// refused and the fields it ignored. Nothing is dropped silently: every input
// row ends up in a station (or a sector of one) or in Rejects.
type Result struct {
	Format   Format
	Rows     int       // data rows (or JSON documents) read, header excluded
	Stations []Station // in order of first appearance
	Rejects  []Reject  // refused rows, by line
	Warnings []Reject  // accepted rows with an ignored field (bad date, ...)
}

// Towers returns the stations' towers in order.
func (r *Result) Towers() []appliance.Tower {
	out := make([]appliance.Tower, len(r.Stations))
	for i := range r.Stations {
		out[i] = r.Stations[i].Tower
	}
	return out
}

// MarkSynthetic relabels every tower as synthetic: source "synthetic", id
// "synthetic:<key>", Synthetic true and provenance set to provenance. Use it
// when importing a file produced by WriteERBs so that generated data can
// never pass for regulator records.
func (r *Result) MarkSynthetic(provenance string) {
	for i := range r.Stations {
		t := &r.Stations[i].Tower
		key := t.ID
		if _, k, ok := cut(t.ID); ok {
			key = k
		}
		t.ID = appliance.TowerID(appliance.SourceSynthetic, key)
		t.Source = appliance.SourceSynthetic
		t.Synthetic = true
		t.Provenance = provenance
	}
}

func cut(id string) (string, string, bool) {
	for i := 0; i < len(id); i++ {
		if id[i] == ':' {
			return id[:i], id[i+1:], true
		}
	}
	return id, "", false
}

// newRegulatorTower returns a tower with the regulator defaults: unknown
// numbers NaN, default height, no position yet.
func newRegulatorTower(station, provenance string) appliance.Tower {
	return appliance.Tower{
		ID:            appliance.TowerID(appliance.SourceAnatel, station),
		Source:        appliance.SourceAnatel,
		Lat:           math.NaN(),
		Lon:           math.NaN(),
		HeightM:       appliance.DefaultTowerHeightM,
		ERPDBm:        math.NaN(),
		AzimuthDeg:    math.NaN(),
		TiltDeg:       math.NaN(),
		BeamwidthDeg:  math.NaN(),
		FrontBackDB:   math.NaN(),
		Placement:     appliance.PlacementCentroid,
		Provenance:    provenance,
		StationNumber: station,
	}
}

// ERPDBm converts a transmitter power in watts and an antenna gain in dBi to
// the effective radiated power relative to a half-wave dipole, in dBm:
// 10·log10(P_W·1000) + G_dBi − 2.15. Feeder and cable losses are not in the
// Anatel records and are ignored (the result is an upper bound). It returns
// NaN when the power is not positive or either input is NaN.
func ERPDBm(txPowerW, gainDBi float64) float64 {
	if !(txPowerW > 0) || math.IsNaN(gainDBi) {
		return math.NaN()
	}
	return 10*math.Log10(txPowerW*1000) + gainDBi - 2.15
}

// summarise derives a station's tower-level numbers from its sectors:
//   - ERPDBm: the largest sector ERP (the station's strongest emission);
//   - HeightM: the highest antenna (DefaultTowerHeightM when none is given);
//   - TiltDeg, BeamwidthDeg, FrontBackDB: those of the strongest emission
//     (first in input order on ties);
//   - TxPowerDBm, TxGainDBi (HasTx): the power and gain of that emission;
//   - AzimuthDeg: the common azimuth when every sector states the same one;
//     NaN (omnidirectional) when sectors point different ways (a multi-sector
//     site covers all directions) or any sector states none;
//   - BandsMHz, Technologies: the sorted sets over the sectors.
func summarise(t *appliance.Tower, sectors []Sector) {
	bestERP, bestIdx := math.Inf(-1), -1
	height := math.Inf(-1)
	az, azSet, azMixed := math.NaN(), false, false
	bands := map[float64]bool{}
	techs := map[string]bool{}
	for i := range sectors {
		s := &sectors[i]
		if !math.IsNaN(s.ERPDBm) && s.ERPDBm > bestERP {
			bestERP, bestIdx = s.ERPDBm, i
		}
		if !math.IsNaN(s.HeightM) && s.HeightM > height {
			height = s.HeightM
		}
		switch {
		case math.IsNaN(s.AzimuthDeg):
			azMixed = true
		case !azSet:
			az, azSet = s.AzimuthDeg, true
		case s.AzimuthDeg != az:
			azMixed = true
		}
		if !math.IsNaN(s.BandMHz) {
			bands[s.BandMHz] = true
		}
		if s.Technology != "" {
			techs[s.Technology] = true
		}
	}
	if bestIdx >= 0 {
		t.ERPDBm = bestERP
		s := &sectors[bestIdx]
		t.TiltDeg, t.BeamwidthDeg, t.FrontBackDB = s.TiltDeg, s.BeamwidthDeg, s.FrontBackDB
		// Its ERP came from both (ERPDBm is NaN otherwise).
		t.TxPowerDBm, t.TxGainDBi, t.HasTx = 10*math.Log10(s.TxPowerW*1000), s.GainDBi, true
	}
	if !math.IsInf(height, -1) {
		t.HeightM = height
	}
	if azSet && !azMixed {
		t.AzimuthDeg = az
	} else {
		t.AzimuthDeg = math.NaN()
	}
	t.BandsMHz = sortedFloats(bands)
	t.Technologies = sortedStrings(techs)
}

func sortedFloats(m map[float64]bool) []float64 {
	if len(m) == 0 {
		return nil
	}
	out := make([]float64, 0, len(m))
	for v := range m {
		out = append(out, v)
	}
	sort.Float64s(out)
	return out
}

func sortedStrings(m map[string]bool) []string {
	if len(m) == 0 {
		return nil
	}
	out := make([]string, 0, len(m))
	for v := range m {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

// NominalBandMHz maps a downlink frequency in MHz to the nominal SMP band it
// falls in, in MHz: 450, 700, 850, 900, 1800, 1900, 2100, 2300, 2600 or 3500.
// It returns NaN outside every band. Ranges (downlink, MHz): 450: 450–470;
// 700: 703–803; 850: 824–894; 900: 895–960; 1800: 1710–1880; 1900:
// 1880–1920; 2100: 1920–2200; 2300: 2300–2400; 2600: 2500–2690; 3500:
// 3300–3800.
func NominalBandMHz(freqMHz float64) float64 {
	switch f := freqMHz; {
	case f >= 450 && f <= 470:
		return 450
	case f >= 703 && f <= 803:
		return 700
	case f >= 824 && f <= 894:
		return 850
	case f > 894 && f <= 960:
		return 900
	case f >= 1710 && f < 1880:
		return 1800
	case f >= 1880 && f < 1920:
		return 1900
	case f >= 1920 && f <= 2200:
		return 2100
	case f >= 2300 && f <= 2400:
		return 2300
	case f >= 2500 && f <= 2690:
		return 2600
	case f >= 3300 && f <= 3800:
		return 3500
	}
	return math.NaN()
}

// normTechnology canonicalises a technology name: upper case, the MOSAICO
// typo "WDCMA" read as "WCDMA", generation labels mapped to technologies
// ("2G" GSM, "3G" UMTS, "4G" LTE, "5G" NR).
func normTechnology(s string) string {
	s = tidySpaces(s)
	switch u := upper(s); u {
	case "":
		return ""
	case "WDCMA":
		return "WCDMA"
	case "2G":
		return "GSM"
	case "3G":
		return "UMTS"
	case "4G":
		return "LTE"
	case "5G", "5G NR":
		return "NR"
	default:
		return u
	}
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 32
		}
	}
	return string(b)
}
