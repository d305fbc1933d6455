package repeater

import (
	"fmt"
	"slices"

	"linkplan/appliance"
	"linkplan/appliance/planner"
)

// pathWarnings are the warnings of one evaluated hop that do not depend
// on the request's radio budget, kept in the edge cache: those of the path
// (appliance.PathWarnings: fspl_obstructed, no_land_cover,
// void_filled_terrain) then the engine's own. nil when there are none, so
// that the cache keeps nothing for a clean hop.
func pathWarnings(pred *appliance.LinkPrediction, prof *appliance.PathProfile) []appliance.Warning {
	out := append(appliance.PathWarnings(pred, prof), pred.Warnings...)
	if len(out) == 0 {
		return nil
	}
	return out
}

// hopWarnings returns the warnings of hop h (doc.go, "Warnings"): the
// path's and the engine's (edge, from the cache), then those of the
// towers at its ends. It never returns nil.
func hopWarnings(h *Hop, edge []appliance.Warning) []appliance.Warning {
	out := append([]appliance.Warning{}, edge...)
	for _, end := range []struct {
		n    Node
		role string
	}{{h.From, "transmitting"}, {h.To, "receiving"}} {
		n := end.n
		if n.TowerID == "" {
			continue
		}
		if n.Synthetic {
			out = append(out, appliance.Warning{Code: appliance.WarnSyntheticTower, Message: fmt.Sprintf(
				"the %s tower %s is synthetic sample data, not real infrastructure: this hop may not exist", end.role, n.TowerID)})
		}
		if h.DistanceM > 0 && n.UncertaintyM > planner.PositionUncertaintyFraction*h.DistanceM {
			placement := string(n.Placement)
			if placement == "" {
				placement = "unknown"
			}
			out = append(out, appliance.Warning{Code: appliance.WarnPositionUncertainty, Message: fmt.Sprintf(
				"the position of the %s tower %s is uncertain by %.0f m (%s placement), %.0f %% of the %.2f km hop: the real path and its terrain may differ",
				end.role, n.TowerID, n.UncertaintyM, placement, 100*n.UncertaintyM/h.DistanceM, h.DistanceM/1000)})
		}
	}
	return out
}

// routeWarnings merges the hop warnings of a route: one per code, in
// order of first appearance, with the message of the first hop that
// raised it, that hop named, and how many hops raised it when more than
// one did. It never returns nil.
func routeWarnings(rt Route) []appliance.Warning {
	out := []appliance.Warning{}
	var codes []string
	hops := map[string]int{}
	for i, h := range rt.Hops {
		var seen []string
		for _, w := range h.Warnings {
			if slices.Contains(seen, w.Code) {
				continue
			}
			seen = append(seen, w.Code)
			if hops[w.Code] == 0 {
				codes = append(codes, w.Code)
				out = append(out, appliance.Warning{Code: w.Code, Message: fmt.Sprintf("hop %d (%s → %s): %s", i+1, label(h.From), label(h.To), w.Message)})
			}
			hops[w.Code]++
		}
	}
	for i, c := range codes {
		if n := hops[c]; n > 1 {
			out[i].Message += fmt.Sprintf(" (raised for %d of the %d hops)", n, len(rt.Hops))
		}
	}
	return out
}

// budget is the radio budget of req as the plan echoes it.
func (s *Service) budget(req *Request) RadioBudget {
	b := RadioBudget{FreqMHz: req.FreqMHz, EIRPDBm: req.EIRPDBm, RxGainDBi: req.RxGainDBi, RxThresholdDBm: req.RxThresholdDBm,
		MinMarginDB: req.MinMarginDB, FresnelPenaltyDB: s.FresnelPenaltyDB,
		MaxPathLossDB: req.EIRPDBm + req.RxGainDBi - req.RxThresholdDBm - req.MinMarginDB,
		EIRPAssumed:   slices.Contains(req.Assumed, "eirp_dbm"), Assumed: append([]string{}, req.Assumed...)}
	return b
}
