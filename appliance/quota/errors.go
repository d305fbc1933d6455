package quota

import (
	"fmt"
	"time"

	"linkplan/appliance"
)

// LimitError is a refusal by a quota or a rate limit. It matches
// appliance.ErrQuota; the service returns it wrapped in an
// *appliance.RetryAfterError carrying the wait.
type LimitError struct {
	// Counter is the monthly counter that is spent, or "" for a rate limit.
	Counter Counter
	Group   Group // the route group of a rate limit
	Tier    appliance.Tier
	Limit   int       // the monthly cap, or the requests per RateWindow
	Used    int       // the month's count (monthly) or Limit (rate)
	Reset   time.Time // when a retry can succeed: the next month, or the next free slot
}

func (e *LimitError) Error() string {
	if e.Counter == "" {
		return fmt.Sprintf("rate limit of the %s tier reached: %d requests per minute on %s routes; retry after %s",
			e.Tier, e.Limit, e.Group, e.Reset.UTC().Format(time.RFC3339))
	}
	return fmt.Sprintf("monthly %s quota of the %s tier reached: %d of %d used; the quota resets at %s",
		e.Counter, e.Tier, e.Used, e.Limit, e.Reset.UTC().Format(time.RFC3339))
}

// Is reports that a LimitError is an appliance.ErrQuota.
func (e *LimitError) Is(target error) bool { return target == appliance.ErrQuota }
