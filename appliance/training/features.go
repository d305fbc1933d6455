package training

import (
	"context"
	"fmt"

	"linkplan/appliance"
	"linkplan/appliance/features"
	"linkplan/engines/ml"
)

// LinkOf is the feature link of an observation (frequency in MHz; the
// cable loss is not a feature).
func LinkOf(o *appliance.Observation) features.Link {
	return features.Link{
		Tx: appliance.LatLon{Lat: o.TxLat, Lon: o.TxLon}, Rx: appliance.LatLon{Lat: o.RxLat, Lon: o.RxLon},
		TxHeightM: o.TxHeightM, RxHeightM: o.RxHeightM, FreqMHz: o.FreqHz / 1e6,
		TxPowerDBm: o.TxPowerDBm, TxGainDBi: o.TxGainDBi, RxGainDBi: o.RxGainDBi,
	}
}

// Features is the Featurizer of a features.Builder (SPEC §2.5 vectors).
type Features struct{ Builder *features.Builder }

// Schema is features.Schema.
func (Features) Schema(version int) (ml.FeatureSchema, error) { return features.Schema(version) }

// Vector is the Builder's vector of the observation's link.
func (f Features) Vector(ctx context.Context, o *appliance.Observation, version int) ([]float64, Info, error) {
	x, info, err := f.Builder.Vector(ctx, LinkOf(o), version)
	if err != nil {
		return nil, Info{}, err
	}
	return x, Info{Morphology: info.Morphology, BandMHz: info.BandMHz}, nil
}

// HybridBaseline is the BaselineFunc of an engine (the composition root
// gives it the registry's p1812-p1411-hybrid with its fspl fallback,
// engines.Registry.WithFallback, as POST /coverage/engines/predict runs
// it: a path outside the hybrid's validity gets the fspl answer, as it
// would when served) on a terrain: the received
// power, dBm, of the observation's link, EIRP − the engine's path loss
// with EIRP = transmit power + both gains − cable loss (as the serving
// side, appliance/prediction, adds the residual to it), on the profile
// sampled as the features sample it (features.ProfileStepM).
func HybridBaseline(engine appliance.Engine, terrain appliance.Terrain) BaselineFunc {
	return func(ctx context.Context, o *appliance.Observation) (float64, error) {
		l := LinkOf(o)
		prof, err := terrain.Profile(l.Tx, l.Rx, features.ProfileStepM)
		if err != nil {
			return 0, fmt.Errorf("baseline profile: %w", err)
		}
		p, err := engine.Predict(ctx, appliance.LinkInput{Tx: l.Tx, Rx: l.Rx, TxHeightM: l.TxHeightM, RxHeightM: l.RxHeightM,
			FreqMHz: l.FreqMHz, Profile: prof})
		if err != nil {
			return 0, fmt.Errorf("baseline %s: %w", engine.ID(), err)
		}
		return l.TxPowerDBm + l.TxGainDBi + l.RxGainDBi - o.CableLossDB - p.PathLossDB, nil
	}
}
