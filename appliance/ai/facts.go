package ai

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"linkplan/appliance"
)

// Fact is one number of a fact sheet, as the engine computed it.
type Fact struct {
	Key   string  // e.g. "best.link_margin_db"
	Value float64 // unrounded
	Unit  string  // "dB", "dBm", "km", "m", "MHz", "%", "°", "" (count or ratio)
}

// Label is one text value of a fact sheet (ids, operator, engine, version).
type Label struct {
	Key, Value string
}

// FactSheet is what an answer may quote: the numbers and the labels of
// one engine result. The prompt carries it; the grounding check holds the
// answer to it.
type FactSheet struct {
	Numbers []Fact
	Labels  []Label
	// Warnings are the warnings of the result, one per code: every answer
	// must name each of them (Missing), and the figures of their messages
	// are facts (warning.<code>.figure_<n>).
	Warnings []appliance.Warning
}

// warn adds the warnings ws to the sheet, one per code (the first
// message of a code wins): their codes and messages as labels and the
// numbers of their messages as facts, so that an answer may quote them.
func (f *FactSheet) warn(ws ...appliance.Warning) {
	for _, w := range ws {
		if w.Code == "" || slices.ContainsFunc(f.Warnings, func(x appliance.Warning) bool { return x.Code == w.Code }) {
			continue
		}
		f.Warnings = append(f.Warnings, w)
		f.label("warning."+w.Code, w.Code)
		for i, n := range Numbers(w.Message) {
			if len(n.Readings) > 0 {
				f.num(fmt.Sprintf("warning.%s.figure_%d", w.Code, i+1), n.Readings[0].Value, "")
			}
		}
	}
}

func (f *FactSheet) num(key string, v float64, unit string) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return
	}
	f.Numbers = append(f.Numbers, Fact{Key: key, Value: v, Unit: unit})
}

func (f *FactSheet) label(key, v string) {
	if v != "" {
		f.Labels = append(f.Labels, Label{Key: key, Value: v})
	}
}

// Design constants every explanation may name: the 60 % F1 rule (as 60
// and 0.6) and the first Fresnel zone's ordinal.
func (f *FactSheet) constants() {
	f.num("rule.fresnel_clearance_pct", 60, "%")
	f.num("rule.fresnel_clearance_ratio", 0.6, "")
	f.num("rule.fresnel_zone", 1, "")
}

// candidate adds the facts of one link result under prefix.
func (f *FactSheet) candidate(prefix string, c *appliance.LinkCandidate) {
	f.label(prefix+".tower_id", c.Tower.ID)
	f.label(prefix+".operator", c.Tower.Operator)
	f.label(prefix+".engine", string(c.Prediction.Engine))
	f.label(prefix+".engine_version", c.Prediction.EngineVersion)
	f.num(prefix+".distance_km", c.DistanceKm, "km")
	f.num(prefix+".azimuth_deg", c.AzimuthDeg, "°")
	f.num(prefix+".path_loss_db", c.Prediction.PathLossDB, "dB")
	f.num(prefix+".diffraction_db", c.Prediction.DiffractionDB, "dB")
	f.num(prefix+".link_margin_db", c.LinkMarginDB, "dB")
	f.num(prefix+".rx_power_dbm", c.RxPowerDBm, "dBm")
	f.num(prefix+".eirp_dbm", c.EIRPDBm, "dBm")
	f.num(prefix+".antenna_pattern_loss_db", c.PatternLossDB, "dB")
	f.num(prefix+".tower_height_m", c.Tower.HeightM, "m")
	f.num(prefix+".tower_ground_elevation_m", c.TowerGroundM, "m")
	f.num(prefix+".min_fresnel_clearance_ratio", c.Prediction.MinClearanceRatio, "")
	f.num(prefix+".min_fresnel_clearance_pct", 100*c.Prediction.MinClearanceRatio, "%")
	keys := make([]string, 0, len(c.Prediction.Intermediate))
	for k := range c.Prediction.Intermediate {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys { // engine values, the uncertainty band when present
		f.num(prefix+".engine."+k, c.Prediction.Intermediate[k], "")
	}
	if p := c.Path; p != nil {
		f.num(prefix+".receiver_height_m", p.RxHeightM, "m")
		if o := p.Obstacle; o != nil {
			f.num(prefix+".obstacle.distance_from_receiver_m", o.DistanceFromRxM, "m")
			f.num(prefix+".obstacle.distance_from_receiver_km", o.DistanceFromRxM/1000, "km")
			f.num(prefix+".obstacle.ground_m", o.GroundM, "m")
			f.num(prefix+".obstacle.clearance_m", o.ClearanceM, "m")
			f.num(prefix+".obstacle.f1_radius_m", o.F1RadiusM, "m")
		}
		for _, m := range []struct {
			key string
			h   appliance.MinHeight
		}{{"min_receiver_height_los_m", p.RxMinLOS}, {"min_receiver_height_fresnel60_m", p.RxMinFresnel60},
			{"min_tower_height_los_m", p.TxMinLOS}, {"min_tower_height_fresnel60_m", p.TxMinFresnel60}} {
			f.num(prefix+"."+m.key, m.h.HeightM, "m") // when not achievable: the cap searched
		}
	}
}

// LinkFacts is the fact sheet of a link analysis: the request, the best
// tower and the alternatives, the engine and its version.
func LinkFacts(a *appliance.LinkAnalysis) *FactSheet {
	f := &FactSheet{}
	f.constants()
	r := a.Request
	f.num("receiver.lat", r.Receiver.Lat, "°")
	f.num("receiver.lon", r.Receiver.Lon, "°")
	f.num("receiver.height_m", r.RxHeightM, "m")
	f.num("receiver.ground_elevation_m", a.ReceiverGroundM, "m")
	f.num("frequency_mhz", r.FreqMHz, "MHz")
	f.num("max_distance_km", r.MaxDistanceKm, "km")
	f.num("rx_gain_dbi", r.RxGainDBi, "dBi")
	f.num("cable_loss_db", r.CableLossDB, "dB")
	f.num("rx_threshold_dbm", r.RxThresholdDBm, "dBm")
	f.num("towers_in_range", float64(a.InRange), "")
	f.num("towers_evaluated", float64(a.Evaluated), "")
	f.label("engine", string(a.Engine))
	f.label("engine_version", a.EngineVersion)
	if a.Best != nil {
		f.candidate("best", a.Best)
	}
	for _, w := range a.BestTowerCaveats {
		f.label("best.caveat."+w.Code, w.Code)
	}
	for i := range a.Alternatives {
		f.candidate(fmt.Sprintf("alternative_%d", i+1), &a.Alternatives[i])
		f.num(fmt.Sprintf("alternative_%d.rank", i+1), float64(i+1), "")
	}
	f.warn(a.Warnings...)
	return f
}

// HeightFacts is the fact sheet of a height suggestion.
func HeightFacts(s *appliance.HeightSuggestion) *FactSheet {
	f := &FactSheet{}
	f.constants()
	r := s.Request
	f.label("move", r.Move)
	f.num("target_margin_db", r.TargetMarginDB, "dB")
	f.num("step_m", r.StepM, "m")
	f.num("max_height_m", r.MaxHeightM, "m")
	f.num("frequency_mhz", r.Pair.FreqMHz, "MHz")
	f.num("current.receiver_height_m", r.Pair.RxHeightM, "m")
	f.num("heights_evaluated", float64(s.Evaluated), "")
	f.candidate("current", s.Current)
	f.num("min_height_los_m", s.MinLOS.HeightM, "m")
	f.num("min_height_fresnel60_m", s.MinFresnel60.HeightM, "m")
	if s.Found {
		f.num("suggested_height_m", s.HeightM, "m")
		f.num("suggested.link_margin_db", s.At.LinkMarginDB, "dB")
		f.num("suggested.path_loss_db", s.At.Prediction.PathLossDB, "dB")
		f.num("suggested.min_fresnel_clearance_pct", 100*s.At.Prediction.MinClearanceRatio, "%")
		f.num("suggested.rx_power_dbm", s.At.RxPowerDBm, "dBm")
	}
	f.label("failing_rule", s.FailingRule)
	f.warn(s.Current.Warnings...)
	if s.At != nil {
		f.warn(s.At.Warnings...)
	}
	return f
}

// CompareFacts is the fact sheet of an engine comparison: the case's
// frequency and heights, each engine's loss and diffraction, the spread
// of the losses and each engine's difference from the lowest.
func CompareFacts(c appliance.EngineCase, rows []appliance.EngineCompareRow) *FactSheet {
	f := &FactSheet{}
	f.constants()
	sum := c.CaseSummary()
	f.num("frequency_mhz", sum.FrequencyMHz, "MHz")
	f.num("tx.height_m", sum.TxHeightM, "m")
	f.num("rx.height_m", sum.RxHeightM, "m")
	lo, hi, ok := lossRange(rows)
	for i, r := range rows {
		p := fmt.Sprintf("engine_%d", i+1)
		f.label(p+".engine", string(r.Engine))
		f.label(p+".used_engine", string(r.UsedEngine))
		f.label(p+".engine_version", r.EngineVersion)
		if r.Err != nil {
			f.label(p+".error", r.Err.Error())
			continue
		}
		f.num(p+".path_loss_db", r.PathLossDB, "dB")
		f.num(p+".diffraction_db", r.DiffractionDB, "dB")
		if ok {
			f.num(p+".above_lowest_loss_db", r.PathLossDB-lo, "dB")
		}
		f.num(p+".min_fresnel_clearance_pct", 100*r.MinClearanceRatio, "%")
	}
	if ok {
		f.num("loss_spread_db", hi-lo, "dB")
		f.num("lowest_loss_db", lo, "dB")
		f.num("highest_loss_db", hi, "dB")
	}
	f.num("engines_answered", float64(answered(rows)), "")
	f.num("engines_compared", float64(len(rows)), "")
	for _, r := range rows {
		f.warn(r.Warnings...)
	}
	return f
}

// lossRange is the lowest and highest loss of the rows that answered.
func lossRange(rows []appliance.EngineCompareRow) (lo, hi float64, ok bool) {
	for _, r := range rows {
		if r.Err != nil {
			continue
		}
		if !ok || r.PathLossDB < lo {
			lo = r.PathLossDB
		}
		if !ok || r.PathLossDB > hi {
			hi = r.PathLossDB
		}
		ok = true
	}
	return lo, hi, ok
}

func answered(rows []appliance.EngineCompareRow) int {
	n := 0
	for _, r := range rows {
		if r.Err == nil {
			n++
		}
	}
	return n
}

// Get returns the value of key.
func (f *FactSheet) Get(key string) (float64, bool) {
	for _, x := range f.Numbers {
		if x.Key == key {
			return x.Value, true
		}
	}
	return 0, false
}

// Text renders the sheet for a prompt: one "key = value unit" line each,
// numbers with at most 3 decimals, then one "warning code: message" line
// per warning.
func (f *FactSheet) Text() string {
	var b strings.Builder
	for _, l := range f.Labels {
		fmt.Fprintf(&b, "%s = %s\n", l.Key, l.Value)
	}
	for _, x := range f.Numbers {
		fmt.Fprintf(&b, "%s = %s %s\n", x.Key, strconv.FormatFloat(math.Round(x.Value*1000)/1000, 'f', -1, 64), x.Unit)
	}
	for _, w := range f.Warnings {
		fmt.Fprintf(&b, "warning %s: %s\n", w.Code, w.Message)
	}
	return b.String()
}
