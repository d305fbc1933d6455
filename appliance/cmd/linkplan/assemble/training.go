package assemble

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"path/filepath"

	"linkplan/appliance"
	"linkplan/appliance/catalog"
	"linkplan/appliance/features"
	"linkplan/appliance/training"
	"linkplan/engines"
	"linkplan/engines/ml"
	"linkplan/engines/ml/learn"
	"linkplan/store"
)

// RegionAtOf is catalog.Gazetteer.RegionAt as the string function the
// training and prediction services take: the macro-region (N, NE, CO, SE,
// S) of the nearest municipality seat within 150 km, "" abroad or at sea.
func RegionAtOf(g *catalog.Gazetteer) func(appliance.LatLon) string {
	return func(p appliance.LatLon) string { return string(g.RegionAt(p)) }
}

// NewTraining assembles the training service on the appliance's parts;
// shipped holds the models built into the binary (engines/ml/shipped.FS(),
// served while DIR/models/current is absent; nil: none) and reload is the
// serving side's Reload (nil: none); rec recovers the panics of its
// workers and loop (nil: logged to slog.Default).
func NewTraining(db *store.DB, queue training.Queue, ter *TerrainSet, reg *engines.Registry, gaz *catalog.Gazetteer,
	dataDir string, shipped fs.FS, reload func(context.Context) error, log *slog.Logger, rec *appliance.Recoverer) (*training.Service, error) {
	eng, err := reg.WithFallback(appliance.EngineHybrid)
	if err != nil {
		return nil, fmt.Errorf("training: %w", err)
	}
	var cl appliance.ClutterMap
	if ter.HasClutter() {
		cl = ter
	}
	feat := training.Features{Builder: &features.Builder{Terrain: ter, Clutter: cl}}
	return training.New(db, queue, feat, training.HybridBaseline(eng, ter), Learners(), training.Options{
		Models: filepath.Join(dataDir, "models"), Shipped: shipped, Clutter: cl != nil, RegionAt: RegionAtOf(gaz), Reload: reload, Log: log,
		Recover:          rec,
		BaselineValidity: baselineValidity(reg),
	}), nil
}

// Learners are the concrete learners of engines/ml/learn, which the
// training service declares as training.Learners and never imports.
func Learners() training.Learners {
	return training.Learners{GBM: learn.TrainGBM, Ridge: learn.TrainRidge}
}

// baselineValidity is the residual engine's baseline (p1812-p1411-hybrid)
// validity range as the engine registry states it (P.1812's 30–6000
// MHz): the trained residual engine's envelope carries it.
func baselineValidity(reg *engines.Registry) *ml.EngineValidity {
	info, ok := reg.Info(appliance.EngineHybrid)
	if !ok {
		return nil
	}
	return &ml.EngineValidity{Engine: string(appliance.EngineHybrid), MinMHz: info.FreqMinMHz, MaxMHz: info.FreqMaxMHz}
}
