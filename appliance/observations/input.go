package observations

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"linkplan/appliance"
)

// Input is one row as submitted: a nil field was not given.
type Input struct {
	TowerID    *string
	TxLat      *float64 // degrees
	TxLon      *float64 // degrees
	TxHeightM  *float64 // metres above ground
	TxPowerDBm *float64 // dBm
	TxGainDBi  *float64 // dBi
	RxLat      *float64 // degrees
	RxLon      *float64 // degrees
	RxHeightM  *float64 // metres above ground
	// RxAltM is the receiver's altitude above sea level, metres, as a drive
	// test's GPS logs it (DriveTestRows only; nil: not given).
	RxAltM      *float64
	RxGainDBi   *float64 // dBi
	CableLossDB *float64 // dB
	FreqMHz     *float64 // carrier frequency, MHz
	ObservedDBm *float64 // dBm
	Source      *string
	TsUnix      *float64 // epoch seconds
	// TsText is ts given as text (ParseTs: epoch seconds or an RFC 3339
	// time); it wins over TsUnix. nil: not given as text.
	TsText *string
}

// Defaults of the rows of source "api" and "synthetic" (package doc).
const (
	DefaultSource      = "api"
	DefaultRxHeightM   = 1.5 // metres: a handset or a drive-test antenna on a car roof
	DefaultGainDBi     = 0.0 // dBi
	DefaultCableLossDB = 0.0 // dB
	MaxSourceLen       = 32  // characters
)

// Ranges of the fields (package doc).
const (
	MinGainDBi = -20.0 // dBi
	MaxGainDBi = 60.0  // dBi
	minTsUnix  = 946684800.0
)

// TowerLookup returns the tower a key may see by id (the catalogue or the
// key's tenant's own); ok is false when there is none.
type TowerLookup func(k *appliance.APIKey, id string) (t *appliance.Tower, ok bool)

// takesDefaults reports whether a source may omit gains, cable loss, RX
// height and ts.
func takesDefaults(source string) bool {
	return source == DefaultSource || source == "synthetic"
}

// validSource reports whether s is a source label: 1..32 characters of
// [a-z0-9_.-].
func validSource(s string) bool {
	if s == "" || len(s) > MaxSourceLen {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '.' || r == '-') {
			return false
		}
	}
	return true
}

// row validates in (field names prefixed with prefix, e.g.
// "observations[3]."), applies the defaults of its source and the
// transmitter of its tower, and returns the observation; problems go to v.
func row(v *appliance.ValidationError, prefix string, in Input, k *appliance.APIKey, towers TowerLookup, now time.Time) appliance.Observation {
	var o appliance.Observation
	name := func(f string) string { return prefix + f }
	o.Source = DefaultSource
	if in.Source != nil {
		// Spreadsheets and tools write source names in upper case
		// (DRIVETEST_TEMS): the label is folded to lower case.
		o.Source = strings.ToLower(*in.Source)
		if !validSource(o.Source) {
			v.Add(name("source"), "must be 1 to %d characters of a-z, 0-9, '_', '.' or '-' (convention drivetest_<tool>)", MaxSourceLen)
		}
	}
	defaults := takesDefaults(o.Source)
	num := func(p *float64, f string, lo, hi float64, loOpen bool, def float64, hasDef bool) float64 {
		if p == nil {
			if hasDef {
				return def
			}
			if defaults {
				v.Add(name(f), "is required")
			} else {
				v.Add(name(f), "is required: source %q takes no defaults (only api and synthetic rows do)", o.Source)
			}
			return 0
		}
		x := *p
		bad := math.IsNaN(x) || math.IsInf(x, 0) || x > hi || x < lo || loOpen && x == lo
		if bad {
			open := "["
			if loOpen {
				open = "("
			}
			v.Add(name(f), "must be within %s%g, %g], got %g", open, lo, hi, x)
		}
		return x
	}
	if in.TowerID != nil {
		o.TowerID = *in.TowerID
	}
	var tw *appliance.Tower
	if o.TowerID != "" && (in.TxLat == nil || in.TxLon == nil || in.TxHeightM == nil || in.TxPowerDBm == nil || in.TxGainDBi == nil) {
		t, ok := towers(k, o.TowerID)
		if !ok {
			v.Add(name("tower_id"), "no tower %q is visible to this key (give tx_lat, tx_lon and tx_height_m instead)", truncate(o.TowerID, 64))
		}
		tw = t
	}
	txFromTower := func(p *float64, f string, get func(*appliance.Tower) float64) *float64 {
		if p == nil && tw != nil {
			x := get(tw)
			return &x
		}
		if p == nil && o.TowerID != "" && tw == nil {
			zero := 0.0
			return &zero // tower_id already named
		}
		return p
	}
	o.TxLat = num(txFromTower(in.TxLat, "tx_lat", func(t *appliance.Tower) float64 { return t.Lat }), "tx_lat", -90, 90, false, 0, false)
	o.TxLon = num(txFromTower(in.TxLon, "tx_lon", func(t *appliance.Tower) float64 { return t.Lon }), "tx_lon", -180, 180, false, 0, false)
	o.TxHeightM = num(txFromTower(in.TxHeightM, "tx_height_m", func(t *appliance.Tower) float64 { return t.HeightM }), "tx_height_m", 0, 500, true, 0, false)
	// Power and gain come from the tower's record when the row omits them
	// and the record states them (regulator licences, Tower.HasTx).
	power, gain := in.TxPowerDBm, in.TxGainDBi
	if tw != nil && tw.HasTx {
		p, g := tw.TxPowerDBm, tw.TxGainDBi
		if power == nil {
			power = &p
		}
		if gain == nil {
			gain = &g
		}
	}
	// A required one the tower's record lacks is named with that reason.
	fromRecord := func(p *float64, f string, required bool) *float64 {
		if p == nil && required && tw != nil && !tw.HasTx {
			v.Add(name(f), "is required: tower %q has no transmitter power and gain on record", truncate(o.TowerID, 64))
			zero := 0.0
			return &zero
		}
		return p
	}
	power = fromRecord(power, "tx_power_dbm", true)
	gain = fromRecord(gain, "tx_gain_dbi", !defaults)
	o.TxPowerDBm = num(power, "tx_power_dbm", 0, 80, false, 0, false)
	o.TxGainDBi = num(gain, "tx_gain_dbi", MinGainDBi, MaxGainDBi, false, DefaultGainDBi, defaults)
	o.RxLat = num(in.RxLat, "rx_lat", -90, 90, false, 0, false)
	o.RxLon = num(in.RxLon, "rx_lon", -180, 180, false, 0, false)
	o.RxHeightM = num(in.RxHeightM, "rx_height_m", 0, 500, true, DefaultRxHeightM, defaults)
	o.RxGainDBi = num(in.RxGainDBi, "rx_gain_dbi", MinGainDBi, MaxGainDBi, false, DefaultGainDBi, defaults)
	o.CableLossDB = num(in.CableLossDB, "cable_loss_db", 0, 20, false, DefaultCableLossDB, defaults)
	o.FreqHz = num(in.FreqMHz, "frequency_mhz", 1, 100e3, true, 0, false) * 1e6 // stored in Hz
	o.ObservedDBm = num(in.ObservedDBm, "observed_dbm", MinObservedDBm, MaxObservedDBm, false, 0, false)
	nowUnix := float64(now.UnixNano()) / 1e9
	ts := in.TsUnix
	if in.TsText != nil {
		x, err := ParseTs(*in.TsText)
		if err != nil {
			v.Add(name("ts"), "%v", err)
			x = nowUnix // named once: no range error on top
		}
		ts = &x
	}
	o.TsUnix = num(ts, "ts", minTsUnix, nowUnix+86400, false, nowUnix, defaults)
	o.Metric = "received_power"
	return o
}

// ParseTs reads a time given as text: epoch seconds ("1772366340",
// "1772366340.25") or an RFC 3339 time, the ISO 8601 profile with its UTC
// offset ("2026-03-01T11:59:00Z", "2026-03-01T08:59:00.5-03:00"; a space
// may stand for the T). A time without offset is refused: it would be read
// in an unknown zone. It returns epoch seconds.
func ParseTs(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if x, err := strconv.ParseFloat(s, 64); err == nil && !math.IsNaN(x) && !math.IsInf(x, 0) {
		return x, nil
	}
	iso := s
	if len(iso) > 10 && iso[10] == ' ' {
		iso = iso[:10] + "T" + iso[11:]
	}
	if t, err := time.Parse(time.RFC3339Nano, iso); err == nil {
		return float64(t.Unix()) + float64(t.Nanosecond())/1e9, nil
	}
	if _, err := time.Parse("2006-01-02T15:04:05.999999999", iso); err == nil {
		return 0, fmt.Errorf("needs its UTC offset (Z or e.g. -03:00): %q would be read in an unknown zone", truncate(s, 40))
	}
	return 0, fmt.Errorf("must be epoch seconds or an RFC 3339 time with its UTC offset (e.g. 2026-03-01T11:59:00Z or 2026-03-01T08:59:00-03:00), got %q", truncate(s, 40))
}

// DedupKey is a row's deduplication key (SPEC §8.2) for a window of
// windowS seconds. The time bucket comes first, zero-padded, so that the
// store's index of keys grows at its end as time goes on (a batch's keys
// land on few pages).
func DedupKey(o *appliance.Observation, windowS float64) string {
	return fmt.Sprintf("%012d|%s|%.5f|%.5f|%.0f", int64(math.Floor(o.TsUnix/windowS)), o.TowerID, round5(o.RxLat), round5(o.RxLon),
		math.Round(o.FreqHz))
}

// round5 rounds to 5 decimals, halves away from zero, and never yields −0.
func round5(x float64) float64 {
	r := math.Round(x*1e5) / 1e5
	if r == 0 {
		return 0
	}
	return r
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}
