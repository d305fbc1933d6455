package observations

import (
	"fmt"
	"math"
	"strings"
	"time"

	"linkplan/appliance"
)

// Input is one row as submitted: a nil field was not given.
type Input struct {
	TowerID     *string
	TxLat       *float64 // degrees
	TxLon       *float64 // degrees
	TxHeightM   *float64 // metres above ground
	TxPowerDBm  *float64 // dBm
	TxGainDBi   *float64 // dBi
	RxLat       *float64 // degrees
	RxLon       *float64 // degrees
	RxHeightM   *float64 // metres above ground
	RxGainDBi   *float64 // dBi
	CableLossDB *float64 // dB
	FreqHz      *float64 // Hz
	ObservedDBm *float64 // dBm
	Source      *string
	TsUnix      *float64 // epoch seconds
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
		o.Source = *in.Source
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
	if o.TowerID != "" && (in.TxLat == nil || in.TxLon == nil || in.TxHeightM == nil) {
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
	o.TxPowerDBm = num(in.TxPowerDBm, "tx_power_dbm", 0, 80, false, 0, false)
	o.TxGainDBi = num(in.TxGainDBi, "tx_gain_dbi", MinGainDBi, MaxGainDBi, false, DefaultGainDBi, defaults)
	o.RxLat = num(in.RxLat, "rx_lat", -90, 90, false, 0, false)
	o.RxLon = num(in.RxLon, "rx_lon", -180, 180, false, 0, false)
	o.RxHeightM = num(in.RxHeightM, "rx_height_m", 0, 500, true, DefaultRxHeightM, defaults)
	o.RxGainDBi = num(in.RxGainDBi, "rx_gain_dbi", MinGainDBi, MaxGainDBi, false, DefaultGainDBi, defaults)
	o.CableLossDB = num(in.CableLossDB, "cable_loss_db", 0, 20, false, DefaultCableLossDB, defaults)
	o.FreqHz = num(in.FreqHz, "freq_hz", 1e6, 100e9, true, 0, false)
	o.ObservedDBm = num(in.ObservedDBm, "observed_dbm", -150, 30, false, 0, false)
	nowUnix := float64(now.UnixNano()) / 1e9
	o.TsUnix = num(in.TsUnix, "ts", minTsUnix, nowUnix+86400, false, nowUnix, defaults)
	o.Metric = "received_power"
	return o
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
