package decodebudget

import (
	"errors"
	"fmt"
	"io"
	"math"
	"sync/atomic"
	"time"

	"linkplan/appliance"
)

// DefaultLimit is the default budget (128 MiB): four of the largest request
// bodies (POST /batch_reports, 32 MiB) at once, or eight drive-test uploads
// of 16 MiB, with the appliance's resident set at rest (about 100 MB) and the
// structures decoded from those bodies still under 1 GB.
const DefaultLimit = 128 << 20

// RetryAfter is the wait an *ExhaustedError suggests before a retry.
const RetryAfter = time.Second

// Budget is the appliance-wide allowance of memory, in bytes, for decoding
// request bodies. It is safe for concurrent use.
type Budget struct {
	limit   int64
	shared  string // who shares it, for ExhaustedError; "" = all requests
	used    atomic.Int64
	peak    atomic.Int64
	refused atomic.Int64
}

// New returns a budget of limit bytes (DefaultLimit when limit <= 0).
func New(limit int64) *Budget {
	if limit <= 0 {
		limit = DefaultLimit
	}
	return &Budget{limit: limit}
}

// Shared names who shares the budget in its refusals (e.g. "building-layer
// uploads"); the default is every request. It returns b.
func (b *Budget) Shared(who string) *Budget {
	b.shared = who
	return b
}

// Limit returns the budget in bytes.
func (b *Budget) Limit() int64 { return b.limit }

// InUse returns the bytes charged now, over every open lease.
func (b *Budget) InUse() int64 { return b.used.Load() }

// Peak returns the most bytes charged at once since New.
func (b *Budget) Peak() int64 { return b.peak.Load() }

// Refused returns how many charges were refused since New.
func (b *Budget) Refused() int64 { return b.refused.Load() }

// take charges n bytes if they fit.
func (b *Budget) take(n int64) bool {
	for {
		u := b.used.Load()
		if u+n > b.limit {
			b.refused.Add(1)
			return false
		}
		if b.used.CompareAndSwap(u, u+n) {
			for p := b.peak.Load(); u+n > p && !b.peak.CompareAndSwap(p, u+n); p = b.peak.Load() {
			}
			return true
		}
	}
}

// Lease opens a lease: the charges of one request. A nil budget gives a
// nil lease, which charges nothing.
func (b *Budget) Lease() *Lease {
	if b == nil {
		return nil
	}
	return &Lease{b: b}
}

// Lease is the memory one request holds for decoding, charged against its
// budget until Release. It is safe for concurrent use; a nil *Lease charges
// nothing and never refuses.
type Lease struct {
	b    *Budget
	held atomic.Int64
}

// ExhaustedError refuses a charge that the budget cannot hold now. It
// matches appliance.ErrUnavailable (503); wrapped in an
// appliance.RetryAfterError it carries a Retry-After.
type ExhaustedError struct {
	Limit  int64  // the budget, bytes
	What   string // what was being decoded, e.g. "the request body"
	Shared string // who shares the budget; "" = all requests
}

func (e *ExhaustedError) Error() string {
	who := e.Shared
	if who == "" {
		who = "all requests"
	}
	return fmt.Sprintf("the appliance's memory budget for decoding request bodies (%s, shared by %s at once) cannot hold %s now; retry in a moment",
		Size(e.Limit), who, e.What)
}

// Unwrap returns appliance.ErrUnavailable.
func (e *ExhaustedError) Unwrap() error { return appliance.ErrUnavailable }

// Grow charges n more bytes for what (named in the refusal). When the
// budget cannot hold them nothing is charged and the error is an
// *appliance.RetryAfterError around an *ExhaustedError.
func (l *Lease) Grow(n int64, what string) error {
	if l == nil || n <= 0 {
		return nil
	}
	if !l.b.take(n) {
		return &appliance.RetryAfterError{Err: &ExhaustedError{Limit: l.b.limit, What: what, Shared: l.b.shared}, After: RetryAfter}
	}
	l.held.Add(n)
	return nil
}

// Held returns the bytes the lease holds now.
func (l *Lease) Held() int64 {
	if l == nil {
		return 0
	}
	return l.held.Load()
}

// Release returns everything the lease holds to the budget. It may be
// called more than once.
func (l *Lease) Release() {
	if l == nil {
		return
	}
	if n := l.held.Swap(0); n > 0 {
		l.b.used.Add(-n)
	}
}

// Reader returns r charging the lease for every byte read through it (for
// a reader whose bytes the caller keeps, such as a multipart part handed
// to a parser that reads it whole). A refused charge is the read's error.
func (l *Lease) Reader(r io.Reader, what string) io.Reader {
	if l == nil {
		return r
	}
	return &chargedReader{r: r, l: l, what: what}
}

type chargedReader struct {
	r    io.Reader
	l    *Lease
	what string
	err  error
}

func (c *chargedReader) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.r.Read(p)
	if n > 0 {
		if gerr := c.l.Grow(int64(n), c.what); gerr != nil {
			c.err = gerr
			return 0, gerr
		}
	}
	return n, err
}

// readChunk is the least a ReadAll buffer grows by.
const readChunk = 32 << 10

// OverBudgetError refuses a body that the whole budget could never hold,
// however long the client waits: a 413 where ExhaustedError is a 503 that
// a retry can pass. It matches appliance.ErrInvalid.
type OverBudgetError struct {
	Limit int64  // the budget, bytes
	What  string // what was being decoded, e.g. "the request body"
}

func (e *OverBudgetError) Error() string {
	return fmt.Sprintf("%s is larger than the appliance's whole memory budget for decoding request bodies (%s)", e.What, Size(e.Limit))
}

// Unwrap returns appliance.ErrInvalid.
func (e *OverBudgetError) Unwrap() error { return appliance.ErrInvalid }

// limit is the budget of the lease (no limit for a nil lease).
func (l *Lease) limit() int64 {
	if l == nil {
		return math.MaxInt64
	}
	return l.b.limit
}

// ReadAll reads r to its end into one buffer, charging the lease for the
// buffer's capacity as it grows; sizeHint (a Content-Length; <= 0 when
// unknown) sizes the first allocation so that a body of known length is
// charged and allocated once, exactly its length, before any byte is
// read. When the buffer is full a one-byte read tells its end from more
// data, so a body that fills its buffer exactly (a Content-Length body, or
// one of a doubled capacity) is never charged a larger one; a buffer
// grows by doubling but never past the whole budget. A body larger than
// the whole budget is an *OverBudgetError (it can never fit); one that
// does not fit now, Grow's error. Errors of r are returned as they are
// (an *http.MaxBytesError stays one).
func (l *Lease) ReadAll(r io.Reader, sizeHint int64, what string) ([]byte, error) {
	limit := l.limit()
	capacity := min(int64(readChunk), limit)
	if sizeHint > 0 {
		capacity = sizeHint
	}
	if capacity > limit {
		return nil, &OverBudgetError{Limit: limit, What: what}
	}
	if err := l.Grow(capacity, what); err != nil {
		return nil, err
	}
	buf := make([]byte, 0, capacity)
	for {
		if len(buf) == cap(buf) {
			var probe [1]byte
			n, err := readSome(r, probe[:])
			if n == 0 {
				if errors.Is(err, io.EOF) {
					return buf, nil
				}
				return buf, err
			}
			c := int64(cap(buf))
			grow := min(max(c, readChunk), limit-c) // doubling, like append, up to the budget
			if grow <= 0 {
				return nil, &OverBudgetError{Limit: limit, What: what}
			}
			if err := l.Grow(grow, what); err != nil {
				return nil, err
			}
			nb := make([]byte, len(buf), c+grow)
			copy(nb, buf)
			buf = append(nb, probe[0]) // the lease now holds the new buffer's capacity
			if errors.Is(err, io.EOF) {
				return buf, nil
			}
			if err != nil {
				return buf, err
			}
			continue
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// readSome reads into p until a byte or an error arrives (a Read may
// return 0, nil), giving up with io.ErrNoProgress as io.Reader allows.
func readSome(r io.Reader, p []byte) (int, error) {
	for range 100 {
		if n, err := r.Read(p); n > 0 || err != nil {
			return n, err
		}
	}
	return 0, io.ErrNoProgress
}

// Size writes n bytes in the largest binary unit that divides it (64 MiB,
// 128 KiB, 100 bytes).
func Size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
