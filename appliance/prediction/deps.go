package prediction

import (
	"context"
	"io/fs"
	"log/slog"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"linkplan/appliance"
	"linkplan/appliance/features"
	"linkplan/engines/ml"
)

// Deps are what the service needs; the composition root fills them.
type Deps struct {
	// Terrain gives the path profile of the physics engines and of the
	// SPEC §2.5 feature vectors (appliance/features, built on one shared
	// profile per query).
	Terrain appliance.Terrain
	// Clutter answers the receiver's land cover (clutter_class and
	// clutter_label); nil when no pack has the layer.
	Clutter appliance.ClutterMap
	// Engines returns a physics engine: fspl (the last link of the chain)
	// and p1812-p1411-hybrid (the residual engine's baseline). The
	// composition root passes the registry's WithFallback, as the training
	// side computes the baseline: the hybrid answers through fspl outside
	// its validity.
	Engines func(id appliance.EngineID) (appliance.Engine, error)
	// Tower returns a catalogue or tenant tower visible to tenantID.
	Tower func(tenantID, id string) (*appliance.Tower, bool)
	// RegionAt is the macro-region (N, NE, CO, SE, S) of a point, "" outside
	// Brazil (catalog.Gazetteer.RegionAt).
	RegionAt func(p appliance.LatLon) string
	// KnownSchema gives the feature schemas the server can build; nil:
	// KnownSchema of this package.
	KnownSchema func(version int) (ml.FeatureSchema, error)
	// External is the external model endpoint; zero URL: none.
	External External
	// ModelsDir is <state dir>/models; "" reads no directory.
	ModelsDir string
	// Shipped holds the models built into the binary
	// (engines/ml/shipped.FS()); nil: none.
	Shipped fs.FS
	// Attestations returns the source attestations of this appliance
	// (store.DB.SourceAttestations), read when the model set loads: an
	// artifact's appliance-scoped attestation counts only while it
	// stands. nil: none can be read, and a model relying on one claims
	// nothing.
	Attestations func() ([]appliance.SourceAttestation, error)
	// OnDrift is told when the live band drifts from the artifact's (see
	// the package doc, "Drift monitor"): the composition root queues a
	// retrain (appliance/training MonitorFired). nil: nobody is told.
	OnDrift func(ctx context.Context, reason string)
	Now     func() time.Time
	Metrics *metrics.Set // nil: no metrics
	Log     *slog.Logger
}

// KnownSchema is the schemas this server builds: the feature builder's
// (1: 17 features, 2: 27) and the drive-test schemas of driveTestSchemas.
func KnownSchema(version int) (ml.FeatureSchema, error) {
	if d, ok := driveTestSchemas[version]; ok {
		return d.schema, nil
	}
	return features.Schema(version)
}

// driveTestSchema is a drive-test-family schema: models fed from the
// receiver, the serving cell and the carrier alone (no terrain).
type driveTestSchema struct {
	schema ml.FeatureSchema
	// features gives the vector from WGS84 degrees and Hz.
	features func(rxLat, rxLon, txLat, txLon, freqHz float64) []float64
}

// driveTestSchemas are the drive-test schemas served; a new one (101) is
// one entry here with engines/ml's schema and feature function.
var driveTestSchemas = map[int]driveTestSchema{
	ml.DriveTestSchema.Version:  {ml.DriveTestSchema, ml.DriveTestFeatures},
	ml.DriveTestSchemaV2Version: {ml.DriveTestSchemaV2(), ml.DriveTestFeaturesV2},
}
