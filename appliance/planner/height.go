package planner

import (
	"context"
	"fmt"
	"math"

	"linkplan/appliance"
)

// Height search settings (package doc, "Height search").
const (
	// DefaultHeightStepM is the default step of the height search, metres.
	DefaultHeightStepM = 1.0
	// MinHeightStepM and MaxHeightStepM bound the step, metres.
	MinHeightStepM = 0.1
	MaxHeightStepM = 10.0
	// DefaultHeightCapM is the default cap of the height search, metres
	// above ground.
	DefaultHeightCapM = 100.0
	// MaxHeightSteps is the most heights one search may evaluate
	// (MaxHeightM / StepM).
	MaxHeightSteps = 2000
)

// ValidateHeight fills the defaults of a height request (step 1 m, cap
// 100 m, move receiver) and names every bad field.
func ValidateHeight(r *appliance.HeightRequest) error {
	v := &appliance.ValidationError{}
	if r.Move == "" {
		r.Move = appliance.HeightMoveReceiver
	}
	if r.StepM == 0 {
		r.StepM = DefaultHeightStepM
	}
	if r.MaxHeightM == 0 {
		r.MaxHeightM = DefaultHeightCapM
	}
	if r.Move != appliance.HeightMoveReceiver && r.Move != appliance.HeightMoveTower {
		v.Add("move", "must be %q or %q, got %q", appliance.HeightMoveReceiver, appliance.HeightMoveTower, r.Move)
	}
	if math.IsNaN(r.TargetMarginDB) || r.TargetMarginDB < -50 || r.TargetMarginDB > 100 {
		v.Add("target_margin_db", "must be between -50 and 100 dB, got %g", r.TargetMarginDB)
	}
	if math.IsNaN(r.StepM) || r.StepM < MinHeightStepM || r.StepM > MaxHeightStepM {
		v.Add("step_m", "must be between %g and %g m, got %g", MinHeightStepM, MaxHeightStepM, r.StepM)
	}
	if math.IsNaN(r.MaxHeightM) || r.MaxHeightM <= 0 || r.MaxHeightM > MaxAntennaHeightM {
		v.Add("max_height_m", "must be above 0 and at most %g m, got %g", MaxAntennaHeightM, r.MaxHeightM)
	} else if r.StepM >= MinHeightStepM && r.MaxHeightM/r.StepM > MaxHeightSteps {
		v.Add("max_height_m", "max_height_m / step_m must be at most %d heights, got %.0f", MaxHeightSteps, r.MaxHeightM/r.StepM)
	}
	return v.Err()
}

// SuggestHeight finds the smallest height of the moving end, a multiple
// of StepM between StepM and MaxHeightM, at which the path clears 60 % of
// the first Fresnel zone (hence line of sight) and the engine's margin
// reaches TargetMarginDB (package doc, "Height search"). It is exact on
// that grid: clearance only grows with height, so no grid height below
// the geometric 60 % F1 bound can qualify, and from there every height
// is evaluated with the engine in order until one qualifies.
func (p *Planner) SuggestHeight(ctx context.Context, req appliance.HeightRequest) (*appliance.HeightSuggestion, error) {
	if err := ValidateHeight(&req); err != nil {
		return nil, fmt.Errorf("suggest height: %w", err)
	}
	cur, err := p.AnalyzePair(ctx, req.Pair)
	if err != nil {
		return nil, err
	}
	out := &appliance.HeightSuggestion{Request: req, Current: cur}
	if cur.Path == nil {
		return nil, fmt.Errorf("suggest height: the pair analysis has no path check")
	}
	if req.Move == appliance.HeightMoveTower {
		out.MinLOS, out.MinFresnel60 = cur.Path.TxMinLOS, cur.Path.TxMinFresnel60
	} else {
		out.MinLOS, out.MinFresnel60 = cur.Path.RxMinLOS, cur.Path.RxMinFresnel60
	}
	switch {
	case !out.MinLOS.Achievable || out.MinLOS.HeightM > req.MaxHeightM:
		out.FailingRule = "line_of_sight"
		return out, nil
	case !out.MinFresnel60.Achievable || out.MinFresnel60.HeightM > req.MaxHeightM:
		out.FailingRule = "fresnel60"
		return out, nil
	}
	steps := int(math.Floor(req.MaxHeightM/req.StepM + 1e-9))
	first := max(1, int(math.Floor(out.MinFresnel60.HeightM/req.StepM)))
	var last *appliance.LinkCandidate
	for k := first; k <= steps; k++ {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("suggest height: %w", err)
		}
		h := math.Round(float64(k)*req.StepM*1e6) / 1e6
		lc, err := p.AnalyzePair(ctx, movedPair(req, cur.Tower, h))
		if err != nil {
			return nil, fmt.Errorf("suggest height at %g m: %w", h, err)
		}
		out.Evaluated++
		last = lc
		if ClearsFresnel60(lc) && lc.LinkMarginDB >= req.TargetMarginDB {
			out.Found, out.HeightM, out.At = true, h, lc
			return out, nil
		}
	}
	switch {
	case last == nil || !last.Prediction.LOSClear:
		out.FailingRule = "line_of_sight"
	case !ClearsFresnel60(last):
		out.FailingRule = "fresnel60"
	default:
		out.FailingRule = "margin"
	}
	return out, nil
}

// movedPair is the pair of req with the moving end at height h metres.
func movedPair(req appliance.HeightRequest, t *appliance.Tower, h float64) appliance.PairRequest {
	pr := req.Pair
	if req.Move == appliance.HeightMoveTower {
		moved := *t
		moved.HeightM = h
		pr.TowerID, pr.Tower = "", &moved
		return pr
	}
	pr.RxHeightM = h
	return pr
}

// ClearsFresnel60 reports whether a link's path check clears 60 % of the
// first Fresnel zone at every intermediate sample (a path without one
// clears).
func ClearsFresnel60(lc *appliance.LinkCandidate) bool {
	if lc.Path == nil {
		return false
	}
	return lc.Path.Obstacle == nil || lc.Path.Obstacle.ClearanceF1 >= FresnelRule
}
