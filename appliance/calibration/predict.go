package calibration

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"sync"

	"linkplan/appliance"
)

// ReportEngines are the engines of a residual report and of a calibration,
// in report order: the physics engines of SPEC §2.5 that answer link
// budgets (the residual engine's baseline, the P.1812 + P.1411 hybrid,
// among them) and auto, whose prediction is the engine it chooses per
// path. The raytrace engine joins here when its synchronous path exists
// (issue 24): one more id, nothing else changes.
func ReportEngines() []appliance.EngineID {
	return []appliance.EngineID{appliance.EngineFSPL, appliance.EngineP1812, appliance.EngineITM, appliance.EngineHybrid, appliance.EngineAuto}
}

// DefaultProfileStepM is the spacing of the terrain profiles, metres (the
// planner's, the 3″ grid).
const DefaultProfileStepM = 90.0

// FlatStepM is the spacing of a flat-ground profile, metres.
const FlatStepM = 30.0

// Predictor predicts the received level of observations with several
// engines, on the terrain packs or on flat ground.
type Predictor struct {
	// Terrain gives the profiles; nil: flat ground (every sample at 0 m,
	// no land cover), for measurements where no pack has terrain (the
	// linkplan calibrate command; never the appliance's routes).
	Terrain appliance.Terrain
	// Engine returns an engine by id (the registry's WithFallback, as the
	// link routes use).
	Engine func(id appliance.EngineID) (appliance.Engine, error)
	// Choose returns the engine auto picks for a path (the registry's
	// Choose); nil: auto is not predicted.
	Choose func(in appliance.LinkInput) (appliance.EngineID, string)
	// StepM is the profile spacing, metres; 0: DefaultProfileStepM
	// (FlatStepM on flat ground).
	StepM float64
}

// Prediction is one observation's predicted level by each engine.
type Prediction struct {
	// DBm holds the predicted received level per engine (index of the
	// engines asked), dBm; NaN where the engine refused the path.
	DBm []float64
	// DistanceM is the transmitter–receiver distance, metres.
	DistanceM float64
	// Skip says why no engine predicted the observation ("" when they
	// did): missing terrain (Tile names the tile) or co-located ends.
	Skip string
	Tile string
}

// Skip reasons of a Prediction.
const (
	SkipNoTerrain = "missing_terrain"
	SkipCoLocated = "co_located"
)

// Level returns the received level of observation o for path loss
// lossDB, dBm: tx_power + tx_gain − loss + rx_gain − cable_loss, with the
// observation's own transmitter and receiver parameters.
func Level(o *appliance.Observation, lossDB float64) float64 {
	return o.TxPowerDBm + o.TxGainDBi - lossDB + o.RxGainDBi - o.CableLossDB
}

// flatProfile is flat ground at sea level from 0 to d metres.
func flatProfile(d, step float64) *appliance.PathProfile {
	n := max(2, int(math.Ceil(d/step)))
	p := &appliance.PathProfile{DistancesM: make([]float64, n+1), HeightsM: make([]float64, n+1)}
	for i := range p.DistancesM {
		p.DistancesM[i] = d * float64(i) / float64(n)
	}
	return p
}

// Predict predicts every observation with every engine of ids on up to
// workers goroutines. The engine error counts (by engine index, then
// message) say why an engine refused paths. Results do not depend on
// workers. A panic of one evaluation is recovered and fails the call.
func (p *Predictor) Predict(ctx context.Context, obs []appliance.Observation, ids []appliance.EngineID, workers int) ([]Prediction, []map[string]int, error) {
	engs := make([]appliance.Engine, len(ids))
	autoAt := -1
	for i, id := range ids {
		if id == appliance.EngineAuto {
			if p.Choose == nil {
				return nil, nil, fmt.Errorf("predict: auto needs the engine choice: %w", appliance.ErrInvalid)
			}
			autoAt = i
			continue
		}
		e, err := p.Engine(id)
		if err != nil {
			return nil, nil, fmt.Errorf("predict: engine %s: %w", id, err)
		}
		engs[i] = e
	}
	step := p.StepM
	if step <= 0 {
		step = DefaultProfileStepM
		if p.Terrain == nil {
			step = FlatStepM
		}
	}
	out := make([]Prediction, len(obs))
	errs := make([]map[string]int, len(ids))
	for i := range errs {
		errs[i] = map[string]int{}
	}
	var mu sync.Mutex
	var firstErr error
	one := func(i int) (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("predict observation %d: panic: %v", i, r)
			}
		}()
		o := &obs[i]
		tx, rx := appliance.LatLon{Lat: o.TxLat, Lon: o.TxLon}, appliance.LatLon{Lat: o.RxLat, Lon: o.RxLon}
		pr := Prediction{DBm: make([]float64, len(ids)), DistanceM: tx.DistanceM(rx)}
		for k := range pr.DBm {
			pr.DBm[k] = math.NaN()
		}
		defer func() { out[i] = pr }()
		if pr.DistanceM < 1 {
			pr.Skip = SkipCoLocated
			return nil
		}
		var prof *appliance.PathProfile
		if p.Terrain == nil {
			prof = flatProfile(pr.DistanceM, step)
		} else {
			prof, err = p.Terrain.Profile(tx, rx, step)
			var tm *appliance.TileMissingError
			if errors.As(err, &tm) {
				pr.Skip, pr.Tile = SkipNoTerrain, tm.Tile
				return nil
			}
			if err != nil {
				return fmt.Errorf("observation %s: profile: %w", o.ID, err)
			}
			if prof.Len() < 2 {
				pr.Skip = SkipCoLocated
				return nil
			}
		}
		in := appliance.LinkInput{Tx: tx, Rx: rx, TxHeightM: o.TxHeightM, RxHeightM: o.RxHeightM, FreqMHz: o.FreqHz / 1e6, Profile: prof}
		for k, e := range engs {
			if e == nil {
				continue
			}
			pred, err := e.Predict(ctx, in)
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				mu.Lock()
				errs[k][err.Error()]++
				mu.Unlock()
				continue
			}
			pr.DBm[k] = Level(o, pred.PathLossDB)
		}
		if autoAt >= 0 {
			id, _ := p.Choose(in)
			for k, e := range ids {
				if e == id && engs[k] != nil {
					pr.DBm[autoAt] = pr.DBm[k]
				}
			}
			if math.IsNaN(pr.DBm[autoAt]) {
				// auto chose an engine outside the report: run it.
				if e, err := p.Engine(id); err == nil {
					if pred, err := e.Predict(ctx, in); err == nil {
						pr.DBm[autoAt] = Level(o, pred.PathLossDB)
					} else {
						mu.Lock()
						errs[autoAt][err.Error()]++
						mu.Unlock()
					}
				}
			}
		}
		return nil
	}
	workers = max(1, min(workers, len(obs)))
	var wg sync.WaitGroup
	next := 0
	for w := 0; w < workers; w++ {
		wg.Go(func() {
			for {
				mu.Lock()
				i := next
				next++
				stop := firstErr != nil
				mu.Unlock()
				if i >= len(obs) || stop {
					return
				}
				if i%256 == 0 {
					if err := ctx.Err(); err != nil {
						mu.Lock()
						firstErr = cmpErr(firstErr, err)
						mu.Unlock()
						return
					}
				}
				if err := one(i); err != nil {
					mu.Lock()
					firstErr = cmpErr(firstErr, err)
					mu.Unlock()
					return
				}
			}
		})
	}
	wg.Wait()
	if firstErr != nil {
		return nil, nil, fmt.Errorf("predict: %w", firstErr)
	}
	return out, errs, nil
}

func cmpErr(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

// topReasons returns up to n reasons of counts, most frequent first (ties
// by text), each with its count.
func topReasons(counts map[string]int, n int) []string {
	type kv struct {
		k string
		v int
	}
	var all []kv
	for k, v := range counts {
		all = append(all, kv{k, v})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].v != all[j].v {
			return all[i].v > all[j].v
		}
		return all[i].k < all[j].k
	})
	var out []string
	for i := 0; i < len(all) && i < n; i++ {
		out = append(out, fmt.Sprintf("%s (%d)", all[i].k, all[i].v))
	}
	return out
}
