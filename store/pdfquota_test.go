package store_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/store"
)

func TestReservePDFs(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 15, 12, 0, 0, 0, time.UTC)
	type step struct {
		tenant, job   string
		want, limit   int
		at            time.Time
		granted, used int
	}
	cases := []struct {
		name  string
		steps []step
	}{
		{"within the limit", []step{{"t1", "j1", 10, 50, now, 10, 0}, {"t1", "j2", 30, 50, now, 30, 10}}},
		{"partial grant at the limit", []step{{"t1", "j1", 40, 50, now, 40, 0}, {"t1", "j2", 30, 50, now, 10, 40}, {"t1", "j3", 5, 50, now, 0, 50}}},
		{"idempotent per job", []step{{"t1", "j1", 40, 50, now, 40, 0}, {"t1", "j1", 40, 50, now, 40, 0}, {"t1", "j1", 99, 50, now, 40, 0}, {"t1", "j2", 20, 50, now, 10, 40}}},
		{"tenants apart", []step{{"t1", "j1", 50, 50, now, 50, 0}, {"t2", "j1", 50, 50, now, 50, 0}}},
		{"zero want", []step{{"t1", "j1", 0, 50, now, 0, 0}, {"t1", "j2", 5, 50, now, 5, 0}}},
		// 2026-12-01 02:30 UTC is still 2026-11-30 23:30 in São Paulo
		// (−03:00): November's quota; 03:00 UTC is December's.
		{"month rollover in America/Sao_Paulo", []step{
			{"t1", "j1", 50, 50, time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC), 50, 0},
			{"t1", "j2", 5, 50, time.Date(2026, 12, 1, 2, 30, 0, 0, time.UTC), 0, 50},
			{"t1", "j3", 5, 50, time.Date(2026, 12, 1, 3, 0, 0, 0, time.UTC), 5, 0},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db := mustOpen(t, t.TempDir())
			defer db.Close()
			for i, s := range c.steps {
				g, u, err := db.ReservePDFs(ctx, s.tenant, s.job, s.want, s.limit, s.at)
				if err != nil || g != s.granted || u != s.used {
					t.Fatalf("step %d: granted %d used %d err %v; want %d, %d", i, g, u, err, s.granted, s.used)
				}
			}
		})
	}
}

func TestReservePDFsInvalid(t *testing.T) {
	db := mustOpen(t, t.TempDir())
	defer db.Close()
	now := time.Now()
	cases := []struct {
		name        string
		tenant, job string
		want, limit int
	}{
		{"negative want", "t", "j", -1, 5},
		{"negative limit", "t", "j", 1, -5},
		{"no tenant", "", "j", 1, 5},
		{"no job", "t", "", 1, 5},
		{"NUL in job", "t", "j\x00k", 1, 5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, _, err := db.ReservePDFs(context.Background(), c.tenant, c.job, c.want, c.limit, now); !errors.Is(err, appliance.ErrInvalid) {
				t.Fatalf("got %v", err)
			}
		})
	}
}

func TestReservePDFsConcurrent(t *testing.T) {
	db := mustOpen(t, t.TempDir())
	defer db.Close()
	now := time.Date(2026, 11, 15, 12, 0, 0, 0, time.UTC)
	const jobs, want, limit = 40, 7, 100
	var wg sync.WaitGroup
	granted := make([]int, 2*jobs)
	for i := range 2 * jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Every job reserves twice (a crash and a re-run): counted once.
			g, _, err := db.ReservePDFs(context.Background(), "t1", fmt.Sprintf("job-%d", i%jobs), want, limit, now)
			if err != nil {
				t.Error(err)
			}
			granted[i] = g
		}()
	}
	wg.Wait()
	total := 0
	for i := range jobs {
		if granted[i] != granted[i+jobs] {
			t.Fatalf("job %d: grants %d and %d", i, granted[i], granted[i+jobs])
		}
		total += granted[i]
	}
	used, err := db.PDFUsage("t1", now)
	if err != nil || total != limit || used != limit {
		t.Fatalf("granted %d, usage %d (%v); want %d", total, used, err, limit)
	}
	if m := store.PDFMonth(time.Date(2026, 1, 1, 2, 59, 0, 0, time.UTC)); m != "2025-12" {
		t.Fatalf("month %s", m)
	}
}
