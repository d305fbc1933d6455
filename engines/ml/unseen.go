package ml

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"linkplan/appliance"
)

// Unseen-band settings (FitUnseenBand).
const (
	// UnseenMethod is the method name of an UnseenBand.
	UnseenMethod = "cluster_bootstrap_upper_conformal"
	// UnseenLevel is the confidence of the bootstrap upper bound.
	UnseenLevel = 0.95
	// UnseenResamples is the number of bootstrap resamples of the units.
	UnseenResamples = 500
	// UnseenSeed seeds the resampling (PCG, deterministic).
	UnseenSeed = 42
)

// Bases of an unseen band: which held-out residuals calibrated it.
const (
	// BasisLeaveOneOperatorOut: each operator's rows predicted by a model
	// trained without that operator (two operators or more).
	BasisLeaveOneOperatorOut = "leave_one_operator_out"
	// BasisLeaveCellOut: every row predicted by a model trained without
	// its serving cell (transmitter): the out-of-fold residuals of
	// cross-validation grouped by cell.
	BasisLeaveCellOut = "leave_cell_out"
)

// HeldOut is one group of held-out residuals (observed − predicted, dB) of
// rows a model never saw: an operator's rows predicted by a model trained
// without that operator, or rows predicted by a model trained without
// their serving cell. Units[i] names residual i's resampling unit (its
// serving cell or transmitter).
type HeldOut struct {
	Name      string
	Basis     string
	Residuals []float64
	Units     []string
}

// UnseenGroup is one held-out group's share of an UnseenBand.
type UnseenGroup struct {
	Name  string `json:"name"`
	Basis string `json:"basis"`
	// N is the group's residuals and Units its distinct units (cells).
	N     int `json:"n"`
	Units int `json:"units"`
	// QAbsDB is the plain conformal half-width of the group's residuals;
	// QAbsUpperDB its bootstrap upper bound (what the band may take).
	QAbsDB      float64 `json:"q_abs_db"`
	QAbsUpperDB float64 `json:"q_abs_upper_db"`
	// EmpiricalCoverage is the share of the group's residuals inside the
	// served band (Band.QAbsDB).
	EmpiricalCoverage float64 `json:"empirical_coverage"`
}

// UnseenBand is the band served for a transmitter (cell) the model never
// saw: a new operator's, or a new cell of a known one. The ordinary band is
// calibrated on residuals of rows like the training rows; under the shift
// of an unseen operator it is too narrow (the issue 20 measurement: 0.854
// at nominal 0.90). FitUnseenBand calibrates this one on held-out groups
// and takes, for each quantile, the worst group's bootstrap bound.
type UnseenBand struct {
	// Band holds the served quantiles: QAbsDB the largest of the groups'
	// upper bounds, QHiDB the largest upper bound of q_hi, QLoDB the
	// smallest lower bound of q_lo; N is every held-out residual,
	// EmpiricalCoverage their share inside ±QAbsDB.
	Band      Band          `json:"band"`
	Method    string        `json:"method"`
	Level     float64       `json:"level"`
	Resamples int           `json:"resamples"`
	Groups    []UnseenGroup `json:"groups"`
	// SeenTransmitters are TransmitterKey of every training row's
	// transmitter (site and carrier), sorted and distinct: a query whose
	// transmitter is among them gets the ordinary band.
	SeenTransmitters []string `json:"seen_transmitters"`
}

// SiteKey is the key of a transmitter site: latitude and longitude
// rounded to 1e-4° (about 11 m), WGS84 degrees, "lat,lon".
func SiteKey(lat, lon float64) string { return round4(lat) + "," + round4(lon) }

// TransmitterKey is the key of a transmitter in
// UnseenBand.SeenTransmitters: its site (SiteKey) and its carrier rounded
// to 0.1 MHz, "lat,lon,mhz". Sites are often shared by operators, whose
// carriers differ: another carrier on a known site is another, unseen,
// transmitter (and so gets the wider band).
func TransmitterKey(lat, lon, freqMHz float64) string {
	return SiteKey(lat, lon) + "," + strconv.FormatFloat(math.Round(freqMHz*10)/10, 'f', 1, 64)
}

func round4(v float64) string {
	v = math.Round(v*1e4) / 1e4
	if v == 0 {
		v = 0 // no "-0.0000"
	}
	return strconv.FormatFloat(v, 'f', 4, 64)
}

// Saw reports whether the model saw the transmitter at (lat, lon) on
// freqMHz.
func (u *UnseenBand) Saw(lat, lon, freqMHz float64) bool {
	_, ok := slices.BinarySearch(u.SeenTransmitters, TransmitterKey(lat, lon, freqMHz))
	return ok
}

// FitUnseenBand calibrates the band for unseen transmitters at miscoverage
// alpha. For each group it draws UnseenResamples cluster-bootstrap
// resamples (as many units as the group has, with replacement, each
// bringing all its residuals; PCG seeded with UnseenSeed and the group's
// position) and computes each resample's conformal quantiles (q_abs at
// rank ceil((m+1)(1−α)) of the m resampled |r|, q_hi and q_lo at α/2 as
// FitBand); the group's bound is the UnseenLevel quantile of the resampled
// q_abs and q_hi and the 1 − UnseenLevel quantile of q_lo. The served band
// is the worst group's bound for each quantile: a new operator is taken to
// be no easier to predict than the hardest one held out, and each held-out
// quantile at its 95 % upper confidence bound over that group's cells, so
// that a group of few or very different cells widens the band. seen are
// the training transmitters' keys (TransmitterKey). The result depends on
// the inputs only.
func FitUnseenBand(groups []HeldOut, seen []string, alpha float64) (UnseenBand, error) {
	if len(groups) == 0 {
		return UnseenBand{}, fmt.Errorf("fit unseen band: no held-out group: %w", appliance.ErrInvalid)
	}
	u := UnseenBand{Method: UnseenMethod, Level: UnseenLevel, Resamples: UnseenResamples}
	var all []float64
	first := true
	for gi, g := range groups {
		if len(g.Units) != len(g.Residuals) {
			return UnseenBand{}, fmt.Errorf("fit unseen band: group %q has %d residuals and %d units: %w", g.Name, len(g.Residuals), len(g.Units), appliance.ErrInvalid)
		}
		plain, err := FitBand(g.Residuals, alpha)
		if err != nil {
			return UnseenBand{}, fmt.Errorf("fit unseen band: group %q: %w", g.Name, err)
		}
		qa, ql, qh, units, err := bootstrapBounds(g, alpha, uint64(gi))
		if err != nil {
			return UnseenBand{}, fmt.Errorf("fit unseen band: group %q: %w", g.Name, err)
		}
		u.Groups = append(u.Groups, UnseenGroup{Name: g.Name, Basis: g.Basis, N: len(g.Residuals), Units: units, QAbsDB: plain.QAbsDB, QAbsUpperDB: qa})
		if first {
			u.Band = Band{Alpha: alpha, Coverage: 1 - alpha, QAbsDB: qa, QLoDB: ql, QHiDB: qh}
			first = false
		} else {
			u.Band.QAbsDB, u.Band.QLoDB, u.Band.QHiDB = max(u.Band.QAbsDB, qa), min(u.Band.QLoDB, ql), max(u.Band.QHiDB, qh)
		}
		all = append(all, g.Residuals...)
	}
	u.Band.N, u.Band.MeanWidthDB = len(all), 2*u.Band.QAbsDB
	u.Band.EmpiricalCoverage = covered(all, u.Band.QAbsDB)
	for i, g := range groups {
		u.Groups[i].EmpiricalCoverage = covered(g.Residuals, u.Band.QAbsDB)
	}
	u.SeenTransmitters = slices.Compact(slices.Sorted(slices.Values(seen)))
	if u.SeenTransmitters == nil {
		u.SeenTransmitters = []string{}
	}
	return u, nil
}

func covered(res []float64, q float64) float64 {
	n := 0
	for _, r := range res {
		if math.Abs(r) <= q {
			n++
		}
	}
	return float64(n) / float64(len(res))
}

// bootstrapBounds returns the bootstrap bounds of one group's q_abs, q_lo
// and q_hi and its number of units. Each resample's quantiles are read
// from the residuals sorted once, weighted by their unit's multiplicity.
func bootstrapBounds(g HeldOut, alpha float64, stream uint64) (qAbs, qLo, qHi float64, nUnits int, err error) {
	unitOf := make([]int, len(g.Units))
	ids := map[string]int{}
	names := slices.Compact(slices.Sorted(slices.Values(g.Units)))
	for i, n := range names {
		ids[n] = i
	}
	size := make([]int, len(names))
	for i, n := range g.Units {
		unitOf[i] = ids[n]
		size[unitOf[i]]++
	}
	n := len(g.Residuals)
	byAbs, bySigned := make([]int, n), make([]int, n)
	for i := range n {
		byAbs[i], bySigned[i] = i, i
	}
	slices.SortStableFunc(byAbs, func(a, b int) int { return cmpF(math.Abs(g.Residuals[a]), math.Abs(g.Residuals[b])) })
	slices.SortStableFunc(bySigned, func(a, b int) int { return cmpF(g.Residuals[a], g.Residuals[b]) })
	rng := rand.New(rand.NewPCG(UnseenSeed, stream))
	mult := make([]int, len(names))
	abs, lo, hi := make([]float64, UnseenResamples), make([]float64, UnseenResamples), make([]float64, UnseenResamples)
	// nth returns the value at weighted rank k along order (from the end
	// when rev).
	nth := func(order []int, k int, rev bool, val func(int) float64) float64 {
		acc := 0
		for j := range order {
			i := order[j]
			if rev {
				i = order[len(order)-1-j]
			}
			acc += mult[unitOf[i]]
			if acc >= k {
				return val(i)
			}
		}
		return val(order[len(order)-1])
	}
	for b := range UnseenResamples {
		clear(mult)
		m := 0
		for range names {
			u := rng.IntN(len(names))
			mult[u]++
			m += size[u]
		}
		k, err := ConformalRank(m, alpha)
		if err != nil {
			return 0, 0, 0, 0, err
		}
		kh, err := ConformalRank(m, alpha/2)
		if err != nil {
			return 0, 0, 0, 0, err
		}
		abs[b] = nth(byAbs, k, false, func(i int) float64 { return math.Abs(g.Residuals[i]) })
		hi[b] = nth(bySigned, kh, false, func(i int) float64 { return g.Residuals[i] })
		lo[b] = nth(bySigned, kh, true, func(i int) float64 { return g.Residuals[i] })
	}
	slices.Sort(abs)
	slices.Sort(lo)
	slices.Sort(hi)
	up := int(math.Ceil(UnseenLevel*UnseenResamples)) - 1
	return abs[up], lo[UnseenResamples-1-up], hi[up], len(names), nil
}

func (u *UnseenBand) validate() error {
	if err := u.Band.validate(); err != nil {
		return fmt.Errorf("unseen band: %w", err)
	}
	if u.Method == "" || !(u.Level > 0 && u.Level < 1) || u.Resamples < 1 || len(u.Groups) == 0 {
		return fmt.Errorf("unseen band: method, level in (0, 1), resamples >= 1 and at least one group are required: %w", ErrArtifact)
	}
	for i, g := range u.Groups {
		if g.Name == "" || g.N < 1 || g.Units < 1 || !finite(g.QAbsDB) || !finite(g.QAbsUpperDB) || !finite(g.EmpiricalCoverage) {
			return fmt.Errorf("unseen band group %d (%q) is malformed: %w", i, g.Name, ErrArtifact)
		}
	}
	if !slices.IsSorted(u.SeenTransmitters) {
		return fmt.Errorf("unseen band: seen_transmitters must be sorted: %w", ErrArtifact)
	}
	return nil
}
