package raytrace_test

import (
	"context"
	"slices"
	"testing"

	"linkplan/appliance"
	"linkplan/engines/raytrace"
)

// TestIssue24_PointPathsCap: a point answer lists at most MaxPointPaths
// paths; beyond a cap the strongest are kept in their order with a
// warning that counts them, and an answer under the cap is untouched.
func TestIssue24_PointPathsCap(t *testing.T) {
	t.Parallel()
	s := cityScene(t, 7, 60, 300)
	f := s.Frame()
	req := raytrace.PointRequest{Tx: raytrace.Antenna{Pos: f.ToLatLon(5, -4), HeightM: 30}, Rx: raytrace.Antenna{Pos: f.ToLatLon(-90, 70), HeightM: 1.5},
		FreqMHz: 3500, TxPowerDBm: 43, Options: raytrace.DefaultOptions()}
	res, err := s.Point(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	n := len(res.Paths)
	if n < 8 || n > raytrace.MaxPointPaths || slices.Contains(appliance.WarningCodes(res.Warnings), raytrace.WarnPathsTruncated) {
		t.Fatalf("%d paths, warnings %v: want at least 8, all listed", n, appliance.WarningCodes(res.Warnings))
	}
	keep := n / 3
	got, w := raytrace.StrongestPaths(res.Paths, keep)
	if len(got) != keep || w == nil || w.Code != raytrace.WarnPathsTruncated {
		t.Fatalf("capped to %d: %d paths, warning %+v", keep, len(got), w)
	}
	weakestKept := got[0].GainDB
	for _, p := range got {
		weakestKept = min(weakestKept, p.GainDB)
	}
	pos := -1
	dropped := 0
	for i, p := range res.Paths {
		if pos+1 < len(got) && p.LengthM == got[pos+1].LengthM && p.GainDB == got[pos+1].GainDB {
			pos++ // kept, in order
			continue
		}
		dropped++
		if p.GainDB > weakestKept {
			t.Fatalf("path %d (%.1f dB) dropped while one of %.1f dB was kept", i, p.GainDB, weakestKept)
		}
	}
	if pos != keep-1 || dropped != n-keep {
		t.Fatalf("the kept paths are not the answer's in its order (%d matched, %d dropped)", pos+1, dropped)
	}
	if same, w := raytrace.StrongestPaths(res.Paths, n); len(same) != n || w != nil {
		t.Fatal("an answer at the cap was changed")
	}
	t.Logf("%d paths capped to %d: %s", n, keep, w.Message)
}
