package quota

import (
	"fmt"
	"time"

	"linkplan/appliance"
)

// Limit reasons of a counter without a cap (the cap is null, never a
// word such as "unlimited"; SPEC §8.1).
const (
	ReasonAdmin      = "admin keys are not metered: operator access"
	ReasonNoTowers   = "the Business tier has no cap on towers per key (SPEC §8.1)"
	ReasonNoAIOnFree = "the Free tier has no AI (SPEC §8.1): a cap of 0"
)

// CounterReport is one counter of a Report. Limit and Remaining are nil
// when there is no cap, and Reason says why; ResetAt is nil for a counter
// that does not reset (towers per key).
type CounterReport struct {
	Name      string
	Period    string // "month" or "key" (towers per key: the key's lifetime)
	Limit     *int
	Used      int
	Remaining *int
	ResetAt   *time.Time
	Reason    string
}

// RateReport is one route group's rate limit of a Report.
type RateReport struct {
	Group          Group
	LimitPerMinute int
	Remaining      int           // requests that could be sent now
	Reset          time.Duration // until the whole allowance is back
}

// Report is the quota picture of a key (GET /v1/me/quota).
type Report struct {
	Tier     appliance.Tier
	TenantID string
	Month    string // "YYYY-MM", America/Sao_Paulo
	Metered  bool
	Reason   string // why not metered
	Counters []CounterReport
	Rates    []RateReport
}

func intp(n int) *int { return &n }

// Report returns the quota picture of key k at the current time: the
// calls, PDF and AI counters of the month, the towers of the key, and the
// rate of every route group. It counts nothing.
func (s *Service) Report(k *appliance.APIKey) (*Report, error) {
	now := s.now()
	r := &Report{Tier: k.Tier, TenantID: k.TenantID, Month: s.cal.Month(now), Metered: k.Role != appliance.RoleAdmin}
	towers, err := s.store.CountUserTowers(k.ID)
	if err != nil {
		return nil, fmt.Errorf("quota report: %w", err)
	}
	if !r.Metered {
		r.Reason = ReasonAdmin
		for _, c := range []CounterReport{{Name: string(CounterCalls), Period: "month"}, {Name: string(CounterPDFs), Period: "month"},
			{Name: string(CounterAI), Period: "month"}, {Name: "towers", Period: "key", Used: towers}} {
			c.Reason = ReasonAdmin
			r.Counters = append(r.Counters, c)
		}
		return r, nil
	}
	u, err := s.current(k.TenantID, now)
	if err != nil {
		return nil, err
	}
	pdfs, err := s.store.PDFUsage(k.TenantID, now)
	if err != nil {
		return nil, fmt.Errorf("quota report: %w", err)
	}
	reset := s.cal.NextReset(now)
	s.mu.Lock()
	calls, ai := int(u.counts[CounterCalls]), int(u.counts[CounterAI])
	for _, g := range Groups() {
		rate := RatePerMinute(k.Tier, g)
		rr := RateReport{Group: g, LimitPerMinute: rate, Remaining: rate}
		if tat := s.rates[rateKey{k.TenantID, g}]; tat.After(now) && rate > 0 {
			ahead := tat.Sub(now)
			rr.Remaining = int((RateWindow - ahead) / (RateWindow / time.Duration(rate)))
			rr.Reset = ahead
		}
		r.Rates = append(r.Rates, rr)
	}
	s.mu.Unlock()
	monthly := func(c Counter, used int, reason string) CounterReport {
		lim := MonthlyLimit(k.Tier, c)
		return CounterReport{Name: string(c), Period: "month", Limit: intp(lim), Used: used, Remaining: intp(max(0, lim-used)), ResetAt: &reset, Reason: reason}
	}
	aiReason := ""
	if k.Tier == appliance.TierFree {
		aiReason = ReasonNoAIOnFree
	}
	r.Counters = append(r.Counters, monthly(CounterCalls, calls, ""), monthly(CounterPDFs, pdfs, ""), monthly(CounterAI, ai, aiReason))
	tc := CounterReport{Name: "towers", Period: "key", Used: towers}
	if lim := k.Tier.TowersPerKey(); lim < 0 {
		tc.Reason = ReasonNoTowers
	} else {
		tc.Limit, tc.Remaining = intp(lim), intp(max(0, lim-towers))
	}
	r.Counters = append(r.Counters, tc)
	return r, nil
}
