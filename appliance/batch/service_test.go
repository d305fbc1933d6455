package batch_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/batch"
	"linkplan/appliance/geoexport"
)

func proKey() *appliance.APIKey {
	return &appliance.APIKey{ID: "key1", Tier: appliance.TierPro, Role: appliance.RoleTenant, TenantID: "tn1"}
}

func TestSubmitSync(t *testing.T) {
	fa := &fakeAnalyzer{}
	q := &fakeQueue{}
	rows := rowsN(batch.SyncMaxRows)
	rows[0].HeightM = f64(0) // an explicit 0 is kept, then refused by Validate
	rows[1].HeightM, rows[1].RxGainDBi, rows[1].Operator = f64(25), f64(12), "Claro"
	var got [2]*batch.SyncResult
	for i, workers := range []int{1, 8} {
		s := batch.New(batch.Deps{Analyzer: fa, Queue: q, Workers: workers})
		res, job, err := s.Submit(context.Background(), proKey(), rows, batch.DefaultOptions())
		if err != nil || job != nil || res == nil {
			t.Fatalf("sync: %v %v", job, err)
		}
		got[i] = res
	}
	if len(q.jobs) != 0 {
		t.Fatal("a synchronous batch was queued")
	}
	res := got[0]
	if len(res.Rows) != len(rows) || res.Counts.Total != len(rows) {
		t.Fatalf("%d rows, counts %+v", len(res.Rows), res.Counts)
	}
	c := res.Counts
	if c.OK+c.LowMargin+c.NoTower+c.Error != c.Total || c.OK == 0 || c.LowMargin == 0 || c.NoTower == 0 || c.Error == 0 {
		t.Fatalf("counts %+v", c)
	}
	cases := []struct {
		name   string
		row    int
		status string
		reason string
	}{
		{"explicit zero height refused", 0, batch.StatusError, "height_m"},
		{"no tower", 6, batch.StatusNoTower, "no tower within"},
		{"missing terrain", 10, batch.StatusError, "terrain tile S31W044"},
		{"bad value", 12, batch.StatusError, "not a number"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := res.Rows[tc.row]
			if r.Index != tc.row || r.Status != tc.status || !strings.Contains(r.Reason, tc.reason) {
				t.Fatalf("row %+v", r)
			}
		})
	}
	for i := range res.Rows {
		a, b := res.Rows[i], got[1].Rows[i]
		if a.Status != b.Status || a.Reason != b.Reason || a.TowerID != b.TowerID {
			t.Fatalf("row %d differs between 1 and 8 workers", i)
		}
	}
	// Defaults as /analyze_link, tenant scoping, given values kept.
	for _, req := range fa.reqs {
		if req.TenantID != "tn1" || req.MaxAlternatives != 0 {
			t.Fatalf("request %+v", req)
		}
		if req.RxHeightM == 25 && (req.RxGainDBi != 12 || req.Operator != "Claro" || req.MaxDistanceKm != 30 || req.RxThresholdDBm != -95 || req.AssumedEIRPDBm != 58) {
			t.Fatalf("request %+v", req)
		}
	}
	ok := res.Rows[2]
	if ok.HeightM == nil || *ok.HeightM != 10 || ok.TowerID == "" || ok.Engine != "fspl" {
		t.Fatalf("row 2 %+v", ok)
	}
	if geoexport.StatusOK != batch.StatusOK {
		t.Fatal("status values")
	}
}

func TestSubmitTierAndQueue(t *testing.T) {
	fa := &fakeAnalyzer{}
	cases := []struct {
		name    string
		tier    appliance.Tier
		rows    int
		qerr    error
		wantErr error
		queued  bool
		lane    appliance.Lane
	}{
		{"Free forbidden", appliance.TierFree, 1, nil, appliance.ErrForbidden, false, ""},
		{"Starter exact limit is synchronous", appliance.TierStarter, 100, nil, nil, false, ""},
		{"Starter over the limit", appliance.TierStarter, 101, nil, appliance.ErrInvalid, false, ""},
		{"Pro queued in the standard lane", appliance.TierPro, 101, nil, nil, true, appliance.LaneStandard},
		{"Enterprise queued in the priority lane", appliance.TierEnterprise, 150, nil, nil, true, appliance.LanePriority},
		{"queue refusal is unavailable", appliance.TierPro, 150, errors.New("disk full"), appliance.ErrUnavailable, false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q := &fakeQueue{err: c.qerr}
			s := batch.New(batch.Deps{Analyzer: fa, Queue: q})
			k := proKey()
			k.Tier = c.tier
			res, job, err := s.Submit(context.Background(), k, rowsN(c.rows), batch.DefaultOptions())
			if c.wantErr != nil {
				if !errors.Is(err, c.wantErr) {
					t.Fatalf("got %v, want %v", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !c.queued {
				if res == nil || job != nil {
					t.Fatal("not synchronous")
				}
				return
			}
			if job == nil || len(q.jobs) != 1 || job.Kind != appliance.JobKindBatchReport || job.Lane != c.lane ||
				job.TenantID != "tn1" || job.KeyID != "key1" || job.Total != int64(c.rows) || job.ID == "" || len(job.Payload) == 0 {
				t.Fatalf("job %+v", job)
			}
		})
	}
}

func TestSubmitEngineResolution(t *testing.T) {
	fa := &fakeAnalyzer{}
	resolve := func(k *appliance.APIKey, id appliance.EngineID) (appliance.EngineID, string, error) {
		switch id {
		case "auto":
			return "fspl", "auto resolves to fspl", nil
		case "fspl":
			return id, "", nil
		}
		return "", "", appliance.Invalid("engine", "unknown engine %q", id)
	}
	s := batch.New(batch.Deps{Analyzer: fa, ResolveEngine: resolve})
	rows := rowsN(3)
	rows[0].Engine, rows[1].Engine = "auto", "nope"
	res, _, err := s.Submit(context.Background(), proKey(), rows, batch.Options{Engine: "fspl"})
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Rows[0]; r.Status == batch.StatusError || len(r.Warnings) == 0 || r.Warnings[len(r.Warnings)-1].Code != appliance.WarnEngineResolved || r.Warnings[len(r.Warnings)-1].Message == "" {
		t.Fatalf("row 0 %+v", r)
	}
	if r := res.Rows[1]; r.Status != batch.StatusError || len(r.Errors) != 1 || r.Errors[0].Field != "engine" {
		t.Fatalf("row 1 %+v", r)
	}
	if _, _, err := s.Submit(context.Background(), proKey(), rows, batch.Options{Language: "fr"}); !errors.Is(err, appliance.ErrInvalid) {
		t.Fatalf("language: %v", err)
	}
}
