package batch

import (
	"fmt"

	"linkplan/appliance"
	"linkplan/appliance/geoexport"
)

// Row statuses (the "status" of a RowResult and of results.csv): the values
// of package geoexport.
const (
	StatusOK        = geoexport.StatusOK        // best tower with a margin >= 0 dB
	StatusLowMargin = geoexport.StatusLowMargin // best tower, margin < 0 dB
	StatusNoTower   = geoexport.StatusNoTower   // no tower can serve the receiver
	StatusError     = geoexport.StatusError     // the row could not be analysed
)

// SyncMaxRows is the most rows run synchronously (SPEC §4.6); a larger
// batch becomes a queued job.
const SyncMaxRows = 100

// Limit returns the most rows of one batch job for tier t (SPEC §8.1): Free
// 0 (disabled), Starter 100, Pro 2,000, Business 5,000, Enterprise 10,000,
// Ultra 50,000. An unknown or erased tier gets 0.
func Limit(t appliance.Tier) int {
	switch t {
	case appliance.TierStarter:
		return 100
	case appliance.TierPro:
		return 2000
	case appliance.TierBusiness:
		return 5000
	case appliance.TierEnterprise:
		return 10000
	case appliance.TierUltra:
		return 50000
	}
	return 0
}

// PDFLimit returns the PDF reports per calendar month of tier t (SPEC
// §8.1): appliance.Tier.PDFsPerMonth.
func PDFLimit(t appliance.Tier) int { return t.PDFsPerMonth() }

// LimitError is a batch over its tier's row limit (SPEC §7: 400 with an
// explicit parseable message, never silently queued). It matches
// appliance.ErrInvalid. Its message is
//
//	batch has <Count> rows; the <Tier> tier allows at most <Limit> rows per job
//
// ("batch has more than <Count> rows" when AtLeast: the parser stopped
// counting), and without the tier ("; at most <Limit> rows per job") when
// Tier is empty (ParseCSV does not know it).
type LimitError struct {
	Limit int // rows per job of the tier
	Count int // rows of the batch (a lower bound when AtLeast)
	// AtLeast is set when the count stopped at MaxCountedRows.
	AtLeast bool
	Tier    appliance.Tier
}

func (e *LimitError) Error() string {
	n := fmt.Sprintf("%d", e.Count)
	if e.AtLeast {
		n = "more than " + n
	}
	if e.Tier == "" {
		return fmt.Sprintf("batch has %s rows; at most %d rows per job", n, e.Limit)
	}
	return fmt.Sprintf("batch has %s rows; the %s tier allows at most %d rows per job", n, e.Tier, e.Limit)
}

// Is reports that a LimitError is an appliance.ErrInvalid.
func (e *LimitError) Is(target error) bool { return target == appliance.ErrInvalid }

// CheckTier checks that tier t may submit a batch of rows rows: Free (and
// an unknown tier) is appliance.ErrForbidden, an empty batch a
// ValidationError on "rows", more than Limit(t) rows a *LimitError.
func CheckTier(t appliance.Tier, rows int) error {
	lim := Limit(t)
	if lim == 0 {
		if t == appliance.TierFree {
			return fmt.Errorf("batch reports are not available on the Free tier: %w", appliance.ErrForbidden)
		}
		return fmt.Errorf("batch reports are not available on tier %q: %w", t, appliance.ErrForbidden)
	}
	if rows == 0 {
		return appliance.Invalid("rows", "the batch has no rows")
	}
	if rows > lim {
		return &LimitError{Limit: lim, Count: rows, Tier: t}
	}
	return nil
}
