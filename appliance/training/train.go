package training

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/features"
	"linkplan/engines/ml"
)

// Training parameters (documented in the package doc).
const (
	// RidgeLambda is the L2 penalty of the ridge models on standardised
	// features.
	RidgeLambda = 1.0
	// MinBandRows is the fewest training rows of one band for a band model
	// of its own; a band with fewer is served by the global ridge model.
	MinBandRows = 200
	// MinTrainRows is the fewest kept rows a retrain accepts: five folds of
	// at least 20 rows each, enough for a 90 % conformal band.
	MinTrainRows = 100
	// HoldoutFold is the fold (of GroupKFold over the receivers' H3
	// resolution-8 cells, k = 5, seed 42) held out for the replay: about a
	// fifth of the cells, never seen by the candidate.
	HoldoutFold = 0
)

// Model version strings (SPEC §9; the serving side reports them).
const (
	VersionRidge    = "ridge-v1"
	VersionResidual = "residual-gbm-v1"
)

// Artifact file names inside a model directory.
const (
	FileRidge    = "ridge.json"
	FileResidual = "residual.json"
)

// BandFile is the file of a band model: "ridge-1800mhz.json".
func BandFile(bandMHz int) string { return fmt.Sprintf("ridge-%dmhz.json", bandMHz) }

// BandVersion is the model version of a band model: "ridge-1800mhz-v1".
func BandVersion(bandMHz int) string { return fmt.Sprintf("ridge-%dmhz-v1", bandMHz) }

// Summary holds the accuracy figures of the local ridge model (SPEC §2.6)
// that the artifact has no field for.
type Summary struct {
	// RMSEDB is the global ridge's in-sample RMSE on its training rows.
	RMSEDB float64 `json:"rmse_db"`
	// RMSEByMorphologyDB and RMSEByBandDB are the RMSE of its out-of-fold
	// predictions per morphology (open_or_flat, rural_rolling,
	// rural_mountainous) and per band key ("700MHz" … "3500MHz").
	RMSEByMorphologyDB map[string]float64 `json:"rmse_by_morphology"`
	RMSEByBandDB       map[string]float64 `json:"rmse_by_band"`
	// Bands lists the bands with a band model.
	Bands []int `json:"bands"`
}

// Candidate is a retrain's output: the artifacts of a model directory
// (file name -> artifact) and the rows they were not trained on.
type Candidate struct {
	Artifacts map[string]*ml.Artifact
	Summary   Summary
	// Train and Holdout are corpus row indices.
	Train, Holdout []int
	Provenance     string
}

// Split returns the training and holdout rows of c: the holdout is the
// rows whose receiver cell falls in fold HoldoutFold of GroupKFold(cells,
// 5, 42). It needs at least five distinct cells.
func Split(c *Corpus) (train, holdout []int, err error) {
	fold, err := ml.GroupKFold(c.Cells, ml.DefaultFolds, ml.CVSeed)
	if err != nil {
		return nil, nil, fmt.Errorf("holdout split: the corpus covers too few H3 cells: %w", err)
	}
	for i, f := range fold {
		if f == HoldoutFold {
			holdout = append(holdout, i)
		} else {
			train = append(train, i)
		}
	}
	return train, holdout, nil
}

func pick[T any](v []T, idx []int) []T {
	out := make([]T, len(idx))
	for i, j := range idx {
		out[i] = v[j]
	}
	return out
}

// TrainCandidate trains the candidate models on the corpus rows outside
// the holdout: the global ridge (5-fold CV, seed 42), a ridge per band
// with at least MinBandRows rows, and the residual GBM (observed −
// baseline, folds grouped by H3 cell) with Mondrian conformal bands per
// macro-region. workers bounds the concurrent folds; the models do not
// depend on it. now stamps trained_at.
func (lr Learners) TrainCandidate(c *Corpus, now time.Time, workers int) (*Candidate, error) {
	if err := lr.check(); err != nil {
		return nil, err
	}
	if c.N() < MinTrainRows {
		return nil, fmt.Errorf("train: %d usable rows, at least %d needed (%d consented; skipped: %d terrain missing, %d not received power, %d invalid): %w",
			c.N(), MinTrainRows, c.Consented, c.SkippedTerrain, c.SkippedMetric, c.SkippedInvalid, appliance.ErrInvalid)
	}
	train, holdout, err := Split(c)
	if err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	cand := &Candidate{Artifacts: map[string]*ml.Artifact{}, Train: train, Holdout: holdout}
	X, y := pick(c.X, train), pick(c.Y, train)
	regions, cells := pick(c.Regions, train), pick(c.Cells, train)
	bands, morph := pick(c.Bands, train), pick(c.Morph, train)
	cand.Provenance = c.provenanceOf(train)
	stamp := func(a *ml.Artifact, version string, idx []int, cv ml.CVResult, validity *ml.EngineValidity) {
		a.ModelVersion, a.Schema, a.DataProvenance = version, c.Schema, c.provenanceOf(idx)
		a.TrainedAtUnixS, a.NTrain = now.Unix(), len(idx)
		a.CVRMSEDB, a.CVRMSEStdDB, a.CVFolds = cv.RMSEDB, cv.StdDB, ml.DefaultFolds
		a.Attestation = c.attestationOf(idx)
		a.Envelope = c.envelopeOf(idx, version, validity)
	}

	// Global ridge.
	g, cv, cal, err := lr.ridgeWithCV(X, y, regions, workers)
	if err != nil {
		return nil, fmt.Errorf("train global ridge: %w", err)
	}
	a := &ml.Artifact{Kind: ml.KindRidge, Ridge: g, Conformal: cal}
	stamp(a, VersionRidge, train, cv, nil)
	cand.Artifacts[FileRidge] = a
	var se float64
	for i, x := range X {
		d := g.Predict(x) - y[i]
		se += d * d
	}
	cand.Summary.RMSEDB = math.Sqrt(se / float64(len(y)))
	bandKeys := make([]string, len(bands))
	for i, b := range bands {
		bandKeys[i] = BandKey(b)
	}
	if cand.Summary.RMSEByMorphologyDB, err = rmseMap(cv.OOF, y, morph); err != nil {
		return nil, err
	}
	if cand.Summary.RMSEByBandDB, err = rmseMap(cv.OOF, y, bandKeys); err != nil {
		return nil, err
	}
	a.RMSEDB, a.RMSEByMorphologyDB, a.RMSEByBandDB = cand.Summary.RMSEDB, cand.Summary.RMSEByMorphologyDB, cand.Summary.RMSEByBandDB
	if a.ConformalOutOfGroup, err = outOfGroup(y, cv.OOF, regions); err != nil {
		return nil, err
	}

	// Band models.
	byBand := map[int][]int{}
	for i, b := range bands {
		byBand[b] = append(byBand[b], i)
	}
	for _, b := range sortedKeys(byBand) {
		idx := byBand[b]
		if len(idx) < MinBandRows {
			continue
		}
		m, bcv, bcal, err := lr.ridgeWithCV(pick(X, idx), pick(y, idx), pick(regions, idx), workers)
		if err != nil {
			return nil, fmt.Errorf("train band %d MHz ridge: %w", b, err)
		}
		ba := &ml.Artifact{Kind: ml.KindRidge, Ridge: m, Conformal: bcal}
		stamp(ba, BandVersion(b), pick(train, idx), bcv, nil)
		cand.Artifacts[BandFile(b)] = ba
		cand.Summary.Bands = append(cand.Summary.Bands, b)
	}

	// Residual engine: GBM on observed − baseline, folds grouped by cell.
	r := make([]float64, len(train))
	for i, j := range train {
		r[i] = c.Y[j] - c.Baseline[j]
	}
	fold, err := ml.GroupKFold(cells, ml.DefaultFolds, ml.CVSeed)
	if err != nil {
		return nil, fmt.Errorf("train residual: %w", err)
	}
	gbmTrain := func(X [][]float64, y []float64) (ml.Predictor, error) {
		return lr.GBM(X, y, ml.GBMParams{Workers: 1})
	}
	rcv, _, rcal, err := cvBand(X, r, fold, gbmTrain, workers, regions)
	if err != nil {
		return nil, fmt.Errorf("train residual: %w", err)
	}
	gm, err := lr.GBM(X, r, ml.GBMParams{Workers: workers})
	if err != nil {
		return nil, fmt.Errorf("train residual: %w", err)
	}
	if rcal.Unseen, err = lr.unseenBand(c, train, X, r, workers); err != nil {
		return nil, fmt.Errorf("train residual: %w", err)
	}
	ra := &ml.Artifact{Kind: ml.KindGBM, GBM: gm, Conformal: rcal}
	stamp(ra, VersionResidual, train, rcv, c.BaselineValidity)
	if ra.ConformalOutOfGroup, err = outOfGroup(r, rcv.OOF, regions); err != nil {
		return nil, err
	}
	var rse float64
	for i, x := range X {
		d := gm.Predict(x) - r[i]
		rse += d * d
	}
	ra.RMSEDB = math.Sqrt(rse / float64(len(r)))
	cand.Artifacts[FileResidual] = ra
	return cand, nil
}

// ridgeWithCV cross-validates a ridge (KFold, 5, seed 42), calibrates its
// Mondrian band on the out-of-fold residuals and fits it on every row.
func (lr Learners) ridgeWithCV(X [][]float64, y []float64, regions []string, workers int) (*ml.Ridge, ml.CVResult, *ml.Calibration, error) {
	fold, err := ml.KFold(len(y), ml.DefaultFolds, ml.CVSeed)
	if err != nil {
		return nil, ml.CVResult{}, nil, err
	}
	cv, _, cal, err := cvBand(X, y, fold, func(X [][]float64, y []float64) (ml.Predictor, error) {
		return lr.Ridge(X, y, RidgeLambda)
	}, workers, regions)
	if err != nil {
		return nil, ml.CVResult{}, nil, err
	}
	m, err := lr.Ridge(X, y, RidgeLambda)
	if err != nil {
		return nil, ml.CVResult{}, nil, err
	}
	return m, cv, cal, nil
}

// cvBand cross-validates train on (X, y) in folds fold (workers concurrent
// folds; the result does not depend on it) and calibrates the split
// conformal band (ml.FitMondrian, per group of groups; nil: one marginal
// band) on the out-of-fold residuals res = y − oof. Every model of this
// package (ridge, band ridges, residual GBM, drive-test GBM) is calibrated
// here.
func cvBand(X [][]float64, y []float64, fold []int, train ml.Trainer, workers int, groups []string) (ml.CVResult, []float64, *ml.Calibration, error) {
	cv, err := ml.CrossValidate(X, y, fold, train, workers)
	if err != nil {
		return ml.CVResult{}, nil, nil, err
	}
	res := make([]float64, len(y))
	for i := range y {
		res[i] = y[i] - cv.OOF[i]
	}
	cal, err := ml.FitMondrian(res, groups, ml.DefaultAlpha)
	if err != nil {
		return ml.CVResult{}, nil, nil, fmt.Errorf("conformal band: %w", err)
	}
	return cv, res, &cal, nil
}

// outOfGroup is ml.OutOfGroupCoverage of the out-of-fold residuals y − oof
// by region (nil when no region has rows).
func outOfGroup(y, oof []float64, regions []string) ([]ml.GroupCoverage, error) {
	res := make([]float64, len(y))
	for i := range y {
		res[i] = y[i] - oof[i]
	}
	g, err := ml.OutOfGroupCoverage(res, regions, ml.DefaultAlpha)
	if err != nil {
		return nil, fmt.Errorf("out-of-region coverage: %w", err)
	}
	return g, nil
}

func rmseMap(pred, y []float64, groups []string) (map[string]float64, error) {
	g, err := ml.RMSEByGroup(pred, y, groups)
	if err != nil {
		return nil, err
	}
	out := make(map[string]float64, len(g))
	for _, e := range g {
		out[e.Group] = e.RMSEDB
	}
	return out, nil
}

func sortedKeys[V any](m map[int]V) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TrainRidgeArtifact trains the global ridge on every row of c (no
// holdout: for the shipped pipeline-validation model and offline use),
// with its 5-fold CV figures, Mondrian band and RMSE breakdowns, stamped
// with c's data provenance and trained_at now.
func (lr Learners) TrainRidgeArtifact(c *Corpus, now time.Time, workers int) (*ml.Artifact, error) {
	if err := lr.check(); err != nil {
		return nil, err
	}
	if c.N() < MinTrainRows {
		return nil, fmt.Errorf("train ridge: %d usable rows, at least %d needed: %w", c.N(), MinTrainRows, appliance.ErrInvalid)
	}
	m, cv, cal, err := lr.ridgeWithCV(c.X, c.Y, c.Regions, workers)
	if err != nil {
		return nil, fmt.Errorf("train ridge: %w", err)
	}
	all := make([]int, c.N())
	for i := range all {
		all[i] = i
	}
	a := &ml.Artifact{Kind: ml.KindRidge, ModelVersion: VersionRidge, Schema: c.Schema, DataProvenance: c.provenanceOf(all),
		TrainedAtUnixS: now.Unix(), NTrain: c.N(), CVRMSEDB: cv.RMSEDB, CVRMSEStdDB: cv.StdDB, CVFolds: ml.DefaultFolds,
		Ridge: m, Conformal: cal, Attestation: c.attestationOf(all), Envelope: c.envelopeOf(all, VersionRidge, nil)}
	var se float64
	for i, x := range c.X {
		d := m.Predict(x) - c.Y[i]
		se += d * d
	}
	a.RMSEDB = math.Sqrt(se / float64(c.N()))
	bandKeys := make([]string, c.N())
	for i, b := range c.Bands {
		bandKeys[i] = BandKey(b)
	}
	if a.RMSEByMorphologyDB, err = rmseMap(cv.OOF, c.Y, c.Morph); err != nil {
		return nil, err
	}
	if a.RMSEByBandDB, err = rmseMap(cv.OOF, c.Y, bandKeys); err != nil {
		return nil, err
	}
	if a.ConformalOutOfGroup, err = outOfGroup(c.Y, cv.OOF, c.Regions); err != nil {
		return nil, err
	}
	return a, nil
}

// EnvelopeMarginM is the margin around the training receivers' convex
// hull in a trained model's envelope, metres.
const EnvelopeMarginM = 1000.0

// envelopeOf is the calibrated envelope of a model trained on rows idx of
// c (SPEC §2.5: a learned model refuses outside it): the convex hull of
// their receivers with an EnvelopeMarginM margin, their frequencies per
// snapped band widened as ml.BandsOf does, and validity, the range of the
// engine the model's target is relative to (the residual engine's
// baseline; nil for a model of the level itself).
func (c *Corpus) envelopeOf(idx []int, version string, validity *ml.EngineValidity) *ml.Envelope {
	pts := make([][2]float64, len(idx))
	freqs := make([]float64, len(idx))
	srcs := map[string]bool{}
	for j, i := range idx {
		o := &c.Obs[i]
		pts[j], freqs[j] = [2]float64{o.RxLat, o.RxLon}, o.FreqHz/1e6
		srcs[o.Source] = true
	}
	bands := ml.BandsOf(freqs, func(f float64) string { return BandKey(features.SnapBandMHz(f)) })
	names := make([]string, len(bands))
	for i, b := range bands {
		names[i] = b.Name
	}
	desc := fmt.Sprintf("%s: %d training observations (data_provenance %s; sources %s) whose receivers lie in the convex hull below (%g m margin), on %s",
		version, len(idx), c.provenanceOf(idx), strings.Join(slices.Sorted(maps.Keys(srcs)), ", "), EnvelopeMarginM, strings.Join(names, ", "))
	if validity != nil {
		desc += fmt.Sprintf("; relative to the baseline %s, valid %g–%g MHz", validity.Engine, validity.MinMHz, validity.MaxMHz)
	}
	return &ml.Envelope{Description: desc, Hulls: []ml.LatLonPolygon{ml.HullOf("training receivers", pts, EnvelopeMarginM)}, Bands: bands, Validity: validity}
}

// unseenBand calibrates the residual engine's band for transmitters it
// never saw (ml.FitUnseenBand): the residuals of the training rows idx
// (features X, targets r) out of folds grouped by transmitter
// (ml.SiteKey: a site's carriers share its surroundings, so they are held
// out together; k = 5, or fewer with fewer sites), resampled by site
// (basis leave_cell_out: the observations name no operator); the seen
// transmitters are the rows' ml.TransmitterKey (site and carrier). nil
// when the rows have fewer than two sites.
func (lr Learners) unseenBand(c *Corpus, idx []int, X [][]float64, r []float64, workers int) (*ml.UnseenBand, error) {
	keys := make([]string, len(idx))
	seen := make([]string, len(idx))
	for j, i := range idx {
		o := &c.Obs[i]
		keys[j], seen[j] = ml.SiteKey(o.TxLat, o.TxLon), ml.TransmitterKey(o.TxLat, o.TxLon, o.FreqHz/1e6)
	}
	distinct := len(slices.Compact(slices.Sorted(slices.Values(keys))))
	if distinct < 2 {
		return nil, nil
	}
	fold, err := ml.GroupKFold(keys, min(ml.DefaultFolds, distinct), ml.CVSeed)
	if err != nil {
		return nil, err
	}
	cv, err := ml.CrossValidate(X, r, fold, func(X [][]float64, y []float64) (ml.Predictor, error) {
		return lr.GBM(X, y, ml.GBMParams{Workers: 1})
	}, workers)
	if err != nil {
		return nil, fmt.Errorf("unseen band: %w", err)
	}
	res := make([]float64, len(r))
	for i := range r {
		res[i] = r[i] - cv.OOF[i]
	}
	u, err := ml.FitUnseenBand([]ml.HeldOut{{Name: "transmitter sites left out", Basis: ml.BasisLeaveCellOut, Residuals: res, Units: keys}}, seen, ml.DefaultAlpha)
	if err != nil {
		return nil, err
	}
	return &u, nil
}
