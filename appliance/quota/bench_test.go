package quota_test

import (
	"sync/atomic"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/quota"
	"linkplan/appliance/tenancy"
	"linkplan/store"
)

// The per-request cost of authentication plus quota accounting, the work
// web/api's authed middleware adds to every metered request: the key's
// SHA-256 and record lookup (tenancy, a bbolt read) and Admit (the month's
// counter and the route group's GCRA limiter, in memory; the flush is a
// background batch). The goal is at most 20 µs a request. The naive
// baseline persists each count in its own bbolt transaction, read and
// write, as a per-request counter would: an fsync per request.

// benchKeys issues n Ultra keys of n tenants (so that no monthly cap is
// reached whatever b.N) and returns the plain keys.
func benchKeys(b *testing.B, db *store.DB, n int) (*tenancy.Service, []string) {
	b.Helper()
	auth := tenancy.New(db, nil)
	plains := make([]string, n)
	for i := range plains {
		p, _, err := auth.Issue(tenancy.IssueRequest{Tier: appliance.TierUltra, Owner: "bench", Email: "bench@example.com"})
		if err != nil {
			b.Fatal(err)
		}
		plains[i] = p
	}
	return auth, plains
}

// steppingClock returns a clock that moves on by step at every reading, so
// that the rate limiter admits every request (one Ultra read every 25 ms).
func steppingClock(step time.Duration) func() time.Time {
	var n atomic.Int64
	base := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	return func() time.Time { return base.Add(time.Duration(n.Add(1)) * step) }
}

func BenchmarkAuthQuota(b *testing.B) {
	db := openDB(b, b.TempDir())
	defer db.Close()
	auth, plains := benchKeys(b, db, 16)
	s := quota.New(db, quota.Options{Now: steppingClock(25 * time.Millisecond)})
	if err := s.Start(b.Context()); err != nil {
		b.Fatal(err)
	}
	defer s.Close(b.Context())
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		k, err := auth.Authenticate(plains[i%len(plains)])
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Admit(k, quota.GroupRead); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkAuthQuotaParallel is BenchmarkAuthQuota from GOMAXPROCS
// goroutines: the cost under contention for the service's lock.
func BenchmarkAuthQuotaParallel(b *testing.B) {
	db := openDB(b, b.TempDir())
	defer db.Close()
	auth, plains := benchKeys(b, db, 16)
	s := quota.New(db, quota.Options{Now: steppingClock(25 * time.Millisecond)})
	if err := s.Start(b.Context()); err != nil {
		b.Fatal(err)
	}
	defer s.Close(b.Context())
	var next atomic.Int64
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		plain := plains[int(next.Add(1))%len(plains)]
		for pb.Next() {
			k, err := auth.Authenticate(plain)
			if err != nil {
				b.Error(err)
				return
			}
			if _, err := s.Admit(k, quota.GroupRead); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkAuthOnly is authentication alone: the floor under the quota
// accounting.
func BenchmarkAuthOnly(b *testing.B) {
	db := openDB(b, b.TempDir())
	defer db.Close()
	auth, plains := benchKeys(b, db, 16)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := auth.Authenticate(plains[i%len(plains)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkAuthQuotaNaive is the naive baseline: the count read and
// written in a bbolt transaction per request.
func BenchmarkAuthQuotaNaive(b *testing.B) {
	db := openDB(b, b.TempDir())
	defer db.Close()
	auth, plains := benchKeys(b, db, 16)
	cal := quota.NewCalendar()
	now := steppingClock(25 * time.Millisecond)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		k, err := auth.Authenticate(plains[i%len(plains)])
		if err != nil {
			b.Fatal(err)
		}
		month := cal.Month(now())
		u, err := db.Usage(k.TenantID, month)
		if err != nil {
			b.Fatal(err)
		}
		if u["calls"] >= uint64(k.Tier.CallsPerMonth()) {
			b.Fatal("cap reached")
		}
		if err := db.AddUsage([]appliance.UsageDelta{{TenantID: k.TenantID, Month: month, Counter: "calls", N: 1}}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkAdmit is the quota accounting alone (the key already
// authenticated): the part this package adds to a request.
func BenchmarkAdmit(b *testing.B) {
	db := openDB(b, b.TempDir())
	defer db.Close()
	s := quota.New(db, quota.Options{Now: steppingClock(25 * time.Millisecond)})
	keys := make([]*appliance.APIKey, 16)
	for i := range keys {
		keys[i] = key(appliance.TierUltra, "t_bench"+string(rune('a'+i)))
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := s.Admit(keys[i%len(keys)], quota.GroupRead); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
