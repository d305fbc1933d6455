package raytracing

import (
	"strings"
	"testing"

	"linkplan/appliance"
)

// TestBestRanksLikeThePlanner: a link job's best link is the planner's
// best tower (planner package doc, "Ranking"): of the links that close,
// the best standing, then the largest margin; when none closes, or
// without a budget, the largest margin (least loss). A stronger link
// that ranks below the best raises stronger_tower_demoted naming it.
func TestBestRanksLikeThePlanner(t *testing.T) {
	link := func(id, standing string, margin float64) LinkResult {
		return LinkResult{Link: Link{TowerID: id, Budget: true, Standing: standing}, Reachable: true, PathLossDB: fp(120 - margin), LinkMarginDB: fp(margin)}
	}
	noBudget := func(id string, loss float64) LinkResult {
		return LinkResult{Link: Link{TowerID: id}, Reachable: true, PathLossDB: fp(loss)}
	}
	unreachable := LinkResult{Link: Link{TowerID: "dark"}}
	for _, tc := range []struct {
		name           string
		links          []LinkResult
		best           int // -1: none
		demoted        string
		demotedBecause string
	}{
		{"none reachable", []LinkResult{unreachable}, -1, "", ""},
		{"largest margin among real towers", []LinkResult{link("a", "real", 3), link("b", "real", 9), unreachable}, 1, "", ""},
		{"a real tower that closes before a stronger synthetic one", []LinkResult{link("syn", "synthetic", 20), link("real", "real", 2)}, 1, "syn", "synthetic sample data"},
		{"a real tower that closes before a stronger uncertain one", []LinkResult{link("unc", "uncertain_position", 12), link("real", "", 0)}, 1, "unc", "position is uncertain"},
		{"uncertain before synthetic", []LinkResult{link("syn", "synthetic", 20), link("unc", "uncertain_position", 5)}, 1, "syn", "synthetic sample data"},
		{"a real tower that does not close ranks by margin", []LinkResult{link("syn", "synthetic", 4), link("real", "real", -1)}, 0, "", ""},
		{"none closes: the largest margin", []LinkResult{link("real", "real", -8), link("syn", "synthetic", -2)}, 1, "", ""},
		{"tie: the first", []LinkResult{link("a", "real", 5), link("b", "real", 5)}, 0, "", ""},
		{"a tie on margin goes to the better standing, no stronger link", []LinkResult{link("syn", "synthetic", 5), link("real", "real", 5)}, 1, "", ""},
		{"no budget: the least loss", []LinkResult{noBudget("a", 110), noBudget("b", 95)}, 1, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, strongest := best(tc.links)
			switch {
			case tc.best < 0 && b != nil:
				t.Fatalf("best %d, want none", *b)
			case tc.best >= 0 && (b == nil || *b != tc.best):
				t.Fatalf("best %v, want %d", b, tc.best)
			}
			w := demotedWarning(tc.links, b, strongest)
			switch {
			case tc.demoted == "" && w != nil:
				t.Errorf("unexpected %s: %s", w.Code, w.Message)
			case tc.demoted != "" && (w == nil || w.Code != appliance.WarnStrongerTowerDemoted ||
				!strings.Contains(w.Message, "tower "+tc.demoted+" ") || !strings.Contains(w.Message, tc.demotedBecause)):
				t.Errorf("warning %+v, want stronger_tower_demoted naming %s because of %q", w, tc.demoted, tc.demotedBecause)
			}
		})
	}
}
