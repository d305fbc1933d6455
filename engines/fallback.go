package engines

import (
	"context"
	"errors"
	"fmt"
	"time"

	"linkplan/appliance"
)

// PredictWithFallback runs engine id on in. When the engine refuses the
// input as outside its validity range (an error matching
// appliance.ErrOutsideEnvelope: frequency, distance, heights, time
// percentage, an ITM model limit), when the engine is listed but not
// available (raytrace, raytrace_ml), or when it returns a non-finite loss,
// fspl answers instead: fellBack is true, reason says why and the result
// carries the reason in its Warnings. Malformed input (NaN, negative
// heights, a bad profile: ValidateLink) and an unknown engine id are
// returned as errors matching appliance.ErrInvalid, as is an input that
// fspl refuses too; a cancelled ctx returns ctx.Err().
func (r *Registry) PredictWithFallback(ctx context.Context, id appliance.EngineID, in appliance.LinkInput) (pred appliance.LinkPrediction, fellBack bool, reason string, err error) {
	return r.predictFallback(ctx, id, in, &extras{})
}

func (r *Registry) predictFallback(ctx context.Context, id appliance.EngineID, in appliance.LinkInput, x *extras) (appliance.LinkPrediction, bool, string, error) {
	if err := ctx.Err(); err != nil {
		return appliance.LinkPrediction{}, false, "", err
	}
	if id == "" {
		id = appliance.EngineFSPL
	}
	info, known := r.Info(id)
	if !known {
		_, err := r.Get(id)
		return appliance.LinkPrediction{}, false, "", fmt.Errorf("predict: %w", err)
	}
	if err := ValidateLink(in); err != nil {
		return appliance.LinkPrediction{}, false, "", fmt.Errorf("predict %s: %w", id, err)
	}
	var reason string
	switch {
	case info.Asynchronous:
		reason = fmt.Sprintf("engine %s is asynchronous: it runs as a job on the raytrace worker over a building layer, not on a terrain profile", id)
	case info.Status != StatusAvailable:
		reason = fmt.Sprintf("engine %s is %s (%s)", id, info.Status, info.Notes)
	default:
		pred, err := r.runID(ctx, id, in, x)
		switch {
		case err == nil && finite(pred.PathLossDB):
			return pred, false, "", nil
		case err == nil:
			reason = fmt.Sprintf("engine %s returned a non-finite loss (%g dB)", id, pred.PathLossDB)
		case errors.Is(err, appliance.ErrOutsideEnvelope):
			reason = err.Error()
			var ee *EnvelopeError
			if errors.As(err, &ee) {
				reason = ee.Error()
			}
		default:
			return appliance.LinkPrediction{}, false, "", err
		}
	}
	if ferr := fsplValid(in); ferr != nil {
		return appliance.LinkPrediction{}, false, "", fmt.Errorf("predict %s (%s) with the fspl fallback: %w", id, reason, ferr)
	}
	pred := r.fspl.Compute(in.Profile, in.TxHeightM, in.RxHeightM, in.FreqMHz)
	pred.Warnings = append(pred.Warnings, appliance.Warning{Code: appliance.WarnEngineFallback,
		Message: "fspl answered instead of " + string(id) + ": " + reason})
	return pred, true, reason, nil
}

// WithFallback returns an appliance.Engine whose Predict is
// PredictWithFallback for id (the fallback reason goes to Warnings), for
// callers such as the planner that hold an engine rather than the
// registry. For fspl (and "") it returns fspl itself, which keeps its
// LossAtLeastFreeSpace bound; the wrapper of any other engine does not
// declare the bound. An unknown id is an error matching appliance.ErrInvalid.
func (r *Registry) WithFallback(id appliance.EngineID) (appliance.Engine, error) {
	if id == "" || id == appliance.EngineFSPL {
		return r.fspl, nil
	}
	if _, ok := r.Info(id); !ok {
		_, err := r.Get(id)
		return nil, err
	}
	return &fallbackEngine{reg: r, id: id}, nil
}

type fallbackEngine struct {
	reg *Registry
	id  appliance.EngineID
}

func (e *fallbackEngine) ID() appliance.EngineID { return e.id }

// LossAtLeastFreeSpace is false: the wrapped engine may go below free space.
func (e *fallbackEngine) LossAtLeastFreeSpace() bool { return false }

func (e *fallbackEngine) Predict(ctx context.Context, in appliance.LinkInput) (appliance.LinkPrediction, error) {
	pred, _, _, err := e.reg.PredictWithFallback(ctx, e.id, in)
	return pred, err
}

// CompareRow is one engine's answer in Compare (the root's
// EngineCompareRow, so that services read it without importing engines).
type CompareRow = appliance.EngineCompareRow

// CompareEngines is the fixed order in which Compare runs the engines: every
// available engine except auto (which repeats one of them).
func CompareEngines() []appliance.EngineID {
	return []appliance.EngineID{appliance.EngineFSPL, appliance.EngineP1812, appliance.EngineITM, appliance.EngineP1411, appliance.EngineHybrid}
}

// Compare runs every engine of CompareEngines on the same path, one after
// the other, each with PredictWithFallback, and returns one row per engine
// in that order. A malformed input gives the same Error in every row. Each
// row's warnings start with fspl_obstructed where appliance.PathWarnings
// raises it (Compare does not know where the profile came from).
func (r *Registry) Compare(ctx context.Context, in appliance.LinkInput) []CompareRow {
	return r.compare(ctx, in, &extras{}, nil)
}

// compare runs the engines; terrainProf is the argument of
// appliance.PathWarnings (nil: the profile did not come from the terrain).
func (r *Registry) compare(ctx context.Context, in appliance.LinkInput, x *extras, terrainProf *appliance.PathProfile) []CompareRow {
	ids := CompareEngines()
	rows := make([]CompareRow, 0, len(ids))
	for _, id := range ids {
		t0 := time.Now()
		pred, fell, reason, err := r.predictFallback(ctx, id, in, x)
		row := CompareRow{Engine: id, ElapsedMicros: time.Since(t0).Microseconds()}
		if err != nil {
			row.Error, row.Err = err.Error(), err
			rows = append(rows, row)
			continue
		}
		row.UsedEngine = pred.Engine
		row.EngineVersion = pred.EngineVersion
		row.PathLossDB = pred.PathLossDB
		row.DiffractionDB = pred.DiffractionDB
		row.LOSClear, row.FresnelOK, row.MinClearanceRatio = pred.LOSClear, pred.FresnelOK, pred.MinClearanceRatio
		row.Warnings = append(appliance.PathWarnings(&pred, terrainProf), pred.Warnings...)
		row.FellBack, row.FallbackReason = fell, reason
		row.Intermediate = pred.Intermediate
		rows = append(rows, row)
	}
	return rows
}
