package appliance

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf8"
)

// Equipment catalogue (issue 25 scope 1): the radios and antennas an
// engineer plans with. A tenant keeps its own (appliance/equipment); a few
// built-in generic examples are visible to every tenant.

// Equipment id prefixes: a tenant's own records and the built-in examples.
const (
	RadioIDPrefix   = "radio_"
	AntennaIDPrefix = "ant_"
	BuiltinIDPrefix = "builtin:"
)

// FreqRange is a band of frequencies a radio tunes, MHz.
type FreqRange struct {
	MinMHz float64 // lowest centre frequency, MHz
	MaxMHz float64 // highest centre frequency, MHz
}

// RadioMode is one modulation and coding scheme of a radio at one channel
// width.
type RadioMode struct {
	Name           string  // e.g. "QPSK 1/2", "MCS7 64-QAM 5/6"
	TxPowerDBm     float64 // transmitter output at the antenna port in this mode, dBm
	SensitivityDBm float64 // receiver threshold of this mode, dBm (the level for its error-rate target)
	ThroughputMbps float64 // net throughput of the link in this mode, Mbit/s
}

// RadioChannel is the mode table of a radio at one channel width. Modes
// run from the most robust (lowest throughput) to the fastest.
type RadioChannel struct {
	WidthMHz float64 // channel width, MHz
	Modes    []RadioMode
}

// Radio is a radio model: where it tunes and, per channel width, what each
// modulation gives.
type Radio struct {
	ID       string // RadioIDPrefix + 16 hex digits, or BuiltinIDPrefix + a name
	TenantID string // owner; "" for a built-in
	Name     string
	Make     string // manufacturer, when known
	Model    string
	Notes    string
	Bands    []FreqRange
	Channels []RadioChannel // distinct widths, ascending
	// ACSDB is the adjacent-channel selectivity of the radio's receiver
	// from its data sheet, dB: how much weaker a signal in the adjacent
	// channel reaches the demodulator than in its own (3GPP TS 36.101
	// §7.5 defines it for LTE terminals). 0: not stated (an interference
	// computation then assumes its documented default and warns).
	ACSDB   float64
	Builtin bool // a generic example shipped with the appliance (read-only)
	// CreatedUnix and UpdatedUnix are epoch seconds.
	CreatedUnix, UpdatedUnix int64
}

// Channel returns the mode table for a channel width, MHz, or false.
func (r *Radio) Channel(widthMHz float64) (*RadioChannel, bool) {
	for i := range r.Channels {
		if r.Channels[i].WidthMHz == widthMHz {
			return &r.Channels[i], true
		}
	}
	return nil, false
}

// Tunes reports whether freqMHz lies in one of the radio's bands.
func (r *Radio) Tunes(freqMHz float64) bool {
	for _, b := range r.Bands {
		if freqMHz >= b.MinMHz && freqMHz <= b.MaxMHz {
			return true
		}
	}
	return false
}

// Catalogue limits, checked by Validate.
const (
	MaxEquipmentText   = 100 // characters of a name, make or model
	MaxEquipmentNotes  = 1000
	MaxRadioBands      = 8
	MaxRadioChannels   = 16
	MaxRadioModes      = 32
	MinEquipmentFreqMH = 30.0     // MHz
	MaxEquipmentFreqMH = 100000.0 // MHz (E-band 71–86 GHz included)
	MaxRadioACSDB      = 120.0    // dB, an adjacent-channel selectivity
)

func checkText(v *ValidationError, field, s string, max int, required bool) {
	switch {
	case required && strings.TrimSpace(s) == "":
		v.Add(field, "is required")
	case !utf8.ValidString(s):
		v.Add(field, "must be valid UTF-8")
	case utf8.RuneCountInString(s) > max:
		v.Add(field, "must be at most %d characters", max)
	default:
		for _, r := range s {
			if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f {
				v.Add(field, "must not hold control characters")
				return
			}
		}
	}
}

func badNum(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) }

// Validate checks a radio's fields and names every bad one by its JSON
// path: name 1..100 characters, make/model at most 100, notes at most
// 1000; 1..8 bands within 30..100 000 MHz with min ≤ max; 1..16 channel
// widths of 0.01..2000 MHz, distinct; 1..32 modes per width with a name
// of 1..100 characters, transmit power −30..60 dBm, sensitivity
// −160..0 dBm and throughput 0..100 000 Mbit/s, listed by strictly rising
// throughput with a sensitivity that never falls (a faster mode never
// needs less signal); acs_db 0 (not stated) or above 0 up to 120 dB.
func (r *Radio) Validate() error {
	v := &ValidationError{}
	checkText(v, "name", r.Name, MaxEquipmentText, true)
	checkText(v, "make", r.Make, MaxEquipmentText, false)
	checkText(v, "model", r.Model, MaxEquipmentText, false)
	checkText(v, "notes", r.Notes, MaxEquipmentNotes, false)
	switch n := len(r.Bands); {
	case n == 0:
		v.Add("bands", "at least one band is required")
	case n > MaxRadioBands:
		v.Add("bands", "at most %d bands, got %d", MaxRadioBands, n)
	}
	for i, b := range r.Bands[:min(len(r.Bands), MaxRadioBands)] {
		f := fmt.Sprintf("bands[%d]", i)
		for _, x := range []struct {
			name string
			v    float64
		}{{"min_mhz", b.MinMHz}, {"max_mhz", b.MaxMHz}} {
			if badNum(x.v) || x.v < MinEquipmentFreqMH || x.v > MaxEquipmentFreqMH {
				v.Add(f+"."+x.name, "must be %g..%g MHz, got %g", MinEquipmentFreqMH, MaxEquipmentFreqMH, x.v)
			}
		}
		if b.MinMHz > b.MaxMHz {
			v.Add(f, "min_mhz %g is above max_mhz %g", b.MinMHz, b.MaxMHz)
		}
	}
	if badNum(r.ACSDB) || r.ACSDB < 0 || r.ACSDB > MaxRadioACSDB {
		v.Add("acs_db", "must be 0 (not stated) or up to %g dB, got %g", MaxRadioACSDB, r.ACSDB)
	}
	switch n := len(r.Channels); {
	case n == 0:
		v.Add("channels", "at least one channel width is required")
	case n > MaxRadioChannels:
		v.Add("channels", "at most %d channel widths, got %d", MaxRadioChannels, n)
	}
	seen := map[float64]bool{}
	for i, c := range r.Channels[:min(len(r.Channels), MaxRadioChannels)] {
		f := fmt.Sprintf("channels[%d]", i)
		if badNum(c.WidthMHz) || c.WidthMHz < 0.01 || c.WidthMHz > 2000 {
			v.Add(f+".width_mhz", "must be 0.01..2000 MHz, got %g", c.WidthMHz)
		} else if seen[c.WidthMHz] {
			v.Add(f+".width_mhz", "%g MHz is listed twice", c.WidthMHz)
		}
		seen[c.WidthMHz] = true
		switch n := len(c.Modes); {
		case n == 0:
			v.Add(f+".modes", "at least one mode is required")
		case n > MaxRadioModes:
			v.Add(f+".modes", "at most %d modes, got %d", MaxRadioModes, n)
		}
		for j, m := range c.Modes[:min(len(c.Modes), MaxRadioModes)] {
			g := fmt.Sprintf("%s.modes[%d]", f, j)
			checkText(v, g+".name", m.Name, MaxEquipmentText, true)
			if badNum(m.TxPowerDBm) || m.TxPowerDBm < -30 || m.TxPowerDBm > 60 {
				v.Add(g+".tx_power_dbm", "must be -30..60 dBm, got %g", m.TxPowerDBm)
			}
			if badNum(m.SensitivityDBm) || m.SensitivityDBm < -160 || m.SensitivityDBm > 0 {
				v.Add(g+".sensitivity_dbm", "must be -160..0 dBm, got %g", m.SensitivityDBm)
			}
			if badNum(m.ThroughputMbps) || m.ThroughputMbps < 0 || m.ThroughputMbps > 100000 {
				v.Add(g+".throughput_mbps", "must be 0..100000 Mbit/s, got %g", m.ThroughputMbps)
			}
			if j > 0 {
				p := c.Modes[j-1]
				if m.ThroughputMbps <= p.ThroughputMbps {
					v.Add(g+".throughput_mbps", "modes must be listed by rising throughput (%g after %g)", m.ThroughputMbps, p.ThroughputMbps)
				}
				if m.SensitivityDBm < p.SensitivityDBm {
					v.Add(g+".sensitivity_dbm", "a faster mode cannot need less signal (%g dBm after %g dBm)", m.SensitivityDBm, p.SensitivityDBm)
				}
			}
		}
	}
	return v.Err()
}

// PatternSource says where an antenna's pattern came from.
type PatternSource struct {
	// Format is the file format ("msi", "nsma", "radiomobile") or
	// "parametric" for a pattern synthesised from the figures.
	Format   string
	FileName string // as uploaded, when imported
	SHA256   string // hex digest of the imported file
	// Model names the reference pattern of a parametric antenna
	// ("3gpp-sector", "omni", "itu-f699-dish").
	Model string
}

// Antenna is an antenna model: its gain and pattern, with the data-sheet
// figures read off the pattern.
type Antenna struct {
	ID       string // AntennaIDPrefix + 16 hex digits, or BuiltinIDPrefix + a name
	TenantID string // owner; "" for a built-in
	Name     string
	Make     string
	Model    string
	Notes    string
	// GainDBi is the peak gain, dBi (a file's dBd figure plus 2.15).
	GainDBi float64
	// FreqMHz is the frequency of the pattern, MHz (0: not stated);
	// MinMHz..MaxMHz the band the antenna is meant for (0: not stated).
	FreqMHz, MinMHz, MaxMHz float64
	Polarization            string // as stated, e.g. "X", "V", "+45"
	// ElectricalTiltDeg is the electrical downtilt built into the
	// pattern, degrees (the vertical cut's front peak).
	ElectricalTiltDeg float64
	// HBeamwidthDeg, VBeamwidthDeg and FrontToBackDB are read off the
	// pattern (AntennaPattern.Stats): 3 dB beamwidths, degrees (360: no 3 dB
	// fall), and front-to-back ratio, dB.
	HBeamwidthDeg, VBeamwidthDeg, FrontToBackDB float64
	Pattern                                     AntennaPattern
	Source                                      PatternSource
	// Warnings say what an import noticed (a non-normalised pattern, a
	// stated beamwidth the pattern does not show, a unit assumed); they
	// travel with the antenna.
	Warnings []Warning
	Builtin  bool
	// CreatedUnix and UpdatedUnix are epoch seconds.
	CreatedUnix, UpdatedUnix int64
}

// Directional reports whether the horizontal pattern falls 3 dB below its
// peak somewhere (a sector or a dish, not an omni).
func (a *Antenna) Directional() bool { return a.HBeamwidthDeg < 360 }

// Radiator returns the antenna mounted at azimuthDeg with mechanical
// downtilt tiltDeg (NaN: none).
func (a *Antenna) Radiator(azimuthDeg, tiltDeg float64) Radiator {
	label := a.Name
	if a.Builtin {
		label += " (built-in generic example)"
	}
	return NewPatternRadiator(&a.Pattern, azimuthDeg, tiltDeg, label)
}

// SetStats fills the figures read off the pattern.
func (a *Antenna) SetStats() {
	s := a.Pattern.Stats()
	a.HBeamwidthDeg = round3(s.HBeamwidthDeg)
	a.VBeamwidthDeg = round3(s.VBeamwidthDeg)
	a.FrontToBackDB = round3(s.FrontToBackDB)
	a.ElectricalTiltDeg = round3(s.VPeakDeg)
}

func round3(x float64) float64 { return Round(x, 3) }

// Validate checks an antenna's fields and pattern and names every bad one
// by its JSON path: name 1..100 characters, make/model/polarization at
// most 100, notes at most 1000; gain −20..70 dBi; frequencies 0 or
// 30..100 000 MHz with min ≤ max; each cut 4..MaxPatternPoints samples at
// strictly ascending angles in [0, 360) with gaps of at most 45°, and
// attenuations of −60..200 dB.
func (a *Antenna) Validate() error {
	v := &ValidationError{}
	checkText(v, "name", a.Name, MaxEquipmentText, true)
	checkText(v, "make", a.Make, MaxEquipmentText, false)
	checkText(v, "model", a.Model, MaxEquipmentText, false)
	checkText(v, "polarization", a.Polarization, MaxEquipmentText, false)
	checkText(v, "notes", a.Notes, MaxEquipmentNotes, false)
	if badNum(a.GainDBi) || a.GainDBi < -20 || a.GainDBi > 70 {
		v.Add("gain_dbi", "must be -20..70 dBi, got %g", a.GainDBi)
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"frequency_mhz", a.FreqMHz}, {"min_mhz", a.MinMHz}, {"max_mhz", a.MaxMHz}} {
		if badNum(f.v) || f.v != 0 && (f.v < MinEquipmentFreqMH || f.v > MaxEquipmentFreqMH) {
			v.Add(f.name, "must be 0 (not stated) or %g..%g MHz, got %g", MinEquipmentFreqMH, MaxEquipmentFreqMH, f.v)
		}
	}
	if a.MinMHz != 0 && a.MaxMHz != 0 && a.MinMHz > a.MaxMHz {
		v.Add("min_mhz", "min_mhz %g is above max_mhz %g", a.MinMHz, a.MaxMHz)
	}
	a.Pattern.Validate("pattern.", v)
	return v.Err()
}

// RadioCatalogue resolves the catalogue radios a request names
// (appliance/equipment implements it).
type RadioCatalogue interface {
	// Radio returns the radio id as tenantID sees it (a built-in or one of
	// the tenant's own), or an error matching ErrNotFound.
	Radio(tenantID, id string) (*Radio, error)
}

// AntennaCatalogue resolves the catalogue antennas towers name
// (appliance/equipment implements it).
type AntennaCatalogue interface {
	// Antenna returns the antenna id as tenantID sees it (a built-in or
	// one of the tenant's own), or an error matching ErrNotFound.
	Antenna(tenantID, id string) (*Antenna, error)
}

// WarnAntennaUnavailable: a tower names a catalogue antenna that could not
// be read; its generic antenna was used.
const WarnAntennaUnavailable = "antenna_unavailable"

// TowerRadiator returns the antenna tower t radiates with: the catalogue
// antenna it names (read through cat, as its owner tenant sees it)
// mounted at its azimuth with its tilt as the mechanical downtilt, else
// its generic antenna (Tower.GenericRadiator). When the named antenna
// cannot be read (cat nil or an error) the generic antenna stands in and
// the warning says so.
func TowerRadiator(t *Tower, cat AntennaCatalogue) (Radiator, *Warning) {
	if t.AntennaID == "" {
		return t.GenericRadiator(), nil
	}
	if cat != nil {
		if a, err := cat.Antenna(t.OwnerTenantID, t.AntennaID); err == nil {
			return a.Radiator(t.AzimuthDeg, t.TiltDeg), nil
		}
	}
	return t.GenericRadiator(), &Warning{Code: WarnAntennaUnavailable, Message: fmt.Sprintf(
		"tower %s names catalogue antenna %s, which could not be read: its generic antenna was used", t.ID, t.AntennaID)}
}
