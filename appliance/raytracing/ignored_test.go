package raytracing_test

import (
	"context"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/raytracing"
	"linkplan/store/spatial"
)

// TestAnalyzeLinkIgnoredMembers: engine raytrace on POST /analyze_link
// names max_alternatives and include in a parameter_ignored warning when
// given (every traced tower is a link of the answer; its paths, not a
// terrain profile's path check, are what it returns). Both were parsed and
// then dropped without a word.
func TestAnalyzeLinkIgnoredMembers(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	txp := at(-150, 140)
	ix := spatial.New([]*appliance.Tower{{ID: "t1", Operator: "op", Lat: txp.Lat, Lon: txp.Lon, HeightM: 30, ERPDBm: 40,
		Source: appliance.SourceUser, OwnerTenantID: f.ent.TenantID}})
	f.svc.Towers = func() appliance.TowerIndex { return ix }
	f.svc.Terrain = f.ter
	for _, c := range []struct {
		name    string
		alt     int
		profile bool
		want    []string // the members named, in order
	}{
		{"neither", 0, false, nil},
		{"max_alternatives", 3, false, []string{"max_alternatives 3"}},
		{"include profile", 0, true, []string{`include ["profile"]`}},
		{"both", 2, true, []string{"max_alternatives 2", `include ["profile"]`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			rx := at(5, -5)
			req := appliance.LinkRequest{Receiver: rx, RxHeightM: 1.5, FreqMHz: 3500, MaxDistanceKm: 2, RxThresholdDBm: -95, AssumedEIRPDBm: 58,
				MaxAlternatives: 5, IncludeProfile: c.profile} // 5: the planner's default, absent or given
			var given []string
			if c.alt > 0 {
				req.MaxAlternatives = c.alt
				given = append(given, "max_alternatives")
			}
			if c.profile {
				given = append(given, "include")
			}
			j, err := f.svc.SubmitAnalyzeLink(ctx, f.ent, req, f.layer, raytracing.DefaultOptions(), nil, given)
			if err != nil {
				t.Fatal(err)
			}
			done := f.wait(t, j.ID)
			if done.State != appliance.JobSucceeded {
				t.Fatalf("job %s: %s", done.State, done.Error)
			}
			var out raytracing.LinkJobResult
			readResult(t, f, j.ID, &out)
			var got []string
			for _, w := range out.Warnings {
				if w.Code == appliance.WarnParameterIgnored {
					got = append(got, w.Message)
				}
			}
			if len(got) != len(c.want) {
				t.Fatalf("parameter_ignored warnings %q, want %d naming %q", got, len(c.want), c.want)
			}
			for i, w := range c.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("warning %d %q does not name %s", i, got[i], w)
				}
			}
		})
	}
}
