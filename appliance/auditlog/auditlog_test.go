package auditlog_test

import (
	"errors"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/auditlog"
	"linkplan/appliance/tenancy"
	"linkplan/store"
)

func TestTenantAndAdminPages(t *testing.T) {
	db, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	auth := tenancy.New(db, nil)
	_, admin, err := auth.Issue(tenancy.IssueRequest{Role: appliance.RoleAdmin, Owner: "op", Email: "op@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	// The operator issues a key for a tenant: the entry concerns the
	// tenant but its actor is the operator.
	_, a, err := auth.Issue(tenancy.IssueRequest{Tier: appliance.TierPro, Owner: "A", Email: "a@example.com",
		Audit: &appliance.AuditEntry{Action: appliance.ActionAdminKeyIssue, ActorKey: admin.ID, ActorEmail: admin.Email, IP: "192.0.2.9", UserAgent: "curl"}})
	if err != nil {
		t.Fatal(err)
	}
	_, b, err := auth.Issue(tenancy.IssueRequest{Tier: appliance.TierFree, Owner: "B", Email: "b@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	own := appliance.Actor{KeyID: a.ID, Email: a.Email, IP: "198.51.100.7", UserAgent: "ua"}
	if _, err := db.AppendAudit(own.Entry(appliance.ActionTowerRegister, a.TenantID, map[string]string{"tower_id": "user:1"})); err != nil {
		t.Fatal(err)
	}
	s := auditlog.New(db)

	p, err := s.TenantPage(a, auditlog.Query{})
	if err != nil || len(p.Entries) != 2 {
		t.Fatalf("tenant page: %+v %v", p, err)
	}
	if e := p.Entries[0]; e.Action != appliance.ActionTowerRegister || e.ActorKey != a.ID || e.ActorEmail != a.Email || e.IP != "198.51.100.7" {
		t.Errorf("own entry changed: %+v", e)
	}
	if e := p.Entries[1]; e.Action != appliance.ActionAdminKeyIssue || e.ActorKey != "operator" || e.ActorEmail != "" || e.IP != "" || e.UserAgent != "" {
		t.Errorf("operator's details shown to the tenant: %+v", e)
	}
	if p, err := s.TenantPage(b, auditlog.Query{}); err != nil || len(p.Entries) != 0 {
		t.Errorf("tenant B sees %+v %v", p, err)
	}
	if _, err := s.TenantPage(admin, auditlog.Query{}); !errors.Is(err, appliance.ErrForbidden) {
		t.Errorf("admin on the tenant page: %v", err)
	}
	if _, err := s.AdminPage(a, auditlog.Query{}); !errors.Is(err, appliance.ErrForbidden) {
		t.Errorf("tenant on the admin page: %v", err)
	}
	p, err = s.AdminPage(admin, auditlog.Query{TenantID: a.TenantID, Limit: 10, RequestID: "r1"})
	if err != nil || len(p.Entries) != 2 || p.Entries[1].ActorEmail != admin.Email {
		t.Fatalf("admin page: %+v %v", p, err)
	}
	reads, _, err := db.AuditPage(appliance.AuditFilter{Action: appliance.ActionAdminAuditRead, Limit: 10})
	if err != nil || len(reads) != 1 || reads[0].Params["tenant_id"] != a.TenantID || reads[0].RequestID != "r1" || reads[0].ActorKey != admin.ID {
		t.Errorf("the admin read is not audited: %+v %v", reads, err)
	}
}

func TestQueryValidate(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name   string
		q      auditlog.Query
		fields []string
	}{
		{"empty", auditlog.Query{}, nil},
		{"good", auditlog.Query{Action: "admin.dsar.export.served", Limit: 1000, From: t0, To: t0.Add(time.Hour)}, nil},
		{"upper-case action", auditlog.Query{Action: "Tower.Register"}, []string{"action"}},
		{"action with a space", auditlog.Query{Action: "tower register"}, []string{"action"}},
		{"trailing dot", auditlog.Query{Action: "tower."}, []string{"action"}},
		{"limit too big", auditlog.Query{Limit: 1001}, []string{"limit"}},
		{"to not after from", auditlog.Query{From: t0, To: t0}, []string{"to"}},
		{"all bad", auditlog.Query{Action: "x y", Limit: -1, From: t0.Add(time.Hour), To: t0}, []string{"action", "limit", "to"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := tc.q.Validate()
			var got []string
			if v != nil {
				for _, f := range v.Fields {
					got = append(got, f.Field)
				}
			}
			if len(got) != len(tc.fields) {
				t.Fatalf("fields %v, want %v", got, tc.fields)
			}
			for i := range got {
				if got[i] != tc.fields[i] {
					t.Errorf("fields %v, want %v", got, tc.fields)
				}
			}
		})
	}
}
