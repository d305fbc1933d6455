package quota

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"linkplan/appliance"
)

// Store is what quota needs from storage (store.DB).
type Store interface {
	// Usage returns the stored counters of a tenant for a month.
	Usage(tenantID, month string) (map[string]uint64, error)
	// AddUsage adds the deltas in one transaction.
	AddUsage(deltas []appliance.UsageDelta) error
	// PDFUsage and ReservePDFs are the PDF counter (store/pdfquota.go).
	PDFUsage(tenantID string, now time.Time) (int, error)
	ReservePDFs(ctx context.Context, tenantID, jobID string, want, monthlyLimit int, now time.Time, audit ...appliance.AuditEntry) (granted, usedBefore int, err error)
	// CountUserTowers counts the towers a key registered.
	CountUserTowers(ownerKeyID string) (int, error)
}

// DefaultFlushInterval is how often counts are written to the store.
const DefaultFlushInterval = time.Second

// maxRateEntries bounds the rate table; beyond it, entries whose
// allowance is whole again are swept.
const maxRateEntries = 10000

// Options configure a Service.
type Options struct {
	Now           func() time.Time // nil: time.Now
	FlushInterval time.Duration    // 0: DefaultFlushInterval
	Log           *slog.Logger
}

// Service meters tenants: monthly counters and per-minute rate limits.
// Safe for concurrent use.
type Service struct {
	store Store
	cal   Calendar
	now   func() time.Time
	every time.Duration
	log   *slog.Logger

	mu      sync.Mutex
	months  map[string]*usage     // tenant -> counts of its current month (stored + pending)
	pending map[pendingKey]uint64 // counts not yet written
	rates   map[rateKey]time.Time // GCRA theoretical arrival time per tenant and group
	flushMu sync.Mutex            // one flush at a time
	stop    chan struct{}         // closed by Close
	done    chan struct{}         // closed when the flush loop ends
	started bool
}

type usage struct {
	month  string
	counts map[Counter]uint64
}

type pendingKey struct {
	tenant, month string
	counter       Counter
}

type rateKey struct {
	tenant string
	group  Group
}

// New returns a Service over st. Counts are flushed by Start's loop and by
// Close (or Flush).
func New(st Store, opt Options) *Service {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.FlushInterval <= 0 {
		opt.FlushInterval = DefaultFlushInterval
	}
	if opt.Log == nil {
		opt.Log = slog.New(slog.DiscardHandler)
	}
	return &Service{store: st, cal: NewCalendar(), now: opt.Now, every: opt.FlushInterval, log: opt.Log.With("component", "quota"),
		months: map[string]*usage{}, pending: map[pendingKey]uint64{}, rates: map[rateKey]time.Time{},
		stop: make(chan struct{}), done: make(chan struct{})}
}

// Start starts the flush loop; Close stops it.
func (s *Service) Start(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started {
		return errors.New("quota: started twice")
	}
	s.started = true
	go s.loop(ctx)
	return nil
}

func (s *Service) loop(ctx context.Context) {
	defer close(s.done)
	t := time.NewTicker(s.every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.stop:
			return
		case <-t.C:
			if err := s.Flush(); err != nil {
				s.log.Warn("usage counts not written; kept for the next flush", "err", err)
			}
		}
	}
}

// Close stops the flush loop and writes the pending counts.
func (s *Service) Close(ctx context.Context) error {
	s.mu.Lock()
	started := s.started
	s.mu.Unlock()
	if started {
		select {
		case <-s.stop:
		default:
			close(s.stop)
		}
		select {
		case <-s.done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return s.Flush()
}

// Flush writes the pending counts in one transaction. On a store error
// they stay pending (added back) and the error is returned.
func (s *Service) Flush() error {
	s.flushMu.Lock()
	defer s.flushMu.Unlock()
	s.mu.Lock()
	if len(s.pending) == 0 {
		s.mu.Unlock()
		return nil
	}
	batch := s.pending
	s.pending = map[pendingKey]uint64{}
	s.mu.Unlock()
	deltas := make([]appliance.UsageDelta, 0, len(batch))
	for k, n := range batch {
		deltas = append(deltas, appliance.UsageDelta{TenantID: k.tenant, Month: k.month, Counter: string(k.counter), N: n})
	}
	if err := s.store.AddUsage(deltas); err != nil {
		s.mu.Lock()
		for k, n := range batch {
			s.pending[k] += n
		}
		s.mu.Unlock()
		return fmt.Errorf("flush usage: %w", err)
	}
	return nil
}

// Decision is what Admit tells the client about the limit closest to
// exhaustion (the RateLimit-* headers): its size, what is left after this
// request, and when it is whole again.
type Decision struct {
	Metered   bool // false for admin keys: no headers
	Limit     int
	Remaining int
	Reset     time.Duration
}

// Admit meters one request of key k on a route of group g at the current
// time: it refuses it when the month's calls are spent (LimitError with
// Counter calls, retry at the next month) or the group's rate is exceeded
// (LimitError without Counter, retry when a slot frees), both wrapped in
// *appliance.RetryAfterError; else it counts the call (GroupTenant routes
// are not counted) and returns the headers' figures. Admin keys are not
// metered.
func (s *Service) Admit(k *appliance.APIKey, g Group) (Decision, error) {
	if k.Role == appliance.RoleAdmin {
		return Decision{}, nil
	}
	now := s.now()
	rate := RatePerMinute(k.Tier, g)
	monthly := MonthlyLimit(k.Tier, CounterCalls)
	if rate <= 0 {
		return Decision{}, fmt.Errorf("admit: tier %q has no rate for group %q: %w", k.Tier, g, appliance.ErrForbidden)
	}
	u, err := s.current(k.TenantID, now)
	if err != nil {
		return Decision{}, err
	}
	counted := g != GroupTenant
	s.mu.Lock()
	defer s.mu.Unlock()
	used := int(u.counts[CounterCalls])
	if counted && used >= monthly {
		reset := s.cal.NextReset(now)
		return Decision{Metered: true, Limit: monthly, Remaining: 0, Reset: reset.Sub(now)}, &appliance.RetryAfterError{After: reset.Sub(now),
			Err: &LimitError{Counter: CounterCalls, Tier: k.Tier, Limit: monthly, Used: used, Reset: reset}}
	}
	// GCRA: each request moves the theoretical arrival time (tat) on by
	// one emission interval; a request whose tat would lie more than the
	// window ahead is refused.
	interval := RateWindow / time.Duration(rate)
	rk := rateKey{k.TenantID, g}
	tat := s.rates[rk]
	if tat.Before(now) {
		tat = now
	}
	next := tat.Add(interval)
	if ahead := next.Sub(now); ahead > RateWindow {
		wait := ahead - RateWindow
		return Decision{Metered: true, Limit: rate, Remaining: 0, Reset: tat.Sub(now)}, &appliance.RetryAfterError{After: wait,
			Err: &LimitError{Group: g, Tier: k.Tier, Limit: rate, Used: rate, Reset: now.Add(wait)}}
	}
	if len(s.rates) >= maxRateEntries {
		for key, t := range s.rates {
			if !t.After(now) {
				delete(s.rates, key)
			}
		}
	}
	s.rates[rk] = next
	d := Decision{Metered: true, Limit: rate, Remaining: int((RateWindow - next.Sub(now)) / interval), Reset: next.Sub(now)}
	if counted {
		u.counts[CounterCalls]++
		s.pending[pendingKey{k.TenantID, u.month, CounterCalls}]++
		if left := monthly - used - 1; left < d.Remaining {
			d = Decision{Metered: true, Limit: monthly, Remaining: left, Reset: s.cal.NextReset(now).Sub(now)}
		}
	}
	return d, nil
}

// ChargeAI counts one AI call of key k against the tier's monthly AI quota
// (SPEC §4.7), the hook of the AI endpoints: Free is ErrForbidden (no AI),
// a spent quota a LimitError with Counter ai in an
// *appliance.RetryAfterError (429). Admin keys are not metered.
func (s *Service) ChargeAI(k *appliance.APIKey) error {
	if k.Role == appliance.RoleAdmin {
		return nil
	}
	limit := MonthlyLimit(k.Tier, CounterAI)
	if limit <= 0 {
		return fmt.Errorf("the %s tier has no AI: %w", k.Tier, appliance.ErrForbidden)
	}
	now := s.now()
	u, err := s.current(k.TenantID, now)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if used := int(u.counts[CounterAI]); used >= limit {
		reset := s.cal.NextReset(now)
		return &appliance.RetryAfterError{After: reset.Sub(now), Err: &LimitError{Counter: CounterAI, Tier: k.Tier, Limit: limit, Used: used, Reset: reset}}
	}
	u.counts[CounterAI]++
	s.pending[pendingKey{k.TenantID, u.month, CounterAI}]++
	return nil
}

// ReservePDF counts one synchronous PDF report of key k against the
// tier's monthly PDF quota (the counter of store/pdfquota.go that batch
// jobs share); id names the report (unique per report: a reservation is
// idempotent per id). The report.pdf audit entry (the request's actor)
// commits with the reservation. A spent quota is a LimitError with Counter
// pdfs. Admin keys are not metered.
func (s *Service) ReservePDF(ctx context.Context, k *appliance.APIKey, id string) error {
	if k.Role == appliance.RoleAdmin {
		return nil
	}
	now := s.now()
	limit := MonthlyLimit(k.Tier, CounterPDFs)
	audit := appliance.ActorFrom(ctx).Entry(appliance.ActionReportPDF, k.TenantID, map[string]string{"report_id": id})
	granted, used, err := s.store.ReservePDFs(ctx, k.TenantID, id, 1, limit, now, audit)
	if err != nil {
		return fmt.Errorf("reserve pdf: %w", err)
	}
	if granted == 0 {
		reset := s.cal.NextReset(now)
		return &appliance.RetryAfterError{After: reset.Sub(now), Err: &LimitError{Counter: CounterPDFs, Tier: k.Tier, Limit: limit, Used: used, Reset: reset}}
	}
	return nil
}

// current returns the counts of tenant for the month of now, loading them
// from the store on a tenant's first request of a month (outside the
// lock; a concurrent load's result is kept once).
func (s *Service) current(tenant string, now time.Time) (*usage, error) {
	month := s.cal.Month(now)
	s.mu.Lock()
	u := s.months[tenant]
	s.mu.Unlock()
	if u != nil && u.month == month {
		return u, nil
	}
	stored, err := s.store.Usage(tenant, month)
	if err != nil {
		return nil, fmt.Errorf("load usage of %s: %w", tenant, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if u := s.months[tenant]; u != nil && u.month == month {
		return u, nil
	}
	u = &usage{month: month, counts: map[Counter]uint64{}}
	for c, n := range stored {
		u.counts[Counter(c)] = n
	}
	// Counts of this month still pending (the entry was replaced by an
	// earlier month's request racing this one) are not in the store yet.
	for pk, n := range s.pending {
		if pk.tenant == tenant && pk.month == month {
			u.counts[pk.counter] += n
		}
	}
	s.months[tenant] = u
	return u, nil
}
