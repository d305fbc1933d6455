package jsq

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"linkplan/appliance"
)

// Ledger is the store of record of the jobs (store.DB): every state, the
// audit entries in the same transactions, the fairness rule, the tenant
// scoping and the fencing tokens. JobQueue adds the lease messages.
type Ledger interface {
	appliance.JobQueue
	// RequeueOrphan handles the lease of job id under token whose holder
	// died while this process lives: a crash and an interruption, as
	// RequeueOrphans counts them for every running job at a start
	// (quarantine at appliance.JobCrashLimit). moved is false when the
	// lease is no longer current.
	RequeueOrphan(ctx context.Context, id string, token uint64, now time.Time) (moved bool, quarantined *appliance.Job, err error)
	JobCounts(ctx context.Context) (queued, running int, err error)
	JobsByTenant(ctx context.Context, tenantID string, limit int) ([]*appliance.Job, error)
	Audit(tenantID string, limit int) ([]appliance.AuditEntry, error)
}

// leaseMsg is the body of a job's lease message.
type leaseMsg struct {
	Job    string `json:"job"`
	Tenant string `json:"tenant"`
	Token  uint64 `json:"token"`
	Holder string `json:"holder"`
}

// held is a lease message this queue holds for a lease it gave out.
type held struct {
	tenant string
	token  uint64
	msg    jetstream.Msg
}

// JobQueue is appliance.JobQueue with the job records in a Ledger and
// every running job's lease held as an unacknowledged JetStream message
// (package doc, "Job queue").
type JobQueue struct {
	ledger Ledger
	cfg    Config
	js     jetstream.JetStream
	cons   jetstream.Consumer
	log    *slog.Logger
	now    func() time.Time

	mu   sync.Mutex // orders the lease calls: a lease message is fetched right after it is published
	held map[string]*held

	// Orphans counts the leases found dead by redelivery (a holder in
	// another process died); tests read it.
	orphans int
}

// NewJobQueue returns the JetStream job queue over ledger, on the server
// of nc (Setup must have run). log receives the orphans found by
// redelivery; nil discards it.
func NewJobQueue(ctx context.Context, ledger Ledger, nc *nats.Conn, cfg Config, log *slog.Logger) (*JobQueue, error) {
	cfg = cfg.withDefaults()
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("jetstream job queue: %w", err)
	}
	cons, err := js.Consumer(ctx, cfg.jobsStream(), LeaseConsumer)
	if err != nil {
		return nil, fmt.Errorf("jetstream job queue: lease consumer: %w", err)
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &JobQueue{ledger: ledger, cfg: cfg, js: js, cons: cons, log: log, now: time.Now, held: map[string]*held{}}, nil
}

var _ appliance.JobQueue = (*JobQueue)(nil)

// Enqueue stores j in the ledger (record, queue entry and audit entries in
// one transaction). Nothing goes to JetStream until a lease.
func (q *JobQueue) Enqueue(ctx context.Context, j *appliance.Job) error {
	return q.ledger.Enqueue(ctx, j)
}

// Lease leases the next job by the ledger's fairness rule, then publishes
// its lease message and holds it unacknowledged: the message is the
// lease's liveness, renewed by Extend and Checkpoint and acknowledged by
// the verdict. When the message cannot be published or fetched the lease
// is released and the error returned.
func (q *JobQueue) Lease(ctx context.Context, worker string, ttl time.Duration, now time.Time) (*appliance.Lease, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	l, err := q.ledger.Lease(ctx, worker, ttl, now)
	if err != nil {
		return nil, err
	}
	if err := q.hold(ctx, l, worker); err != nil {
		if rerr := q.ledger.Release(context.Background(), l, now); rerr != nil {
			err = errors.Join(err, rerr)
		}
		return nil, fmt.Errorf("jetstream job queue: lease %s: %w", l.Job.ID, err)
	}
	return l, nil
}

// hold publishes l's lease message and fetches it from the lease
// consumer. Messages fetched before it are redeliveries: leases whose
// holder went silent (handled by orphan).
func (q *JobQueue) hold(ctx context.Context, l *appliance.Lease, worker string) error {
	body, _ := json.Marshal(leaseMsg{Job: l.Job.ID, Tenant: l.Job.TenantID, Token: l.Token, Holder: worker})
	id := fmt.Sprintf("%s/%d", l.Job.ID, l.Token)
	if _, err := q.js.Publish(ctx, q.cfg.leaseSubject(l.Job.ID), body, jetstream.WithMsgID(id)); err != nil {
		return fmt.Errorf("publish lease message: %w", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		b, err := q.cons.Fetch(1, jetstream.FetchMaxWait(time.Until(deadline)))
		if err != nil {
			return fmt.Errorf("fetch lease message: %w", err)
		}
		found := false
		for m := range b.Messages() {
			var lm leaseMsg
			if json.Unmarshal(m.Data(), &lm) != nil {
				_ = m.Term()
				continue
			}
			if lm.Job == l.Job.ID && lm.Token == l.Token {
				q.held[lm.Job] = &held{tenant: lm.Tenant, token: lm.Token, msg: m}
				found = true
				continue
			}
			q.redelivered(ctx, m, lm)
		}
		if err := b.Error(); err != nil && !isTimeout(err) {
			return fmt.Errorf("fetch lease message: %w", err)
		}
		if found {
			return nil
		}
	}
	return errors.New("lease message not delivered within 5 s")
}

// redelivered handles a lease message delivered again: this process's own
// lease whose renewal came late (it keeps holding the new delivery), or
// the lease of a holder that died (orphan).
func (q *JobQueue) redelivered(ctx context.Context, m jetstream.Msg, lm leaseMsg) {
	if h, ok := q.held[lm.Job]; ok && h.token == lm.Token {
		h.msg = m
		return
	}
	q.orphan(ctx, m, lm)
}

// orphan counts the death of a lease's holder in the ledger, then
// acknowledges the message: the ledger now owns what happens to the job.
func (q *JobQueue) orphan(ctx context.Context, m jetstream.Msg, lm leaseMsg) {
	moved, quarantined, err := q.ledger.RequeueOrphan(ctx, lm.Job, lm.Token, q.now().UTC())
	if err != nil {
		q.log.Error("jobs: orphaned lease", "job", lm.Job, "err", err)
		return // delivered again after the ack wait
	}
	if moved {
		q.orphans++
		q.log.Warn("jobs: the holder of a lease stopped renewing it; the job counts a crash", "job", lm.Job, "holder", lm.Holder)
	}
	if quarantined != nil {
		q.log.Error("jobs: quarantined: its holders stopped twice while it ran", "job", lm.Job, "tenant", lm.Tenant)
	}
	_ = m.Ack()
}

// drain fetches the lease messages delivered again (without waiting) and
// handles them.
func (q *JobQueue) drain(ctx context.Context) error {
	b, err := q.cons.FetchNoWait(256)
	if err != nil {
		return fmt.Errorf("fetch lease messages: %w", err)
	}
	for m := range b.Messages() {
		var lm leaseMsg
		if json.Unmarshal(m.Data(), &lm) != nil {
			_ = m.Term()
			continue
		}
		q.redelivered(ctx, m, lm)
	}
	if err := b.Error(); err != nil && !isTimeout(err) {
		return fmt.Errorf("fetch lease messages: %w", err)
	}
	return nil
}

// renew tells the server the holder of l is alive: the lease message's
// ack wait starts again.
func (q *JobQueue) renew(l *appliance.Lease) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if h, ok := q.held[l.Job.ID]; ok && h.token == l.Token {
		_ = h.msg.InProgress()
	}
}

// release acknowledges l's lease message: the lease ended (a verdict, a
// lost lease, a cancel).
func (q *JobQueue) release(l *appliance.Lease) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if l == nil || l.Job == nil {
		return
	}
	if h, ok := q.held[l.Job.ID]; ok && h.token == l.Token {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := h.msg.DoubleAck(ctx); err != nil {
			q.log.Warn("jobs: lease message not acknowledged; it comes back and is dropped as stale", "job", l.Job.ID, "err", err)
		}
		cancel()
		delete(q.held, l.Job.ID)
	}
}

// ended reports an error after which the lease is over.
func ended(err error) bool {
	return err == nil || errors.Is(err, appliance.ErrLeaseLost) || errors.Is(err, appliance.ErrJobCanceled)
}

// Extend renews the lease in the ledger and its message's ack wait.
func (q *JobQueue) Extend(ctx context.Context, l *appliance.Lease, ttl time.Duration, now time.Time) error {
	err := q.ledger.Extend(ctx, l, ttl, now)
	if err != nil {
		if ended(err) {
			q.release(l)
		}
		return err
	}
	q.renew(l)
	return nil
}

// Checkpoint writes items and progress in the ledger (one transaction)
// and renews the lease message.
func (q *JobQueue) Checkpoint(ctx context.Context, l *appliance.Lease, p appliance.JobProgress, items []appliance.JobItem, now time.Time) error {
	err := q.ledger.Checkpoint(ctx, l, p, items, now)
	if err != nil {
		if ended(err) {
			q.release(l)
		}
		return err
	}
	q.renew(l)
	return nil
}

// Ack records the success in the ledger, then acknowledges the lease
// message.
func (q *JobQueue) Ack(ctx context.Context, l *appliance.Lease, r appliance.JobResult, retention time.Duration, now time.Time) error {
	err := q.ledger.Ack(ctx, l, r, retention, now)
	if ended(err) {
		q.release(l)
	}
	return err
}

// Fail records the failure in the ledger (which queues the job again
// after its backoff, or fails it), then acknowledges the lease message: a
// retry is a new lease with a new message.
func (q *JobQueue) Fail(ctx context.Context, l *appliance.Lease, reason string, retryable bool, backoff time.Duration, now time.Time) (appliance.JobState, error) {
	st, err := q.ledger.Fail(ctx, l, reason, retryable, backoff, now)
	if ended(err) {
		q.release(l)
	}
	return st, err
}

// Release gives the lease back in the ledger and acknowledges its
// message.
func (q *JobQueue) Release(ctx context.Context, l *appliance.Lease, now time.Time) error {
	err := q.ledger.Release(ctx, l, now)
	if ended(err) {
		q.release(l)
	}
	return err
}

// settle acknowledges the held messages whose lease the ledger ended
// (expired, orphaned, canceled).
func (q *JobQueue) settle(ctx context.Context) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for id, h := range q.held {
		j, err := q.ledger.Get(ctx, h.tenant, id)
		if err == nil && j.State == appliance.JobRunning && j.LeaseToken == h.token {
			continue
		}
		if err != nil && !errors.Is(err, appliance.ErrNotFound) {
			continue
		}
		_ = h.msg.Ack()
		delete(q.held, id)
	}
}

// Requeue requeues the leases that expired before now in the ledger (the
// rule of the contract: a lease the live process did not renew), drops
// their messages, and handles the lease messages delivered again (a
// holder elsewhere died: RequeueOrphan).
func (q *JobQueue) Requeue(ctx context.Context, now time.Time) (int, error) {
	n, err := q.ledger.Requeue(ctx, now)
	if err != nil {
		return n, err
	}
	q.settle(ctx)
	q.mu.Lock()
	derr := q.drain(ctx)
	q.mu.Unlock()
	if derr != nil {
		q.log.Warn("jobs: lease messages not read", "err", derr)
	}
	return n, nil
}

// RequeueOrphans handles, at a start, every running job of the ledger as
// the lease of a dead process (the ledger's file lock admits one
// process, so none can be alive). The lease messages of the dead process
// come back after their ack wait and are dropped as stale.
func (q *JobQueue) RequeueOrphans(ctx context.Context, now time.Time) (int, []*appliance.Job, error) {
	n, quarantined, err := q.ledger.RequeueOrphans(ctx, now)
	if err == nil {
		q.settle(ctx)
	}
	return n, quarantined, err
}

// Cancel cancels tenant's job in the ledger (the audit entries in the
// same transaction). A running job's lease ends at its holder's next
// call.
func (q *JobQueue) Cancel(ctx context.Context, tenantID, id string, now time.Time, audit ...appliance.AuditEntry) (*appliance.Job, error) {
	return q.ledger.Cancel(ctx, tenantID, id, now, audit...)
}

// Get returns tenant's job from the ledger.
func (q *JobQueue) Get(ctx context.Context, tenantID, id string) (*appliance.Job, error) {
	return q.ledger.Get(ctx, tenantID, id)
}

// Items reads a job's items from the ledger.
func (q *JobQueue) Items(ctx context.Context, id string, from int64, fn func(appliance.JobItem) error) error {
	return q.ledger.Items(ctx, id, from, fn)
}

// Sweep applies retention in the ledger.
func (q *JobQueue) Sweep(ctx context.Context, now time.Time, recordRetention time.Duration) ([]appliance.JobResult, error) {
	return q.ledger.Sweep(ctx, now, recordRetention)
}

// JobCounts returns the ledger's counts of queued and running jobs.
func (q *JobQueue) JobCounts(ctx context.Context) (queued, running int, err error) {
	return q.ledger.JobCounts(ctx)
}

// JobsByTenant lists tenant's jobs from the ledger.
func (q *JobQueue) JobsByTenant(ctx context.Context, tenantID string, limit int) ([]*appliance.Job, error) {
	return q.ledger.JobsByTenant(ctx, tenantID, limit)
}

// Audit reads tenant's audit entries from the ledger.
func (q *JobQueue) Audit(tenantID string, limit int) ([]appliance.AuditEntry, error) {
	return q.ledger.Audit(tenantID, limit)
}

// Orphans returns how many leases this queue found dead by redelivery.
func (q *JobQueue) Orphans() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.orphans
}

// Held returns how many lease messages this queue holds (one per running
// job it leased).
func (q *JobQueue) Held() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.held)
}
