package calibration

import (
	"fmt"
	"math"
	"slices"

	"linkplan/appliance"
	"linkplan/engines/ml"
	"linkplan/engines/ml/h3"
)

// Halves splits residuals into two halves of their blocks (doc.go,
// "Evaluation"): the distinct blocks sorted by H3 index, permuted by
// ml.Permutation(#blocks, seed), the first ⌈#blocks/2⌉ of that order are
// half 0 (training), the others half 1 (evaluation). It returns each
// residual's half.
func Halves(rs []Residual, seed uint64) []int {
	set := map[h3.Cell]bool{}
	for i := range rs {
		set[rs[i].Block] = true
	}
	blocks := make([]h3.Cell, 0, len(set))
	for b := range set {
		blocks = append(blocks, b)
	}
	slices.Sort(blocks)
	perm := ml.Permutation(len(blocks), seed)
	half := make(map[h3.Cell]int, len(blocks))
	first := (len(blocks) + 1) / 2
	for j, p := range perm {
		if j >= first {
			half[blocks[p]] = 1
		}
	}
	out := make([]int, len(rs))
	for i := range rs {
		out[i] = half[rs[i].Block]
	}
	return out
}

// Evaluation is a calibration fitted on some residuals and applied to
// others.
type Evaluation struct {
	N int // residuals evaluated
	// BeforeDB and AfterDB are the RMSE of the evaluated residuals without
	// and with the calibration, dB.
	BeforeDB, AfterDB float64
	// GlobalOffsetDB is their RMSE after one offset fitted on the training
	// residuals, and OracleDB after one offset fitted on themselves (it
	// sees their signal: a bound for scale, not a method), dB.
	GlobalOffsetDB, OracleDB float64
	// Uncalibrated counts the evaluated residuals whose cell has no
	// applied calibration (no training residual, or refused): they keep
	// the engine's prediction.
	Uncalibrated int
	// Outside counts those outside their cell's calibrated area (only
	// the cell's offset applied).
	Outside int
	// BandOnly counts those whose transmitter had no cell: the band's
	// tenant-wide offset applied.
	BandOnly int
	// ByLayerDB is the RMSE after calibration of each kind of evaluated
	// residual, dB: "band" (band offset), "outside" (cell offset outside
	// the area), "inside" (cell inside its area), "none" (uncalibrated).
	ByLayerDB map[string]float64
	// Fit is the calibration fitted on the training residuals.
	Fit *FitResult
}

// Evaluate fits the calibration of engine on the residuals train and
// applies it to the residuals test, exactly as the appliance applies a
// tenant's calibration to an answer (appliance.TenantCalibration.Cell and
// CellCalibration.At). An engine calibration that is not applied corrects
// nothing.
func Evaluate(engine appliance.EngineID, train, test []Residual, p Params) (*Evaluation, error) {
	if len(test) == 0 {
		return nil, fmt.Errorf("evaluate %s: no residual to evaluate: %w", engine, appliance.ErrInvalid)
	}
	fit, err := Fit(engine, train, p)
	if err != nil {
		return nil, err
	}
	tc := &appliance.TenantCalibration{Engines: []appliance.EngineCalibration{fit.Calibration}}
	tc.Prepare()
	ev := &Evaluation{N: len(test), Fit: fit}
	var level, oracle float64
	for i := range train {
		level += train[i].DB
	}
	level /= float64(len(train))
	for i := range test {
		oracle += test[i].DB
	}
	oracle /= float64(len(test))
	var sb, sa, sg, so float64
	layerSE, layerN := map[string]float64{}, map[string]float64{}
	for i := range test {
		r := &test[i]
		corr, layer := 0.0, "none"
		if c := tc.For(engine, r.TowerID, r.Tx, float64(r.BandMHz)); c != nil {
			info := c.At(r.Tx, r.Rx)
			corr, layer = info.OffsetDB, "inside"
			switch {
			case c.Cell == nil:
				ev.BandOnly++
				layer = "band"
			case !info.InsideArea:
				ev.Outside++
				layer = "outside"
			}
		} else {
			ev.Uncalibrated++
		}
		layerSE[layer] += (r.DB - corr) * (r.DB - corr)
		layerN[layer]++
		sb += r.DB * r.DB
		sa += (r.DB - corr) * (r.DB - corr)
		sg += (r.DB - level) * (r.DB - level)
		so += (r.DB - oracle) * (r.DB - oracle)
	}
	n := float64(len(test))
	ev.BeforeDB, ev.AfterDB, ev.GlobalOffsetDB, ev.OracleDB = math.Sqrt(sb/n), math.Sqrt(sa/n), math.Sqrt(sg/n), math.Sqrt(so/n)
	ev.ByLayerDB = map[string]float64{}
	for k, v := range layerSE {
		ev.ByLayerDB[k] = math.Sqrt(v / layerN[k])
	}
	return ev, nil
}

// ResidualsOf returns the residuals of observations obs for engine k of
// their predictions (skipped and refused observations left out), with
// their blocks.
func ResidualsOf(obs []appliance.Observation, preds []Prediction, k int) ([]Residual, error) {
	var out []Residual
	for i := range obs {
		p := &preds[i]
		if p.Skip != "" || math.IsNaN(p.DBm[k]) {
			continue
		}
		o := &obs[i]
		tx := appliance.LatLon{Lat: o.TxLat, Lon: o.TxLon}
		out = append(out, Residual{Cell: appliance.CalibrationCellKey(o.TowerID, tx, o.FreqHz/1e6), TowerID: o.TowerID, Tx: tx,
			Rx: appliance.LatLon{Lat: o.RxLat, Lon: o.RxLon}, BandMHz: appliance.CalibrationBandMHz(o.FreqHz / 1e6), DB: o.ObservedDBm - p.DBm[k]})
	}
	if err := Blocks(out); err != nil {
		return nil, err
	}
	return out, nil
}
