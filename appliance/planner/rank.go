package planner

import (
	"fmt"
	"math"
	"slices"

	"linkplan/appliance"
)

// Standing is how far a tower's record can be relied on for the choice of
// the best tower (doc.go, "Ranking"): the lower, the better.
type Standing int

// Standings, best first.
const (
	// StandingReal: a real tower (not synthetic) whose position
	// uncertainty is at most PositionUncertaintyFraction of the link
	// length.
	StandingReal Standing = iota
	// StandingUncertain: a real tower whose position uncertainty exceeds
	// PositionUncertaintyFraction of the link length (the
	// position_uncertainty warning).
	StandingUncertain
	// StandingSynthetic: synthetic sample data (the synthetic_tower
	// warning), whatever its position uncertainty.
	StandingSynthetic
	numStandings
)

// String is the standing's name in messages.
func (s Standing) String() string {
	switch s {
	case StandingReal:
		return "real"
	case StandingUncertain:
		return "uncertain_position"
	case StandingSynthetic:
		return "synthetic"
	}
	return fmt.Sprintf("Standing(%d)", int(s))
}

// TowerStanding returns the standing of tower t for a link of distanceKm
// kilometres (LinkCandidate.DistanceKm). It raises exactly when
// CandidateWarnings raises synthetic_tower or position_uncertainty.
func TowerStanding(t *appliance.Tower, distanceKm float64) Standing {
	switch {
	case t == nil:
		return StandingReal
	case t.Synthetic:
		return StandingSynthetic
	case positionUncertain(t, distanceKm):
		return StandingUncertain
	}
	return StandingReal
}

// positionUncertain reports whether t's position uncertainty exceeds
// PositionUncertaintyFraction of a link of distanceKm kilometres.
func positionUncertain(t *appliance.Tower, distanceKm float64) bool {
	lenM := distanceKm * 1000
	return t != nil && lenM > 0 && t.UncertaintyM > PositionUncertaintyFraction*lenM
}

// ranking is the state of a search's answer: the want results with the
// highest margins (rankLess) and the best candidate for the headline
// among those that close (the head order: the better standing first, then
// rankLess: margin, distance, tower id; a total order, so the choice is
// deterministic), and how many candidates of each
// standing the search has still to take. Its need is what pruning may
// rely on: a candidate whose margin is provably below it changes neither.
type ranking struct {
	want    int
	results []appliance.LinkCandidate // by rankLess, at most want
	head    appliance.LinkCandidate   // the best that closes, by the head order
	hasHead bool
	headSt  Standing
	left    [numStandings]int // candidates of each standing not yet taken
}

// add takes an evaluated candidate of standing s.
func (r *ranking) add(lc appliance.LinkCandidate, s Standing) {
	r.results = insertRanked(r.results, lc, r.want)
	if lc.LinkMarginDB >= 0 && (!r.hasHead || s < r.headSt || s == r.headSt && rankLess(&lc, &r.head) < 0) {
		r.head, r.hasHead, r.headSt = lc, true, s
	}
}

// need returns the margin, dB, that a candidate of standing s must reach
// to change the answer: the smaller of the worst of want results (−Inf
// while there are fewer) and what it takes to become the best tower (0 dB
// while no candidate of standing s or better closes, the best's margin
// when one of standing s is the best, +Inf when the best has a better
// standing). A candidate whose margin is below it, even tied on margin,
// can be left out; equal margins are kept (ties go by distance and id).
func (r *ranking) need(s Standing) float64 {
	worst := math.Inf(-1)
	if len(r.results) >= r.want {
		worst = r.results[r.want-1].LinkMarginDB
	}
	head := 0.0
	switch {
	case !r.hasHead || s < r.headSt:
	case s == r.headSt:
		head = r.head.LinkMarginDB
	default:
		head = math.Inf(1)
	}
	return math.Min(worst, head)
}

// needLeft is the smallest need of the standings the search has still to
// take (+Inf when none): a free-space bound below it ends the search.
func (r *ranking) needLeft() float64 {
	n := math.Inf(1)
	for s := range numStandings {
		if r.left[s] > 0 {
			n = math.Min(n, r.need(s))
		}
	}
	return n
}

// answer returns the best tower and the alternatives: the headline is the
// best that closes by the head order, else the result with the highest margin;
// the alternatives are the other results by rankLess, want−1 at most.
// strongest is the result with the highest margin (the best, unless a
// stronger one ranks below it).
func (r *ranking) answer() (best *appliance.LinkCandidate, alts []appliance.LinkCandidate, strongest *appliance.LinkCandidate) {
	if len(r.results) == 0 {
		return nil, nil, nil
	}
	strongest = &r.results[0]
	if !r.hasHead || r.head.Tower.ID == strongest.Tower.ID {
		return strongest, r.results[1:], strongest
	}
	head := r.head
	alts = make([]appliance.LinkCandidate, 0, r.want-1)
	for _, c := range r.results {
		if c.Tower.ID != head.Tower.ID && len(alts) < r.want-1 {
			alts = append(alts, c)
		}
	}
	// strongest points into r.results, which the answer keeps as is.
	return &head, alts, strongest
}

// bestCaveats returns the warnings that qualify the choice of the best
// tower (doc.go, "Ranking"), never nil: synthetic_tower or
// position_uncertainty when the best tower has that standing, then
// stronger_tower_demoted when a result with a higher margin ranks
// below it. scope says which towers the search compared ("within 30 km"
// or "among the 200 evaluated").
func bestCaveats(best, strongest *appliance.LinkCandidate, scope string) []appliance.Warning {
	out := []appliance.Warning{}
	if best == nil {
		return out
	}
	closes := best.LinkMarginDB >= 0
	t := best.Tower
	switch TowerStanding(t, best.DistanceKm) {
	case StandingSynthetic:
		msg := fmt.Sprintf("the best tower %s is synthetic sample data, not real infrastructure: no real tower %s closes the link", t.ID, scope)
		if !closes {
			msg = fmt.Sprintf("the best tower %s is synthetic sample data, not real infrastructure: no tower %s closes the link and it has the highest margin", t.ID, scope)
		}
		out = append(out, appliance.Warning{Code: appliance.WarnSyntheticTower, Message: msg})
	case StandingUncertain:
		what := fmt.Sprintf("the position of the best tower %s is uncertain by %.0f m (%s placement), %.0f %% of the %.2f km link",
			t.ID, t.UncertaintyM, placementName(t.Placement), 100*t.UncertaintyM/(best.DistanceKm*1000), best.DistanceKm)
		msg := fmt.Sprintf("%s: no real tower with a well-known position %s closes the link", what, scope)
		if !closes {
			msg = fmt.Sprintf("%s: no tower %s closes the link and it has the highest margin", what, scope)
		}
		out = append(out, appliance.Warning{Code: appliance.WarnPositionUncertainty, Message: msg})
	}
	if strongest != nil && strongest.Tower.ID != t.ID {
		s := strongest.Tower
		why := "it is synthetic sample data"
		if TowerStanding(s, strongest.DistanceKm) == StandingUncertain {
			why = fmt.Sprintf("its position is uncertain by %.0f m, %.0f %% of its %.2f km link", s.UncertaintyM, 100*s.UncertaintyM/(strongest.DistanceKm*1000), strongest.DistanceKm)
		}
		out = append(out, appliance.Warning{Code: appliance.WarnStrongerTowerDemoted, Message: fmt.Sprintf(
			"tower %s has a higher margin (%.1f dB against %.1f dB) but ranks below the best tower because %s: a real tower with a well-known position whose link closes ranks first",
			s.ID, strongest.LinkMarginDB, best.LinkMarginDB, why)})
	}
	return out
}

// withCaveats returns the analysis warnings ws with the caveats whose code
// none of them has appended (stronger_tower_demoted: the others are
// the best tower's own warnings, already merged).
func withCaveats(ws, caveats []appliance.Warning) []appliance.Warning {
	for _, c := range caveats {
		if !slices.ContainsFunc(ws, func(w appliance.Warning) bool { return w.Code == c.Code }) {
			ws = append(ws, c)
		}
	}
	return ws
}
