package planner

import (
	"fmt"

	"linkplan/appliance"
)

// PositionUncertaintyFraction is the fraction of the link length above which
// a tower's position uncertainty raises the position_uncertainty warning,
// dimensionless: 10 %.
const PositionUncertaintyFraction = 0.10

// MaxAnalysisWarnings bounds the warnings of one LinkAnalysis.
const MaxAnalysisWarnings = 20

// CandidateWarnings returns the warnings of one evaluated path (package doc,
// "Warnings"): those of the path (appliance.PathWarnings, shared with the
// engine routes), then those of the tower and its EIRP, then the engine's
// own. It never returns nil.
func CandidateWarnings(c *appliance.LinkCandidate, prof *appliance.PathProfile) []appliance.Warning {
	out := appliance.PathWarnings(&c.Prediction, prof)
	out = append(out, TowerWarnings(c.Tower, c.EIRPAssumed, c.EIRPDBm, c.DistanceKm)...)
	return append(out, c.Prediction.Warnings...)
}

// TowerWarnings returns the caveats of a link's tower t, distanceKm
// kilometres from its receiver, whatever the engine (CandidateWarnings;
// engine raytrace's links too): eirp_assumed (eirpAssumed: the source
// gives no ERP and eirpDBm was assumed), synthetic_tower and
// position_uncertainty (above PositionUncertaintyFraction of the link),
// in that order; nil when none.
func TowerWarnings(t *appliance.Tower, eirpAssumed bool, eirpDBm, distanceKm float64) []appliance.Warning {
	var out []appliance.Warning
	if eirpAssumed {
		out = append(out, appliance.Warning{Code: appliance.WarnEIRPAssumed, Message: fmt.Sprintf(
			"the tower's source gives no ERP: an EIRP of %.1f dBm was assumed", eirpDBm)})
	}
	if t != nil && t.Synthetic {
		out = append(out, appliance.Warning{Code: appliance.WarnSyntheticTower, Message: "the tower is synthetic sample data, not real infrastructure"})
	}
	if lenM := distanceKm * 1000; positionUncertain(t, distanceKm) {
		out = append(out, appliance.Warning{Code: appliance.WarnPositionUncertainty, Message: fmt.Sprintf(
			"the tower position is uncertain by %.0f m (%s placement), %.0f %% of the %.2f km link: the real path and its terrain may differ",
			t.UncertaintyM, placementName(t.Placement), 100*t.UncertaintyM/lenM, distanceKm)})
	}
	return out
}

func placementName(p appliance.Placement) string {
	if p == "" {
		return "unknown"
	}
	return string(p)
}

// warningKey is what makes two warnings the same in an analysis: the code
// for the link-result codes whose messages carry per-path figures, else the
// code and the message.
func warningKey(w appliance.Warning) string {
	switch w.Code {
	case appliance.WarnFSPLObstructed, appliance.WarnEIRPAssumed, appliance.WarnPositionUncertainty, appliance.WarnVoidFilledTerrain:
		return w.Code
	}
	return w.Code + "\x00" + w.Message
}

// analysisWarnings merges the warnings of the ranked results: one per
// warningKey, with the message of the best-ranked result that raised it,
// and how many of the results raised it when more than one did; at most
// MaxAnalysisWarnings. It never returns nil.
func analysisWarnings(results []appliance.LinkCandidate) []appliance.Warning {
	out := []appliance.Warning{}
	var keys []string
	count := map[string]int{}
	for _, r := range results {
		seen := map[string]bool{}
		for _, w := range r.Warnings {
			k := warningKey(w)
			if seen[k] {
				continue
			}
			seen[k] = true
			if count[k] == 0 && len(out) < MaxAnalysisWarnings {
				out = append(out, w)
				keys = append(keys, k)
			}
			count[k]++
		}
	}
	for i := range out {
		if k := count[keys[i]]; k > 1 {
			out[i].Message += fmt.Sprintf(" (raised for %d of the %d results)", k, len(results))
		}
	}
	return out
}
