package ml

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"

	"linkplan/appliance"
)

// ConformalMethod is the method name of SPEC §2.6's conformal block.
const ConformalMethod = "cv_split_conformal_abs"

// DefaultAlpha is the default miscoverage of the conformal bands (a 90 %
// band, SPEC §2.6).
const DefaultAlpha = 0.1

// ErrTooFewResiduals means there are too few calibration residuals for a
// finite conformal quantile at the requested alpha.
var ErrTooFewResiduals = errors.New("too few calibration residuals")

// ConformalRank returns the finite-sample conformal rank
// k = ceil((n+1)(1-alpha)) (SPEC §2.6): the k-th smallest of n calibration
// scores is the band's quantile. It fails with ErrTooFewResiduals when
// k > n (the quantile would be infinite).
//
// alpha is taken as the decimal it prints as (strconv 'g', shortest form:
// 0.1 is exactly 1/10) and the rank is computed in exact rational
// arithmetic, so that a float64 rounding of (n+1)(1-alpha) never moves the
// rank by one.
func ConformalRank(n int, alpha float64) (int, error) {
	if !(alpha > 0 && alpha < 1) {
		return 0, fmt.Errorf("conformal rank: alpha %v must be between 0 and 1: %w", alpha, appliance.ErrInvalid)
	}
	if n < 1 {
		return 0, fmt.Errorf("conformal rank with %d residuals: %w", n, ErrTooFewResiduals)
	}
	a, ok := new(big.Rat).SetString(strconv.FormatFloat(alpha, 'g', -1, 64))
	if !ok {
		return 0, fmt.Errorf("conformal rank: alpha %v: %w", alpha, appliance.ErrInvalid)
	}
	k := ceilRat(new(big.Rat).Mul(big.NewRat(int64(n)+1, 1), new(big.Rat).Sub(big.NewRat(1, 1), a)))
	if k > int64(n) {
		return 0, fmt.Errorf("conformal rank ceil((n+1)(1-alpha)) = %d exceeds n = %d at alpha %v: %w", k, n, alpha, ErrTooFewResiduals)
	}
	return int(k), nil
}

// ceilRat returns the ceiling of a non-negative rational.
func ceilRat(r *big.Rat) int64 {
	q, m := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
	if m.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	return q.Int64()
}

// Band is a split-conformal band calibrated on out-of-fold residuals
// (residual = observed - predicted, dB). The symmetric band of a
// prediction p is [p - QAbsDB, p + QAbsDB]; the signed band is
// [p + QLoDB, p + QHiDB].
type Band struct {
	// N is the number of calibration residuals (n_calibration).
	N int `json:"n_calibration"`
	// Alpha is the target miscoverage; Coverage = 1 - Alpha.
	Alpha    float64 `json:"alpha"`
	Coverage float64 `json:"coverage"`
	// QAbsDB is the half-width: the ConformalRank(N, Alpha)-th smallest
	// absolute residual (q_abs_db).
	QAbsDB float64 `json:"q_abs_db"`
	// QLoDB and QHiDB are the signed quantiles (q_lo_db, q_hi_db): QHiDB is
	// the ConformalRank(N, Alpha/2)-th smallest residual and QLoDB the
	// same rank counted from the largest, so each tail holds at most
	// Alpha/2 in the conformal sense.
	QLoDB float64 `json:"q_lo_db"`
	QHiDB float64 `json:"q_hi_db"`
	// EmpiricalCoverage is the share of calibration residuals with
	// |r| <= QAbsDB (>= 1 - Alpha by construction).
	EmpiricalCoverage float64 `json:"empirical_coverage"`
	// MeanWidthDB is the band's width, 2·QAbsDB.
	MeanWidthDB float64 `json:"mean_width_db"`
}

// FitBand calibrates a Band on residuals at miscoverage alpha. It needs
// enough residuals for finite signed quantiles, ConformalRank(n, alpha/2)
// <= n (19 residuals at alpha 0.1), and fails with ErrTooFewResiduals
// otherwise. Non-finite residuals are invalid.
func FitBand(residuals []float64, alpha float64) (Band, error) {
	n := len(residuals)
	for i, r := range residuals {
		if math.IsNaN(r) || math.IsInf(r, 0) {
			return Band{}, fmt.Errorf("fit conformal band: residual %d is %v: %w", i, r, appliance.ErrInvalid)
		}
	}
	k, err := ConformalRank(n, alpha)
	if err != nil {
		return Band{}, fmt.Errorf("fit conformal band: %w", err)
	}
	kHalf, err := ConformalRank(n, alpha/2)
	if err != nil {
		return Band{}, fmt.Errorf("fit conformal band (signed quantiles at alpha/2): %w", err)
	}
	abs := make([]float64, n)
	for i, r := range residuals {
		abs[i] = math.Abs(r)
	}
	slices.Sort(abs)
	signed := slices.Clone(residuals)
	slices.Sort(signed)
	b := Band{
		N:        n,
		Alpha:    alpha,
		Coverage: 1 - alpha,
		QAbsDB:   abs[k-1],
		QHiDB:    signed[kHalf-1],
		QLoDB:    signed[n-kHalf],
	}
	b.MeanWidthDB = 2 * b.QAbsDB
	covered := 0
	for _, a := range abs {
		if a <= b.QAbsDB {
			covered++
		}
	}
	b.EmpiricalCoverage = float64(covered) / float64(n)
	return b, nil
}

// GroupBand is the Mondrian band of one group (for SPEC §2.6 a macro-region
// N, NE, CO, SE or S).
type GroupBand struct {
	Group string `json:"region_code"`
	Band
}

// Calibration holds a marginal band and the Mondrian bands of the groups
// that have enough residuals for their own (SPEC §2.6 by_region).
type Calibration struct {
	// Marginal is calibrated on every residual.
	Marginal Band `json:"marginal"`
	// ByGroup lists the groups with a local band, sorted by group key. A
	// group with too few residuals for FitBand has none; its rows use
	// Marginal.
	ByGroup []GroupBand `json:"by_group,omitempty"`
	// Unseen is the band of transmitters the model never saw
	// (FitUnseenBand; artifact layout version 3); nil: none was
	// calibrated, and every row uses Marginal or its group's band.
	Unseen *UnseenBand `json:"unseen,omitempty"`
}

// FitMondrian calibrates the marginal band on all residuals and one band
// per distinct group key (groups[i] is residual i's group; "" means no
// group and only counts for the marginal band). A group gets its own band
// exactly when FitBand succeeds on its residuals; the others fall back to
// the marginal band (SPEC §2.6: "otherwise it silently uses the marginal
// band"). groups may be nil (no Mondrian bands).
func FitMondrian(residuals []float64, groups []string, alpha float64) (Calibration, error) {
	if groups != nil && len(groups) != len(residuals) {
		return Calibration{}, fmt.Errorf("fit mondrian bands: %d residuals but %d group keys: %w", len(residuals), len(groups), appliance.ErrInvalid)
	}
	m, err := FitBand(residuals, alpha)
	if err != nil {
		return Calibration{}, fmt.Errorf("fit marginal band: %w", err)
	}
	c := Calibration{Marginal: m}
	if groups == nil {
		return c, nil
	}
	by := make(map[string][]float64)
	for i, g := range groups {
		if g != "" {
			by[g] = append(by[g], residuals[i])
		}
	}
	keys := make([]string, 0, len(by))
	for g := range by {
		keys = append(keys, g)
	}
	slices.Sort(keys)
	for _, g := range keys {
		b, err := FitBand(by[g], alpha)
		if errors.Is(err, ErrTooFewResiduals) {
			continue
		}
		if err != nil {
			return Calibration{}, fmt.Errorf("fit band of group %q: %w", g, err)
		}
		c.ByGroup = append(c.ByGroup, GroupBand{Group: g, Band: b})
	}
	return c, nil
}

// BandFor returns the band that serves a row of group g: its local band
// with mondrian true when g has one, else the marginal band with mondrian
// false.
func (c *Calibration) BandFor(g string) (b Band, mondrian bool) {
	i, ok := slices.BinarySearchFunc(c.ByGroup, g, func(gb GroupBand, g string) int {
		switch {
		case gb.Group < g:
			return -1
		case gb.Group > g:
			return 1
		}
		return 0
	})
	if ok && g != "" {
		return c.ByGroup[i].Band, true
	}
	return c.Marginal, false
}

// CoverageReport is the empirical coverage of bands on a set of residuals.
type CoverageReport struct {
	// N is the number of rows evaluated; Covered those with |r| <= the
	// half-width of their band.
	N       int `json:"n"`
	Covered int `json:"covered"`
	// EmpiricalCoverage is Covered/N.
	EmpiricalCoverage float64 `json:"empirical_coverage"`
	// MeanWidthDB is the mean of 2·half-width over the rows.
	MeanWidthDB float64 `json:"mean_width_db"`
	// Mondrian counts the rows served by a local (group) band.
	Mondrian int `json:"mondrian"`
}

// Coverage evaluates c on residuals (observed - predicted, dB) of rows
// with group keys groups (nil: every row uses the marginal band): each row
// is served by c.BandFor(its group), as a prediction would be. It fails on
// empty input or mismatched lengths.
func (c *Calibration) Coverage(residuals []float64, groups []string) (CoverageReport, error) {
	if len(residuals) == 0 {
		return CoverageReport{}, fmt.Errorf("conformal coverage of no rows: %w", appliance.ErrInvalid)
	}
	if groups != nil && len(groups) != len(residuals) {
		return CoverageReport{}, fmt.Errorf("conformal coverage: %d residuals but %d group keys: %w", len(residuals), len(groups), appliance.ErrInvalid)
	}
	rep := CoverageReport{N: len(residuals)}
	var width float64
	for i, r := range residuals {
		g := ""
		if groups != nil {
			g = groups[i]
		}
		b, mondrian := c.BandFor(g)
		if mondrian {
			rep.Mondrian++
		}
		if math.Abs(r) <= b.QAbsDB {
			rep.Covered++
		}
		width += 2 * b.QAbsDB
	}
	rep.EmpiricalCoverage = float64(rep.Covered) / float64(rep.N)
	rep.MeanWidthDB = width / float64(rep.N)
	return rep, nil
}

// GroupCoverage is the out-of-group coverage of one group.
type GroupCoverage struct {
	Group string `json:"region_code"`
	// Band is calibrated on the residuals of every other group.
	Band Band `json:"band"`
	// Report is that band's coverage of this group's rows
	// (cv_by_region[*].conformal_coverage is Report.EmpiricalCoverage).
	Report CoverageReport `json:"report"`
}

// OutOfGroupCoverage measures how a band transfers to a group it has not
// seen (SPEC §2.6 cv_by_region[*].conformal_coverage): for each distinct
// non-empty group key, sorted, a marginal band is calibrated on the other
// rows' residuals and evaluated on the group's rows. A group whose
// complement is too small for a band is left out.
func OutOfGroupCoverage(residuals []float64, groups []string, alpha float64) ([]GroupCoverage, error) {
	if len(groups) != len(residuals) {
		return nil, fmt.Errorf("out-of-group coverage: %d residuals but %d group keys: %w", len(residuals), len(groups), appliance.ErrInvalid)
	}
	seen := make(map[string]bool)
	var keys []string
	for _, g := range groups {
		if g != "" && !seen[g] {
			seen[g] = true
			keys = append(keys, g)
		}
	}
	slices.Sort(keys)
	var out []GroupCoverage
	for _, g := range keys {
		var in, rest []float64
		for i, r := range residuals {
			if groups[i] == g {
				in = append(in, r)
			} else {
				rest = append(rest, r)
			}
		}
		b, err := FitBand(rest, alpha)
		if errors.Is(err, ErrTooFewResiduals) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("out-of-group band for %q: %w", g, err)
		}
		c := Calibration{Marginal: b}
		rep, err := c.Coverage(in, nil)
		if err != nil {
			return nil, fmt.Errorf("out-of-group coverage of %q: %w", g, err)
		}
		out = append(out, GroupCoverage{Group: g, Band: b, Report: rep})
	}
	return out, nil
}
