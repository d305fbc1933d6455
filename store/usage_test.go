package store_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/store"
)

func TestUsageCounters(t *testing.T) {
	dir := t.TempDir()
	db, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.AddUsage([]appliance.UsageDelta{
		{TenantID: "t_a", Month: "2026-03", Counter: "calls", N: 5},
		{TenantID: "t_a", Month: "2026-03", Counter: "ai", N: 2},
		{TenantID: "t_a", Month: "2026-04", Counter: "calls", N: 7},
		{TenantID: "t_ab", Month: "2026-03", Counter: "calls", N: 11}, // a tenant id extending another
	}); err != nil {
		t.Fatal(err)
	}
	if err := db.AddUsage([]appliance.UsageDelta{{TenantID: "t_a", Month: "2026-03", Counter: "calls", N: 3}}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, tenant, month string
		want                map[string]uint64
	}{
		{"two counters added up", "t_a", "2026-03", map[string]uint64{"calls": 8, "ai": 2}},
		{"another month", "t_a", "2026-04", map[string]uint64{"calls": 7}},
		{"a tenant whose id extends another", "t_ab", "2026-03", map[string]uint64{"calls": 11}},
		{"nothing stored", "t_b", "2026-03", map[string]uint64{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := db.Usage(tc.tenant, tc.month)
			if err != nil || fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("Usage = %v %v, want %v", got, err, tc.want)
			}
		})
	}
	for _, bad := range []appliance.UsageDelta{{Month: "2026-03", Counter: "calls", N: 1}, {TenantID: "t\x00x", Month: "2026-03", Counter: "calls", N: 1},
		{TenantID: "t_a", Counter: "calls"}, {TenantID: "t_a", Month: "2026-03"}} {
		if err := db.AddUsage([]appliance.UsageDelta{{TenantID: "t_a", Month: "2026-03", Counter: "calls", N: 100}, bad}); !errors.Is(err, appliance.ErrInvalid) {
			t.Errorf("AddUsage(%+v) = %v, want ErrInvalid", bad, err)
		}
	}
	db.Close()
	db, err = store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got, _ := db.Usage("t_a", "2026-03"); got["calls"] != 8 {
		t.Errorf("after reopening (and refused batches): %v", got)
	}
}

func TestAuditPage(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	db, err := store.Open(t.TempDir(), store.Options{Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for i := range 10 {
		tenant := []string{"t_a", "t_b"}[i%2]
		action := []string{"tower.register", "job.submit"}[i/5]
		e := appliance.AuditEntry{Action: action, TenantID: tenant, TimeUnix: float64(now.Unix() + int64(i)*60)}
		if _, err := db.AppendAudit(e); err != nil {
			t.Fatal(err)
		}
	}
	seqs := func(es []appliance.AuditEntry) string {
		s := ""
		for _, e := range es {
			s += fmt.Sprintf("%d,", e.Seq)
		}
		return s
	}
	base := float64(now.Unix())
	for _, tc := range []struct {
		name string
		f    appliance.AuditFilter
		want string
		next uint64
	}{
		{"all, newest first", appliance.AuditFilter{Limit: 100}, "10,9,8,7,6,5,4,3,2,1,", 0},
		{"a page", appliance.AuditFilter{Limit: 3}, "10,9,8,", 8},
		{"the next page", appliance.AuditFilter{Limit: 3, BeforeSeq: 8}, "7,6,5,", 5},
		{"one tenant", appliance.AuditFilter{TenantID: "t_a", Limit: 100}, "9,7,5,3,1,", 0},
		{"one tenant, paged", appliance.AuditFilter{TenantID: "t_b", Limit: 2, BeforeSeq: 8}, "6,4,", 4},
		{"an action", appliance.AuditFilter{Action: "tower.register", Limit: 100}, "5,4,3,2,1,", 0},
		{"a time range", appliance.AuditFilter{FromUnix: base + 120, ToUnix: base + 300, Limit: 100}, "5,4,3,", 0},
		{"last page exactly full", appliance.AuditFilter{TenantID: "t_a", Limit: 5}, "9,7,5,3,1,", 0},
		{"before past the end", appliance.AuditFilter{Limit: 2, BeforeSeq: 1000}, "10,9,", 9},
		{"before the first", appliance.AuditFilter{Limit: 2, BeforeSeq: 1}, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, next, err := db.AuditPage(tc.f)
			if err != nil || seqs(got) != tc.want || next != tc.next {
				t.Errorf("AuditPage = %s next %d (%v), want %s next %d", seqs(got), next, err, tc.want, tc.next)
			}
		})
	}
	if _, _, err := db.AuditPage(appliance.AuditFilter{}); !errors.Is(err, appliance.ErrInvalid) {
		t.Errorf("limit 0: %v", err)
	}
}
