package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"

	"linkplan/appliance"
)

var _ appliance.JobQueue = (*DB)(nil)

// The job queue lives in four buckets (schema versions 4 and 6):
//
//	jobs          job id -> jobRecord (JSON, without the payload)
//	job_payloads  job id -> payload bytes, while the job is not terminal
//	job_items  job id -> nested bucket: big-endian item index -> item data
//	job_queue  the indexes, each key led by one tag byte:
//	  'q' lane tenant 0x00 seq(8)  -> notBefore unix ns (8) + job id  queued jobs, FIFO per lane and tenant
//	  'l' lane tenant              -> served(8)   lease counter when the tenant was last served in the lane
//	  'r' leaseExpires ns(8) id    -> empty       running jobs by lease expiry (Requeue)
//	  'e' expires ns(8) id         -> empty       succeeded jobs by result expiry (Sweep)
//	  'f' finished ns(8) id        -> empty       terminal jobs by finish time (Sweep of records)
//	  't' tenant 0x00 seq(8)       -> job id      every job of a tenant (JobsByTenant)
//	  "counter"                    -> served(8)   leases made so far
//	  "streak"                     -> n(8)        priority leases in a row while standard had a ready job
//
// Lane bytes: 'P' priority, 'S' standard. Tenant ids may not contain 0x00.
var (
	keyJobCounter = []byte("counter")
	keyJobStreak  = []byte("streak")
)

// PriorityStreak is how many leases in a row the priority lane may take
// while the standard lane has a ready job; the next lease goes to the
// standard lane. The priority lane gets at most 3/4 of leases under
// contention, the standard lane at least 1/4.
const PriorityStreak = 3

// jobRecord is the stored shape of a job. Times are unix nanoseconds, 0 for
// the zero time. The payload lives in job_payloads since schema version 6:
// a record is rewritten at every checkpoint and read at every status poll,
// and a 50,000-row batch payload (megabytes) in it made each of those cost
// megabytes of JSON (the 100,000-row benchmark wrote 1.3 GB to the file).
// Payload is only read, by the version 6 migration, from older records.
type jobRecord struct {
	ID               string `json:"id"`
	TenantID         string `json:"tenant_id"`
	KeyID            string `json:"key_id,omitempty"`
	Kind             string `json:"kind"`
	Lane             string `json:"lane"`
	State            string `json:"state"`
	Seq              uint64 `json:"seq"`
	Payload          []byte `json:"payload,omitempty"`
	Total            int64  `json:"total"`
	Done             int64  `json:"done"`
	Cursor           []byte `json:"cursor,omitempty"`
	Attempts         int    `json:"attempts"`
	MaxAttempts      int    `json:"max_attempts"`
	Interruptions    int    `json:"interruptions"`
	MaxInterruptions int    `json:"max_interruptions"`
	Crashes          int    `json:"crashes,omitempty"`
	Error            string `json:"error,omitempty"`
	CancelRequested  bool   `json:"cancel_requested,omitempty"`
	LeaseToken       uint64 `json:"lease_token"`
	LeaseOwner       string `json:"lease_owner,omitempty"`
	LeaseExpiresNS   int64  `json:"lease_expires_ns,omitempty"`
	CreatedNS        int64  `json:"created_ns"`
	StartedNS        int64  `json:"started_ns,omitempty"`
	UpdatedNS        int64  `json:"updated_ns"`
	FinishedNS       int64  `json:"finished_ns,omitempty"`
	NotBeforeNS      int64  `json:"not_before_ns,omitempty"`
	Result           *struct {
		Name    string `json:"name"`
		Bytes   int64  `json:"bytes"`
		SHA256  string `json:"sha256"`
		Summary []byte `json:"summary,omitempty"`
	} `json:"result,omitempty"`
	ExpiresNS int64 `json:"expires_ns,omitempty"`
}

func ns(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromNS(v int64) time.Time {
	if v == 0 {
		return time.Time{}
	}
	return time.Unix(0, v).UTC()
}

func toJobRecord(j *appliance.Job) *jobRecord {
	r := &jobRecord{
		ID: j.ID, TenantID: j.TenantID, KeyID: j.KeyID, Kind: string(j.Kind), Lane: string(j.Lane), State: string(j.State),
		Seq: j.Seq, Total: j.Total, Done: j.Done, Cursor: j.Cursor,
		Attempts: j.Attempts, MaxAttempts: j.MaxAttempts, Interruptions: j.Interruptions, MaxInterruptions: j.MaxInterruptions,
		Crashes: j.Crashes, Error: j.Error, CancelRequested: j.CancelRequested, LeaseToken: j.LeaseToken, LeaseOwner: j.LeaseOwner,
		LeaseExpiresNS: ns(j.LeaseExpires), CreatedNS: ns(j.Created), StartedNS: ns(j.Started), UpdatedNS: ns(j.Updated),
		FinishedNS: ns(j.Finished), NotBeforeNS: ns(j.NotBefore), ExpiresNS: ns(j.Expires),
	}
	if j.Result != nil {
		r.Result = &struct {
			Name    string `json:"name"`
			Bytes   int64  `json:"bytes"`
			SHA256  string `json:"sha256"`
			Summary []byte `json:"summary,omitempty"`
		}{j.Result.Name, j.Result.Bytes, j.Result.SHA256, j.Result.Summary}
	}
	return r
}

func (r *jobRecord) job() *appliance.Job {
	j := &appliance.Job{
		ID: r.ID, TenantID: r.TenantID, KeyID: r.KeyID, Kind: appliance.JobKind(r.Kind), Lane: appliance.Lane(r.Lane),
		State: appliance.JobState(r.State), Seq: r.Seq, Total: r.Total, Done: r.Done, Cursor: r.Cursor,
		Attempts: r.Attempts, MaxAttempts: r.MaxAttempts, Interruptions: r.Interruptions, MaxInterruptions: r.MaxInterruptions,
		Crashes: r.Crashes, Error: r.Error, CancelRequested: r.CancelRequested, LeaseToken: r.LeaseToken, LeaseOwner: r.LeaseOwner,
		LeaseExpires: fromNS(r.LeaseExpiresNS), Created: fromNS(r.CreatedNS), Started: fromNS(r.StartedNS),
		Updated: fromNS(r.UpdatedNS), Finished: fromNS(r.FinishedNS), NotBefore: fromNS(r.NotBeforeNS), Expires: fromNS(r.ExpiresNS),
	}
	if r.Result != nil {
		j.Result = &appliance.JobResult{Name: r.Result.Name, Bytes: r.Result.Bytes, SHA256: r.Result.SHA256, Summary: r.Result.Summary}
	}
	return j
}

func be64(v uint64) []byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], v)
	return b[:]
}

func laneByte(l appliance.Lane) (byte, error) {
	switch l {
	case appliance.LanePriority:
		return 'P', nil
	case appliance.LaneStandard:
		return 'S', nil
	}
	return 0, fmt.Errorf("unknown lane %q: %w", l, appliance.ErrInvalid)
}

func queueKey(lane byte, tenant string, seq uint64) []byte {
	k := make([]byte, 0, 2+len(tenant)+1+8)
	k = append(k, 'q', lane)
	k = append(k, tenant...)
	k = append(k, 0)
	return append(k, be64(seq)...)
}

func queueValue(notBefore time.Time, id string) []byte {
	return append(be64(uint64(ns(notBefore))), id...)
}

func servedKey(lane byte, tenant string) []byte {
	return append([]byte{'l', lane}, tenant...)
}

func timeKey(tag byte, t time.Time, id string) []byte {
	k := append([]byte{tag}, be64(uint64(ns(t)))...)
	return append(k, id...)
}

func tenantKey(tenant string, seq uint64) []byte {
	k := append([]byte{'t'}, tenant...)
	k = append(k, 0)
	return append(k, be64(seq)...)
}

// jobTx is one queue transaction.
type jobTx struct {
	tx       *bolt.Tx
	jobs     *bolt.Bucket
	index    *bolt.Bucket
	items    *bolt.Bucket
	payloads *bolt.Bucket
}

func newJobTx(tx *bolt.Tx) *jobTx {
	return &jobTx{tx: tx, jobs: tx.Bucket(bucketJobs), index: tx.Bucket(bucketJobQueue),
		items: tx.Bucket(bucketJobItems), payloads: tx.Bucket(bucketJobPayloads)}
}

// payload returns a copy of job id's payload (nil when it has none).
func (t *jobTx) payload(id string) []byte {
	v := t.payloads.Get([]byte(id))
	if v == nil {
		return nil
	}
	return append([]byte{}, v...)
}

func (t *jobTx) get(id string) (*appliance.Job, error) {
	raw := t.jobs.Get([]byte(id))
	if raw == nil {
		return nil, fmt.Errorf("job %s: %w", id, appliance.ErrNotFound)
	}
	var r jobRecord
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("job %s: decode: %w", id, err)
	}
	return r.job(), nil
}

func (t *jobTx) put(j *appliance.Job) error {
	raw, err := json.Marshal(toJobRecord(j))
	if err != nil {
		return fmt.Errorf("job %s: encode: %w", j.ID, err)
	}
	return t.jobs.Put([]byte(j.ID), raw)
}

// enqueueEntry puts j's queue entry (j is queued).
func (t *jobTx) enqueueEntry(j *appliance.Job) error {
	lb, err := laneByte(j.Lane)
	if err != nil {
		return err
	}
	return t.index.Put(queueKey(lb, j.TenantID, j.Seq), queueValue(j.NotBefore, j.ID))
}

// finish moves running or queued j to terminal state s at now, dropping its
// queue and lease entries and adding its finish entry. The caller puts j.
func (t *jobTx) finish(j *appliance.Job, s appliance.JobState, now time.Time) error {
	if err := t.dropLive(j); err != nil {
		return err
	}
	j.State, j.Finished, j.Updated = s, now, now
	j.LeaseOwner, j.LeaseExpires, j.NotBefore = "", time.Time{}, time.Time{}
	// A terminal job never runs again: its input is dead weight.
	if err := t.payloads.Delete([]byte(j.ID)); err != nil {
		return err
	}
	if s != appliance.JobSucceeded {
		// Only a succeeded job's items make its result; the others' items
		// are dead weight.
		if err := t.dropItems(j.ID); err != nil {
			return err
		}
	}
	return t.index.Put(timeKey('f', now, j.ID), nil)
}

// dropLive deletes j's queue entry (queued) or lease entry (running).
func (t *jobTx) dropLive(j *appliance.Job) error {
	switch j.State {
	case appliance.JobQueued:
		lb, err := laneByte(j.Lane)
		if err != nil {
			return err
		}
		return t.index.Delete(queueKey(lb, j.TenantID, j.Seq))
	case appliance.JobRunning:
		return t.index.Delete(timeKey('r', j.LeaseExpires, j.ID))
	}
	return nil
}

func (t *jobTx) dropItems(id string) error {
	if t.items.Bucket([]byte(id)) == nil {
		return nil
	}
	return t.items.DeleteBucket([]byte(id))
}

// requeue puts running j back in its lane at now (not before notBefore).
func (t *jobTx) requeue(j *appliance.Job, notBefore, now time.Time) error {
	if err := t.dropLive(j); err != nil {
		return err
	}
	j.State, j.Updated, j.NotBefore = appliance.JobQueued, now, notBefore
	j.LeaseOwner, j.LeaseExpires = "", time.Time{}
	if err := t.enqueueEntry(j); err != nil {
		return err
	}
	return t.put(j)
}

// leased returns the job of l if l still holds it at now: ErrLeaseLost when
// the lease expired or was superseded. A requested cancel moves the job to
// canceled and returns ErrJobCanceled inside a *commitErr, so that
// jobUpdate commits the transition and still returns the error.
func (t *jobTx) leased(l *appliance.Lease, now time.Time) (*appliance.Job, error) {
	if l == nil || l.Job == nil {
		return nil, fmt.Errorf("nil lease: %w", appliance.ErrInvalid)
	}
	j, err := t.get(l.Job.ID)
	if errors.Is(err, appliance.ErrNotFound) {
		return nil, fmt.Errorf("job %s: %w", l.Job.ID, appliance.ErrLeaseLost)
	}
	if err != nil {
		return nil, err
	}
	if j.State != appliance.JobRunning || j.LeaseToken != l.Token || now.After(j.LeaseExpires) {
		return nil, fmt.Errorf("job %s token %d: %w", j.ID, l.Token, appliance.ErrLeaseLost)
	}
	if j.CancelRequested {
		if err := t.finish(j, appliance.JobCanceled, now); err != nil {
			return nil, err
		}
		j.Error = "canceled by the tenant"
		if err := t.put(j); err != nil {
			return nil, err
		}
		return nil, &commitErr{fmt.Errorf("job %s: %w", j.ID, appliance.ErrJobCanceled)}
	}
	return j, nil
}

// commitErr is an error returned after a transaction's writes that must
// still commit (a canceled job's transition).
type commitErr struct{ err error }

func (e *commitErr) Error() string { return e.err.Error() }
func (e *commitErr) Unwrap() error { return e.err }

// jobUpdate runs fn in a write transaction; a *commitErr from fn commits the
// writes and is returned unwrapped.
func (db *DB) jobUpdate(ctx context.Context, op string, fn func(t *jobTx) error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("job queue: %s: %w", op, err)
	}
	var after error
	err := db.bolt.Update(func(tx *bolt.Tx) error {
		err := fn(newJobTx(tx))
		var ce *commitErr
		if errors.As(err, &ce) {
			after = ce.err
			return nil
		}
		return err
	})
	if err == nil {
		err = after
	}
	if err != nil {
		return fmt.Errorf("job queue: %s: %w", op, err)
	}
	return nil
}

func (db *DB) jobView(ctx context.Context, op string, fn func(t *jobTx) error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("job queue: %s: %w", op, err)
	}
	if err := db.bolt.View(func(tx *bolt.Tx) error { return fn(newJobTx(tx)) }); err != nil {
		return fmt.Errorf("job queue: %s: %w", op, err)
	}
	return nil
}

// Enqueue stores j in state queued with its queue entry, in one
// transaction (appliance.JobQueue).
func (db *DB) Enqueue(ctx context.Context, j *appliance.Job) error {
	if j.ID == "" || j.TenantID == "" || strings.IndexByte(j.TenantID, 0) >= 0 || j.Kind == "" {
		return fmt.Errorf("job queue: enqueue: id, tenant and kind are required (tenant without NUL): %w", appliance.ErrInvalid)
	}
	if _, err := laneByte(j.Lane); err != nil {
		return fmt.Errorf("job queue: enqueue: %w", err)
	}
	if j.Total < 0 {
		return fmt.Errorf("job queue: enqueue: total %d units: %w", j.Total, appliance.ErrInvalid)
	}
	now := db.now().UTC()
	return db.jobUpdate(ctx, "enqueue", func(t *jobTx) error {
		if t.jobs.Get([]byte(j.ID)) != nil {
			return fmt.Errorf("job %s already exists: %w", j.ID, appliance.ErrConflict)
		}
		seq, err := t.jobs.NextSequence()
		if err != nil {
			return err
		}
		c := *j
		c.Seq, c.State, c.Created, c.Updated = seq, appliance.JobQueued, now, now
		c.Done, c.Attempts, c.Interruptions, c.Crashes, c.LeaseToken, c.CancelRequested = 0, 0, 0, 0, 0, false
		if err := t.put(&c); err != nil {
			return err
		}
		if len(c.Payload) > 0 {
			if err := t.payloads.Put([]byte(c.ID), c.Payload); err != nil {
				return err
			}
		}
		if err := t.enqueueEntry(&c); err != nil {
			return err
		}
		if err := t.index.Put(tenantKey(c.TenantID, seq), []byte(c.ID)); err != nil {
			return err
		}
		if err := db.appendAuditsTx(t.tx, j.Audit...); err != nil {
			return err
		}
		j.Seq, j.State, j.Created, j.Updated = c.Seq, c.State, c.Created, c.Updated
		return nil
	})
}

// candidate is the ready head of one tenant in one lane.
type candidate struct {
	key    []byte
	id     string
	tenant string
	served uint64
	seq    uint64
}

// pick returns the lane's next job: among the tenants with a ready job
// (NotBefore <= now, and not skipped), the one served least recently
// (never served first, then the older head), and that tenant's oldest
// ready job. It visits each tenant's entries only up to its first ready
// one. skip, when not nil, is asked about each otherwise ready job.
func (t *jobTx) pick(lane byte, now time.Time, skip func(id string) bool) *candidate {
	var best *candidate
	pfx := []byte{'q', lane}
	nowNS := uint64(now.UnixNano())
	c := t.index.Cursor()
	k, v := c.Seek(pfx)
	for k != nil && bytes.HasPrefix(k, pfx) {
		rest := k[2:]
		nul := bytes.IndexByte(rest, 0)
		if nul < 0 {
			break
		}
		tenant := string(rest[:nul])
		tpfx := k[:2+nul+1]
		var found *candidate
		for ; k != nil && bytes.HasPrefix(k, tpfx); k, v = c.Next() {
			if len(v) >= 8 && binary.BigEndian.Uint64(v) <= nowNS && len(k) == len(tpfx)+8 && (skip == nil || !skip(string(v[8:]))) {
				found = &candidate{key: append([]byte(nil), k...), id: string(v[8:]), tenant: tenant, seq: binary.BigEndian.Uint64(k[len(tpfx):])}
				break
			}
		}
		if found != nil {
			if s := t.index.Get(servedKey(lane, tenant)); len(s) == 8 {
				found.served = binary.BigEndian.Uint64(s)
			}
			if best == nil || found.served < best.served || (found.served == best.served && found.seq < best.seq) {
				best = found
			}
		}
		next := append(append([]byte(nil), tpfx[:len(tpfx)-1]...), 1) // past this tenant's entries
		k, v = c.Seek(next)
	}
	return best
}

// probationRunning reports whether a running job has a crash. It reads
// the running jobs' records: as many as there are workers.
func (t *jobTx) probationRunning() (bool, error) {
	c := t.index.Cursor()
	for k, _ := c.Seek([]byte{'r'}); k != nil && k[0] == 'r'; k, _ = c.Next() {
		if len(k) < 9 {
			continue
		}
		j, err := t.get(string(k[9:]))
		if err != nil {
			return false, err
		}
		if j.Crashes > 0 {
			return true, nil
		}
	}
	return false, nil
}

func (t *jobTx) counter(key []byte) uint64 {
	if v := t.index.Get(key); len(v) == 8 {
		return binary.BigEndian.Uint64(v)
	}
	return 0
}

// Lease gives the next ready job to worker for ttl (appliance.JobQueue).
// Fairness: the priority lane goes first, except that after PriorityStreak
// priority leases in a row made while the standard lane had a ready job,
// the next lease takes from the standard lane; within a lane, the tenant
// served least recently goes first, and a tenant's ready jobs go FIFO.
func (db *DB) Lease(ctx context.Context, worker string, ttl time.Duration, now time.Time) (*appliance.Lease, error) {
	if ttl <= 0 {
		return nil, fmt.Errorf("job queue: lease: ttl %v: %w", ttl, appliance.ErrInvalid)
	}
	var out *appliance.Lease
	err := db.jobUpdate(ctx, "lease", func(t *jobTx) error {
		// Probation: while a job with a crash runs, no other job with a
		// crash is leased, so that a second crash is blamed on one
		// suspect at most (appliance/jobs, "Crashes and quarantine").
		probation, err := t.probationRunning()
		if err != nil {
			return err
		}
		var skip func(id string) bool
		if probation {
			skip = func(id string) bool {
				j, err := t.get(id)
				return err == nil && j.Crashes > 0
			}
		}
		pri, std := t.pick('P', now, skip), t.pick('S', now, skip)
		streak := t.counter(keyJobStreak)
		var c *candidate
		var lane byte
		switch {
		case pri != nil && std != nil && streak >= PriorityStreak:
			c, lane, streak = std, 'S', 0
		case pri != nil && std != nil:
			c, lane, streak = pri, 'P', streak+1
		case pri != nil:
			c, lane, streak = pri, 'P', 0
		case std != nil:
			c, lane, streak = std, 'S', 0
		default:
			return appliance.ErrNoJob
		}
		served := t.counter(keyJobCounter) + 1
		if err := t.index.Put(keyJobCounter, be64(served)); err != nil {
			return err
		}
		if err := t.index.Put(keyJobStreak, be64(streak)); err != nil {
			return err
		}
		if err := t.index.Put(servedKey(lane, c.tenant), be64(served)); err != nil {
			return err
		}
		j, err := t.get(c.id)
		if err != nil {
			return err
		}
		if err := t.index.Delete(c.key); err != nil {
			return err
		}
		j.State, j.LeaseToken, j.LeaseOwner, j.LeaseExpires = appliance.JobRunning, j.LeaseToken+1, worker, now.Add(ttl)
		j.Updated, j.NotBefore = now, time.Time{}
		if j.Started.IsZero() {
			j.Started = now
		}
		if err := t.index.Put(timeKey('r', j.LeaseExpires, j.ID), nil); err != nil {
			return err
		}
		if err := t.put(j); err != nil {
			return err
		}
		j.Payload = t.payload(j.ID)
		out = &appliance.Lease{Job: j, Token: j.LeaseToken}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// extend moves j's lease entry to now+ttl.
func (t *jobTx) extend(j *appliance.Job, ttl time.Duration, now time.Time) error {
	if err := t.index.Delete(timeKey('r', j.LeaseExpires, j.ID)); err != nil {
		return err
	}
	j.LeaseExpires, j.Updated = now.Add(ttl), now
	return t.index.Put(timeKey('r', j.LeaseExpires, j.ID), nil)
}

// Extend renews l to now+ttl (appliance.JobQueue).
func (db *DB) Extend(ctx context.Context, l *appliance.Lease, ttl time.Duration, now time.Time) error {
	return db.jobUpdate(ctx, "extend", func(t *jobTx) error {
		j, err := t.leased(l, now)
		if err != nil {
			return err
		}
		if err := t.extend(j, ttl, now); err != nil {
			return err
		}
		if err := t.put(j); err != nil {
			return err
		}
		l.Job.LeaseExpires = j.LeaseExpires
		return nil
	})
}

// Checkpoint writes items into job_items/<id> (keyed by index, so a
// rewrite replaces) and progress, in one transaction (appliance.JobQueue).
func (db *DB) Checkpoint(ctx context.Context, l *appliance.Lease, p appliance.JobProgress, items []appliance.JobItem, now time.Time) error {
	return db.jobUpdate(ctx, "checkpoint", func(t *jobTx) error {
		j, err := t.leased(l, now)
		if err != nil {
			return err
		}
		if p.Done < 0 || p.Done > j.Total {
			return fmt.Errorf("job %s: done %d outside 0..%d: %w", j.ID, p.Done, j.Total, appliance.ErrInvalid)
		}
		if len(items) > 0 {
			b, err := t.items.CreateBucketIfNotExists([]byte(j.ID))
			if err != nil {
				return err
			}
			for _, it := range items {
				if it.Index < 0 {
					return fmt.Errorf("job %s: item index %d: %w", j.ID, it.Index, appliance.ErrInvalid)
				}
				if err := b.Put(be64(uint64(it.Index)), it.Data); err != nil {
					return err
				}
			}
		}
		j.Done, j.Cursor, j.Updated = p.Done, p.Cursor, now
		if err := t.put(j); err != nil {
			return err
		}
		l.Job.Done, l.Job.Cursor = j.Done, j.Cursor
		return nil
	})
}

// Ack marks l's job succeeded with r; the result expires at now+retention
// (appliance.JobQueue).
func (db *DB) Ack(ctx context.Context, l *appliance.Lease, r appliance.JobResult, retention time.Duration, now time.Time) error {
	return db.jobUpdate(ctx, "ack", func(t *jobTx) error {
		j, err := t.leased(l, now)
		if err != nil {
			return err
		}
		if err := t.finish(j, appliance.JobSucceeded, now); err != nil {
			return err
		}
		res := r
		j.Result, j.Expires, j.Error = &res, now.Add(retention), ""
		if err := t.index.Put(timeKey('e', j.Expires, j.ID), nil); err != nil {
			return err
		}
		return t.put(j)
	})
}

// Fail records a handler failure (appliance.JobQueue): a retryable failure
// with attempts left re-queues the job not before now+backoff; otherwise
// the job fails.
func (db *DB) Fail(ctx context.Context, l *appliance.Lease, reason string, retryable bool, backoff time.Duration, now time.Time) (appliance.JobState, error) {
	var state appliance.JobState
	err := db.jobUpdate(ctx, "fail", func(t *jobTx) error {
		j, err := t.leased(l, now)
		if err != nil {
			if errors.Is(err, appliance.ErrJobCanceled) {
				state = appliance.JobCanceled
			}
			return err
		}
		j.Attempts++
		j.Error = reason
		if retryable && j.Attempts < j.MaxAttempts {
			state = appliance.JobQueued
			return t.requeue(j, now.Add(backoff), now)
		}
		if retryable {
			j.Error = fmt.Sprintf("%s (gave up after %d attempts)", reason, j.Attempts)
		}
		state = appliance.JobFailed
		if err := t.finish(j, appliance.JobFailed, now); err != nil {
			return err
		}
		return t.put(j)
	})
	return state, err
}

// Crash records the death of the executor that ran l's job outside the
// appliance (appliance.JobQueue): a crash and an interruption; queued at
// once (on probation), or quarantined at appliance.JobCrashLimit crashes
// with a job.quarantine audit entry in the same transaction, or failed
// when interruptions are exhausted.
func (db *DB) Crash(ctx context.Context, l *appliance.Lease, executor, reason string, now time.Time) (appliance.JobState, error) {
	var state appliance.JobState
	err := db.jobUpdate(ctx, "crash", func(t *jobTx) error {
		j, err := t.leased(l, now)
		if err != nil {
			if errors.Is(err, appliance.ErrJobCanceled) {
				state = appliance.JobCanceled
			}
			return err
		}
		j.Crashes++
		j.Interruptions++
		j.Error = reason
		switch {
		case j.Crashes >= appliance.JobCrashLimit:
			j.Error = appliance.QuarantineReason(executor)
			e := appliance.AuditEntry{Action: appliance.ActionJobQuarantine, TenantID: j.TenantID, Params: map[string]string{
				"job_id": j.ID, "kind": string(j.Kind), "crashes": strconv.Itoa(j.Crashes), "executor": executor}}
			if err := db.appendAuditsTx(t.tx, e); err != nil {
				return err
			}
		case j.Interruptions >= j.MaxInterruptions:
			j.Error = fmt.Sprintf("interrupted %d times (the worker stopped before finishing)", j.Interruptions)
		default:
			state = appliance.JobQueued
			return t.requeue(j, time.Time{}, now)
		}
		state = appliance.JobFailed
		if err := t.finish(j, appliance.JobFailed, now); err != nil {
			return err
		}
		return t.put(j)
	})
	return state, err
}

// Release gives l back without a verdict (appliance.JobQueue): the job is
// queued at once and no attempt or interruption is counted.
func (db *DB) Release(ctx context.Context, l *appliance.Lease, now time.Time) error {
	return db.jobUpdate(ctx, "release", func(t *jobTx) error {
		j, err := t.leased(l, now)
		if err != nil {
			return err
		}
		return t.requeue(j, time.Time{}, now)
	})
}

// Requeue moves running jobs whose lease expired before now back to queued,
// to failed when their interruptions are exhausted, or to canceled when a
// cancel was requested (appliance.JobQueue). The process that leased them
// is alive: no crash is counted.
func (db *DB) Requeue(ctx context.Context, now time.Time) (int, error) {
	n, _, err := db.requeueRunning(ctx, "requeue", now, false)
	return n, err
}

// RequeueOrphans handles every running job at the start of a process
// (appliance.JobQueue): its process died while it ran. Each counts a
// crash and an interruption; at appliance.JobCrashLimit crashes the job is
// quarantined: failed with appliance.JobQuarantineReason and a
// job.quarantine audit entry in the same transaction.
func (db *DB) RequeueOrphans(ctx context.Context, now time.Time) (int, []*appliance.Job, error) {
	return db.requeueRunning(ctx, "requeue orphans", now, true)
}

// requeueRunning moves running jobs out of running: those whose lease
// expired before now, or, for orphans, all of them (each a crash).
func (db *DB) requeueRunning(ctx context.Context, op string, now time.Time, orphans bool) (int, []*appliance.Job, error) {
	n := 0
	var quarantined []*appliance.Job
	err := db.jobUpdate(ctx, op, func(t *jobTx) error {
		n, quarantined = 0, nil
		var ids []string
		c := t.index.Cursor()
		end := be64(uint64(now.UnixNano()))
		for k, _ := c.Seek([]byte{'r'}); k != nil && k[0] == 'r'; k, _ = c.Next() {
			if len(k) < 9 || !orphans && bytes.Compare(k[1:9], end) >= 0 {
				break
			}
			ids = append(ids, string(k[9:]))
		}
		for _, id := range ids {
			j, err := t.get(id)
			if err != nil {
				return err
			}
			n++
			q, err := db.interruptTx(t, j, now, orphans)
			if err != nil {
				return err
			}
			if q {
				quarantined = append(quarantined, j)
			}
		}
		return nil
	})
	if err != nil {
		return 0, nil, err
	}
	return n, quarantined, nil
}

// interruptTx moves running j out of running at now: its lease expired
// or, with crash, its process died (a crash is counted). It reports
// whether j was quarantined.
func (db *DB) interruptTx(t *jobTx, j *appliance.Job, now time.Time, crash bool) (bool, error) {
	if crash && !j.CancelRequested {
		j.Crashes++
	}
	quarantined := false
	switch {
	case j.CancelRequested:
		if err := t.finish(j, appliance.JobCanceled, now); err != nil {
			return false, err
		}
		j.Error = "canceled by the tenant"
	case j.Crashes >= appliance.JobCrashLimit:
		j.Interruptions++
		if err := t.finish(j, appliance.JobFailed, now); err != nil {
			return false, err
		}
		j.Error = appliance.JobQuarantineReason
		quarantined = true
		e := appliance.AuditEntry{Action: appliance.ActionJobQuarantine, TenantID: j.TenantID, Params: map[string]string{
			"job_id": j.ID, "kind": string(j.Kind), "crashes": strconv.Itoa(j.Crashes)}}
		if err := db.appendAuditsTx(t.tx, e); err != nil {
			return false, err
		}
	case j.Interruptions+1 >= j.MaxInterruptions:
		j.Interruptions++
		if err := t.finish(j, appliance.JobFailed, now); err != nil {
			return false, err
		}
		j.Error = fmt.Sprintf("interrupted %d times (the worker stopped before finishing)", j.Interruptions)
	default:
		j.Interruptions++
		return false, t.requeue(j, time.Time{}, now)
	}
	return quarantined, t.put(j)
}

// RequeueOrphan handles one lease whose holder died while the appliance
// lives (a holder in another process; store/jsq sees it by the
// redelivery of the lease's message): when job id is still running under
// token, it counts a crash and an interruption as RequeueOrphans does for
// every running job at a start, in one transaction (quarantine and its
// audit entry included). moved is false when the lease is no longer
// current (the job moved on).
func (db *DB) RequeueOrphan(ctx context.Context, id string, token uint64, now time.Time) (moved bool, quarantined *appliance.Job, err error) {
	err = db.jobUpdate(ctx, "requeue orphan", func(t *jobTx) error {
		moved, quarantined = false, nil
		j, err := t.get(id)
		if errors.Is(err, appliance.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		if j.State != appliance.JobRunning || j.LeaseToken != token {
			return nil
		}
		moved = true
		q, err := db.interruptTx(t, j, now, true)
		if q {
			quarantined = j
		}
		return err
	})
	return moved, quarantined, err
}

// Cancel cancels tenant's job (appliance.JobQueue), with the audit
// entries in the same transaction.
func (db *DB) Cancel(ctx context.Context, tenantID, id string, now time.Time, audit ...appliance.AuditEntry) (*appliance.Job, error) {
	var out *appliance.Job
	err := db.jobUpdate(ctx, "cancel", func(t *jobTx) error {
		j, err := t.get(id)
		if err != nil {
			return err
		}
		if j.TenantID != tenantID {
			return fmt.Errorf("job %s: %w", id, appliance.ErrNotFound)
		}
		switch {
		case j.State.Terminal():
			return fmt.Errorf("job %s is %s: %w", id, j.State, appliance.ErrConflict)
		case j.State == appliance.JobQueued:
			if err := t.finish(j, appliance.JobCanceled, now); err != nil {
				return err
			}
			j.Error = "canceled by the tenant"
		default:
			j.CancelRequested, j.Updated = true, now
		}
		out = j
		if err := db.appendAuditsTx(t.tx, audit...); err != nil {
			return err
		}
		return t.put(j)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Get returns tenant's job (appliance.JobQueue); another tenant's job is
// appliance.ErrNotFound, like a missing one.
func (db *DB) Get(ctx context.Context, tenantID, id string) (*appliance.Job, error) {
	var out *appliance.Job
	err := db.jobView(ctx, "get", func(t *jobTx) error {
		j, err := t.get(id)
		if err != nil {
			return err
		}
		if j.TenantID != tenantID {
			return fmt.Errorf("job %s: %w", id, appliance.ErrNotFound)
		}
		out = j
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// JobsByTenant returns up to limit of tenant's jobs, newest first; limit
// <= 0 means all.
func (db *DB) JobsByTenant(ctx context.Context, tenantID string, limit int) ([]*appliance.Job, error) {
	var out []*appliance.Job
	err := db.jobView(ctx, "list", func(t *jobTx) error {
		pfx := append(append([]byte{'t'}, tenantID...), 0)
		c := t.index.Cursor()
		k, _ := c.Seek(append(append([]byte(nil), pfx[:len(pfx)-1]...), 1))
		var v []byte
		if k == nil {
			k, v = c.Last()
		} else {
			k, v = c.Prev()
		}
		for ; k != nil && bytes.HasPrefix(k, pfx); k, v = c.Prev() {
			if limit > 0 && len(out) >= limit {
				break
			}
			j, err := t.get(string(v))
			if err != nil {
				return err
			}
			out = append(out, j)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Items calls fn for job id's items in index order from index from
// (appliance.JobQueue).
func (db *DB) Items(ctx context.Context, id string, from int64, fn func(appliance.JobItem) error) error {
	return db.jobView(ctx, "items", func(t *jobTx) error {
		b := t.items.Bucket([]byte(id))
		if b == nil {
			return nil
		}
		c := b.Cursor()
		for k, v := c.Seek(be64(uint64(max(from, 0)))); k != nil; k, v = c.Next() {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := fn(appliance.JobItem{Index: int64(binary.BigEndian.Uint64(k)), Data: append([]byte(nil), v...)}); err != nil {
				return err
			}
		}
		return nil
	})
}

// JobCounts returns how many jobs are queued and running.
func (db *DB) JobCounts(ctx context.Context) (queued, running int, err error) {
	err = db.jobView(ctx, "counts", func(t *jobTx) error {
		c := t.index.Cursor()
		for k, _ := c.Seek([]byte{'q'}); k != nil && k[0] == 'q'; k, _ = c.Next() {
			queued++
		}
		for k, _ := c.Seek([]byte{'r'}); k != nil && k[0] == 'r'; k, _ = c.Next() {
			running++
		}
		return nil
	})
	return queued, running, err
}

// JobWaits counts the queued jobs and those of them ready at now (NotBefore
// not after now), and returns since when the longest-waiting ready job has
// waited: the later of its last transition (Updated: enqueued, released,
// requeued) and the end of its backoff (NotBefore); zero when none is
// ready. It reads every queue entry and decodes the ready jobs' records,
// in one read transaction (GET /health/ready).
func (db *DB) JobWaits(ctx context.Context, now time.Time) (queued, ready int, since time.Time, err error) {
	err = db.jobView(ctx, "waits", func(t *jobTx) error {
		c := t.index.Cursor()
		for k, v := c.Seek([]byte{'q'}); k != nil && k[0] == 'q'; k, v = c.Next() {
			queued++
			if len(v) < 8 {
				continue
			}
			notBefore := fromNS(int64(binary.BigEndian.Uint64(v[:8])))
			if notBefore.After(now) {
				continue
			}
			ready++
			j, err := t.get(string(v[8:]))
			if err != nil {
				return err
			}
			w := j.Updated
			if notBefore.After(w) {
				w = notBefore
			}
			if since.IsZero() || w.Before(since) {
				since = w
			}
		}
		return nil
	})
	return queued, ready, since, err
}

// Sweep applies retention at now (appliance.JobQueue): succeeded jobs past
// Expires become expired (items deleted, record kept until Finished +
// recordRetention, and at least until now); terminal records that are
// not succeeded and whose Finished + recordRetention passed are deleted
// with their items. It returns the results whose files to remove.
func (db *DB) Sweep(ctx context.Context, now time.Time, recordRetention time.Duration) ([]appliance.JobResult, error) {
	var out []appliance.JobResult
	err := db.jobUpdate(ctx, "sweep", func(t *jobTx) error {
		ids := func(tag byte, before time.Time) []string {
			var ids []string
			end := be64(uint64(before.UnixNano()))
			c := t.index.Cursor()
			for k, _ := c.Seek([]byte{tag}); k != nil && k[0] == tag; k, _ = c.Next() {
				if len(k) < 9 || bytes.Compare(k[1:9], end) >= 0 {
					break
				}
				ids = append(ids, string(k[9:]))
			}
			return ids
		}
		for _, id := range ids('e', now) {
			j, err := t.get(id)
			if err != nil {
				return err
			}
			if err := t.index.Delete(timeKey('e', j.Expires, id)); err != nil {
				return err
			}
			if j.State != appliance.JobSucceeded {
				continue
			}
			if j.Result != nil {
				out = append(out, *j.Result)
			}
			if err := t.dropItems(id); err != nil {
				return err
			}
			j.State, j.Result, j.Updated = appliance.JobExpired, nil, now
			j.Expires = j.Finished.Add(recordRetention)
			if j.Expires.Before(now) {
				j.Expires = now
			}
			if err := t.put(j); err != nil {
				return err
			}
		}
		for _, id := range ids('f', now.Add(-recordRetention)) {
			j, err := t.get(id)
			if err != nil {
				return err
			}
			if j.State == appliance.JobSucceeded {
				continue // its result outlives the record retention; expired first
			}
			if err := t.index.Delete(timeKey('f', j.Finished, id)); err != nil {
				return err
			}
			if err := t.index.Delete(tenantKey(j.TenantID, j.Seq)); err != nil {
				return err
			}
			if err := t.dropItems(id); err != nil {
				return err
			}
			if err := t.payloads.Delete([]byte(id)); err != nil {
				return err
			}
			if err := t.jobs.Delete([]byte(id)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
