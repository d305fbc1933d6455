package prediction_test

import (
	"bytes"
	"context"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"linkplan/appliance"
	"linkplan/appliance/catalog"
	"linkplan/appliance/features"
	"linkplan/appliance/prediction"
	"linkplan/engines"
	"linkplan/engines/ml"
	"linkplan/engines/ml/learn"
	"linkplan/terrain-packs/sample"
	"linkplan/terrain-packs/terrain"
)

// rio is the real embedded SRTM3 sample.
func rio(t testing.TB) appliance.Terrain {
	t.Helper()
	p, err := terrain.OpenBytes(sample.Pack())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

var (
	pro  = &appliance.APIKey{ID: "k-pro", TenantID: "t-a", Tier: appliance.TierPro}
	free = &appliance.APIKey{ID: "k-free", TenantID: "t-a", Tier: appliance.TierFree}
)

func ptr[T any](v T) *T { return &v }

// rioQuery is a 4 km link in Rio de Janeiro (inside the sample terrain).
func rioQuery() prediction.Query {
	return prediction.Query{TxLat: ptr(-22.95), TxLon: ptr(-43.21), TxHeightM: ptr(30.0), RxLat: ptr(-22.92), RxLon: ptr(-43.19),
		FrequencyMHz: ptr(1800.0), TxPowerDBm: ptr(43.0), TxGainDBi: ptr(15.0)}
}

// rioEnvelope covers the Rio sample and LTE bands B3 and B7.
func rioEnvelope() *ml.Envelope {
	return &ml.Envelope{Description: "test: Rio de Janeiro",
		Areas: []ml.LatLonBox{{Name: "Rio de Janeiro", MinLat: -23.1, MinLon: -43.8, MaxLat: -22.7, MaxLon: -43.0}},
		Bands: []ml.BandRange{{Name: "B3", MinMHz: 1710, MaxMHz: 1880}, {Name: "B7", MinMHz: 2500, MaxMHz: 2690}}}
}

// randXY is n random rows of nf features and a linear target.
func randXY(n, nf int, seed uint64) ([][]float64, []float64) {
	r := rand.New(rand.NewPCG(seed, 7))
	X := make([][]float64, n)
	y := make([]float64, n)
	for i := range X {
		X[i] = make([]float64, nf)
		for j := range X[i] {
			X[i][j] = r.Float64() * 10
		}
		y[i] = -80 + X[i][0] - 0.5*X[i][1] + r.NormFloat64()*3
	}
	return X, y
}

func schema(t testing.TB, v int) ml.FeatureSchema {
	t.Helper()
	s, err := features.Schema(v)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// rioArea is an envelope of the Rio sample with no band restriction.
func rioArea() *ml.Envelope {
	return &ml.Envelope{Description: "test: Rio de Janeiro, any band",
		Areas: []ml.LatLonBox{{Name: "Rio de Janeiro", MinLat: -23.1, MinLon: -43.8, MaxLat: -22.7, MaxLon: -43.0}}}
}

// attest marks every training row of a (of provenance real) attested by
// its builder (scope build: no appliance record needed).
func attest(a *ml.Artifact) *ml.Artifact {
	if a.DataProvenance == "real" {
		a.Attestation = &ml.Attestation{AttestedRows: a.NTrain, Sources: []ml.AttestedSource{{Source: "drivetest_tems", Basis: "test field team",
			AttestedBy: "operator:test", AttestedAtUnix: 1795000000, Scope: ml.ScopeBuild, Rows: a.NTrain}}}
	}
	return a
}

// ridgeArtifact is a ridge model on schema 1 with the rioArea envelope;
// a real one is attested.
func ridgeArtifact(t testing.TB, version, provenance string, cv float64) *ml.Artifact {
	t.Helper()
	X, y := randXY(300, 17, 1)
	m, err := learn.TrainRidge(X, y, 1)
	if err != nil {
		t.Fatal(err)
	}
	return attest(&ml.Artifact{Kind: ml.KindRidge, ModelVersion: version, Schema: schema(t, 1), Ridge: m, DataProvenance: provenance,
		CVRMSEDB: cv, CVRMSEStdDB: 0.5, CVFolds: 5, NTrain: 300, TrainedAtUnixS: 1795000000, RMSEDB: cv - 1,
		RMSEByMorphologyDB: map[string]float64{"open_or_flat": 6, "rural_rolling": 7},
		RMSEByBandDB:       map[string]float64{"1800MHz": 6.5}, Envelope: rioArea()})
}

// residualArtifact is a GBM residual model on schema 1 with a Mondrian
// band for SE (and none for the other regions).
func residualArtifact(t testing.TB, env *ml.Envelope) *ml.Artifact {
	t.Helper()
	X, y := randXY(400, 17, 2)
	for i := range y {
		y[i] += 80 // residuals around 0
	}
	g, err := learn.TrainGBM(X, y, ml.GBMParams{Iterations: 10, MaxLeafNodes: 4})
	if err != nil {
		t.Fatal(err)
	}
	res := make([]float64, len(y))
	groups := make([]string, len(y))
	for i := range y {
		res[i] = y[i] - g.Predict(X[i])
		if i%2 == 0 {
			groups[i] = "SE"
			res[i] *= 0.5 // a narrower SE band
		}
	}
	cal, err := ml.FitMondrian(res, groups, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	return attest(&ml.Artifact{Kind: ml.KindGBM, ModelVersion: "residual-gbm-v1", Schema: schema(t, 1), GBM: g, DataProvenance: "real",
		CVRMSEDB: 7.5, CVRMSEStdDB: 0.4, CVFolds: 5, NTrain: 6000, TrainedAtUnixS: 1795000100, Conformal: &cal, Envelope: env})
}

func encode(t testing.TB, a *ml.Artifact) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := ml.WriteArtifact(&b, a); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// writeSet writes artifacts under <models>/current (file name → artifact).
func writeSet(t testing.TB, models string, files map[string]*ml.Artifact) {
	t.Helper()
	dir := filepath.Join(models, "current")
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for n, a := range files {
		if err := os.WriteFile(filepath.Join(dir, n), encode(t, a), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

type opts struct {
	shipped  fs.FS
	regionAt func(appliance.LatLon) string // nil: the gazetteer's
	external prediction.External
	models   string
	// attestations are the appliance's source attestations (nil: none
	// can be read).
	attestations func() ([]appliance.SourceAttestation, error)
}

// newService builds the service on the real Rio terrain, the real engine
// registry and the real gazetteer, and reloads models.
func newService(t testing.TB, o opts) *prediction.Service {
	t.Helper()
	ter := rio(t)
	reg, err := engines.New(engines.Config{})
	if err != nil {
		t.Fatal(err)
	}
	gaz, err := catalog.EmbeddedGazetteer()
	if err != nil {
		t.Fatal(err)
	}
	d := prediction.Deps{Terrain: ter, Engines: reg.WithFallback,
		Tower:    func(string, string) (*appliance.Tower, bool) { return nil, false },
		RegionAt: func(p appliance.LatLon) string { return string(gaz.RegionAt(p)) },
		External: o.external, ModelsDir: o.models, Attestations: o.attestations,
		Now: func() time.Time { return time.Unix(1795000000, 0) },
	}
	if o.shipped != nil {
		d.Shipped = o.shipped
	}
	if o.regionAt != nil {
		d.RegionAt = o.regionAt
	}
	s, err := prediction.New(d)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s
}

func newServiceWithMetrics(t testing.TB, models string, set *metrics.Set) *prediction.Service {
	t.Helper()
	ter := rio(t)
	reg, err := engines.New(engines.Config{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := prediction.New(prediction.Deps{Terrain: ter, Engines: reg.WithFallback,
		Tower: func(string, string) (*appliance.Tower, bool) { return nil, false }, ModelsDir: models, Metrics: set})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s
}
