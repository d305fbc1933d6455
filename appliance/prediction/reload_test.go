package prediction_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/VictoriaMetrics/metrics"

	"linkplan/appliance"
	"linkplan/appliance/features"
	"linkplan/appliance/prediction"
	"linkplan/appliance/telemetry"
	"linkplan/appliance/tooltest"
	"linkplan/engines"
	"linkplan/engines/ml"
	"linkplan/engines/ml/shipped"
)

func servedVersion(t *testing.T, s *prediction.Service) string {
	t.Helper()
	info, err := s.ModelInfo(pro)
	if err != nil {
		t.Fatal(err)
	}
	if info.LocalModel == nil {
		return ""
	}
	return info.LocalModel.Version
}

func TestReloadKeepsTheServedSetOnABadDirectory(t *testing.T) {
	models := t.TempDir()
	writeSet(t, models, map[string]*ml.Artifact{prediction.FileRidge: ridgeArtifact(t, "ridge-v1", "synthetic", 9)})
	s := newService(t, opts{models: models})
	if v := servedVersion(t, s); v != "ridge-v1" {
		t.Fatalf("served %q", v)
	}
	cur := filepath.Join(models, "current")
	gbmAsRidge := residualArtifact(t, nil)
	unknownSchema := ridgeArtifact(t, "ridge-v9", "real", 5)
	unknownSchema.Schema = ml.FeatureSchema{Version: 7, Names: unknownSchema.Schema.Names}
	renamed := ridgeArtifact(t, "ridge-v9", "real", 5)
	renamed.Schema.Names = append([]string(nil), renamed.Schema.Names...)
	renamed.Schema.Names[0], renamed.Schema.Names[1] = renamed.Schema.Names[1], renamed.Schema.Names[0]
	ridgeAsResidual := ridgeArtifact(t, "ridge-v9", "real", 5)
	for _, tc := range []struct {
		name  string
		write func(t *testing.T)
	}{
		{"a truncated artifact", func(t *testing.T) {
			good := encode(t, ridgeArtifact(t, "ridge-v2", "real", 5))
			writeFile(t, filepath.Join(cur, prediction.FileRidge), good[:len(good)/2])
		}},
		{"a good ridge beside a corrupt residual (never half a set)", func(t *testing.T) {
			writeFile(t, filepath.Join(cur, prediction.FileRidge), encode(t, ridgeArtifact(t, "ridge-v2", "real", 5)))
			writeFile(t, filepath.Join(cur, prediction.FileResidual), []byte(`{"format":"linkplan-ml-model","version":1}`))
		}},
		{"a gbm as the ridge model", func(t *testing.T) {
			writeFile(t, filepath.Join(cur, prediction.FileRidge), encode(t, gbmAsRidge))
		}},
		{"a ridge as the residual engine", func(t *testing.T) {
			writeFile(t, filepath.Join(cur, prediction.FileResidual), encode(t, ridgeAsResidual))
		}},
		{"an unknown feature schema", func(t *testing.T) {
			writeFile(t, filepath.Join(cur, prediction.FileRidge), encode(t, unknownSchema))
		}},
		{"feature names out of order", func(t *testing.T) {
			writeFile(t, filepath.Join(cur, prediction.FileRidge), encode(t, renamed))
		}},
		{"a band model of no band", func(t *testing.T) {
			writeFile(t, filepath.Join(cur, "ridge-1234mhz.json"), encode(t, ridgeArtifact(t, "ridge-v2", "real", 5)))
		}},
		{"current is a file", func(t *testing.T) {
			if err := os.RemoveAll(cur); err != nil {
				t.Fatal(err)
			}
			writeFile(t, cur, []byte("x"))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			writeSet(t, models, map[string]*ml.Artifact{prediction.FileRidge: ridgeArtifact(t, "ridge-v1", "synthetic", 9)})
			if err := s.Reload(context.Background()); err != nil {
				t.Fatal(err)
			}
			tc.write(t)
			err := s.Reload(context.Background())
			if !errors.Is(err, prediction.ErrModelSet) || !errors.Is(err, appliance.ErrInvalid) {
				t.Fatalf("Reload = %v, want ErrModelSet", err)
			}
			if v := servedVersion(t, s); v != "ridge-v1" {
				t.Fatalf("after a failed reload the served model is %q, want ridge-v1", v)
			}
			if err := os.RemoveAll(cur); err != nil {
				t.Fatal(err)
			}
		})
	}
	// A good new set swaps in whole.
	writeSet(t, models, map[string]*ml.Artifact{prediction.FileRidge: ridgeArtifact(t, "ridge-v2", "real", 5),
		prediction.FileResidual: residualArtifact(t, nil)})
	if err := s.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	info, _ := s.ModelInfo(pro)
	if info.LocalModel.Version != "ridge-v2" || !info.ResidualEngine.Loaded || info.ModelSet.Origin != "directory:current" {
		t.Fatalf("after the reload: %+v", info)
	}
	// No current directory: the shipped set.
	if err := os.RemoveAll(cur); err != nil {
		t.Fatal(err)
	}
	s2 := newService(t, opts{models: models, shipped: shipped.FS()})
	info, _ = s2.ModelInfo(pro)
	if info.ModelSet.Origin != "shipped" || !info.ResidualEngine.Loaded || *info.ResidualEngine.ModelVersion != "drivetest-gbm-v2" {
		t.Fatalf("shipped set: %+v", info)
	}
}

func writeFile(t *testing.T, p string, b []byte) {
	t.Helper()
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestModelInfoAndReadiness(t *testing.T) {
	s := newService(t, opts{models: fullSet(t)})
	if _, err := s.ModelInfo(nil); !errors.Is(err, appliance.ErrUnauthenticated) {
		t.Fatalf("ModelInfo(nil) = %v", err)
	}
	info, err := s.ModelInfo(free)
	if err != nil {
		t.Fatal(err)
	}
	l := info.LocalModel
	if l.Version != "ridge-v1" || *l.CVRMSEDB != 9 || *l.RMSEDB != 8 || *l.CVFolds != 5 || l.NTrain != 300 || *l.TrainedAt != 1795000000 ||
		l.RMSEByMorphology["rural_rolling"] != 7 || l.RMSEByBand["1800MHz"] != 6.5 || l.BandModels["1800MHz"] != "ridge-1800mhz-v1" ||
		l.AccuracyGrade != prediction.GradePipelineValidationOnly || l.FieldAccuracyClaim {
		t.Fatalf("local model %+v", l)
	}
	r := info.ResidualEngine
	c := r.Conformal
	if !r.Loaded || r.AccuracyGrade != prediction.GradePlanejamento || !r.FieldAccuracyClaim || *r.BaselineEngine != "p1812-p1411-hybrid" ||
		c == nil || c.Method != "cv_split_conformal_abs" || c.Level != 90 || c.MeanWidthDB != 2*c.QAbsDB || len(c.ByRegion) != 1 ||
		c.ByRegion[0].RegionCode != "SE" || c.EmpiricalCoverage < 0.9 || r.Envelope == nil {
		t.Fatalf("residual engine %+v, conformal %+v", r, c)
	}
	cr := s.ClaimReadiness()
	if !cr.FieldAccuracyClaim || cr.ServedBand == nil || cr.ServedBand.Regions[0] != "SE" || cr.LocalModel.FieldAccuracyClaim {
		t.Fatalf("claim readiness %+v", cr)
	}
	ag := s.AuditGate()
	if ag.Status != "field_accuracy_claimed" || ag.DataProvenance != "real" || !ag.FieldAccuracyClaim {
		t.Fatalf("audit gate %+v", ag)
	}
	pr := s.PromotionReadiness()
	if !pr.ResidualEngine.SoleSourceEligible || pr.ResidualEngine.PromotionEligible || pr.LocalModel.SoleSourceEligible {
		t.Fatalf("promotion readiness %+v", pr)
	}
	// The shipped synthetic-free set: no claim from physics.
	empty := newService(t, opts{})
	if ag := empty.AuditGate(); ag.FieldAccuracyClaim || ag.Status != prediction.GradePipelineValidationOnly || ag.DataProvenance != "none" {
		t.Fatalf("no models: %+v", ag)
	}
}

func TestEffectiveBandWidens(t *testing.T) {
	s := newService(t, opts{models: fullSet(t)})
	before, err := s.Predict(context.Background(), pro, rioQuery())
	if err != nil {
		t.Fatal(err)
	}
	class := before.Extra.Conformal.SignalClass
	eb := s.EffectiveBand()
	art := eb.ArtifactQAbsDB
	if eb.NominalCoverage != 0.9 || len(eb.Classes) != 3 || eb.Classes[0].LiveN != 0 || eb.Classes[0].AppliedQAbsDB != art {
		t.Fatalf("before any residual: %+v", eb)
	}
	// Residuals of the class twice as wide as the artifact band.
	level := map[string]float64{"strong": -70, "medium": -90, "weak": -110}[class]
	for i := range 100 {
		r := 2 * art * (float64(i%10) + 0.5) / 10
		if i%2 == 1 {
			r = -r
		}
		s.ObserveResidual(level+r, level)
	}
	eb = s.EffectiveBand()
	var cb prediction.ClassBand
	for _, c := range eb.Classes {
		if c.Class == class {
			cb = c
		}
	}
	if cb.LiveN != 100 || cb.LiveQAbsDB == nil || !cb.Widened || cb.AppliedQAbsDB != *cb.LiveQAbsDB || cb.AppliedQAbsDB <= art ||
		cb.MeasuredCoverage == nil || *cb.MeasuredCoverage != 0.5 {
		t.Fatalf("class %s after wide residuals: %+v", class, cb)
	}
	after, err := s.Predict(context.Background(), pro, rioQuery())
	if err != nil {
		t.Fatal(err)
	}
	if !after.Extra.Conformal.Widened || after.Extra.Conformal.HalfWidthDB <= before.Extra.Conformal.HalfWidthDB {
		t.Fatalf("the prediction's band was not widened: %+v then %+v", before.Extra.Conformal, after.Extra.Conformal)
	}
}

func TestMetricsFollowReload(t *testing.T) {
	models := fullSet(t)
	set := metrics.NewSet()
	s := newServiceWithMetrics(t, models, set)
	s.ObserveResidual(-90, -85)
	var b bytes.Buffer
	set.WritePrometheus(&b)
	body := b.String()
	first := body
	for _, want := range []string{
		"coverage_model_rmse_db 8\n", "coverage_model_cv_rmse_db 9\n", "coverage_model_cv_rmse_std_db 0.5\n", "coverage_model_cv_folds 5\n",
		`coverage_model_rmse_by_morphology_db{morphology="rural_rolling"} 7` + "\n", `coverage_model_rmse_by_band_db{band="1800MHz"} 6.5` + "\n",
		`coverage_observation_residual_db_bucket{le="-6"} 0` + "\n", `coverage_observation_residual_db_bucket{le="-3"} 1` + "\n",
		"coverage_observation_residual_db_count 1\n", `residual_conformal_halfwidth_db{scope="marginal"} `, `residual_conformal_halfwidth_db{scope="SE"} `,
		`residual_conformal_empirical_coverage{scope="SE"} `, "residual_conformal_nominal_coverage 0.9\n", "residual_conformal_regions 1\n",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %q:\n%s", want, body)
		}
	}
	// Values follow Reload: no residual engine now.
	writeSet(t, models, map[string]*ml.Artifact{prediction.FileRidge: ridgeArtifact(t, "ridge-v2", "real", 11)})
	if err := s.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	b.Reset()
	set.WritePrometheus(&b)
	body = b.String()
	if !strings.Contains(body, "residual_conformal_nominal_coverage 0\n") || !strings.Contains(body, "coverage_model_cv_rmse_db 11\n") ||
		strings.Contains(body, "residual_conformal_halfwidth_db") {
		t.Fatalf("metrics after the reload:\n%s", body)
	}
	promtool := tooltest.Need(t, "promtool", "prometheus")
	// As GET /metrics writes them: under the families of appliance/telemetry.
	for _, raw := range []string{first, body} {
		var text bytes.Buffer
		if err := telemetry.New(telemetry.Families()).WriteText(&text, []byte(raw)); err != nil {
			t.Fatal(err)
		}
		cmd := exec.CommandContext(t.Context(), promtool, "check", "metrics")
		cmd.Stdin = strings.NewReader(text.String())
		out, err := cmd.CombinedOutput()
		if err != nil || len(bytes.TrimSpace(out)) > 0 {
			t.Fatalf("promtool check metrics: %v\n%s\n%s", err, out, text.String())
		}
	}
}

// TestObserveFeedsTheLiveBand: rows the residual engine predicts feed
// their class's window; rows outside its envelope do not.
func TestObserveFeedsTheLiveBand(t *testing.T) {
	s := newService(t, opts{models: fullSet(t)})
	q := rioQuery()
	l := features.Link{Tx: appliance.LatLon{Lat: *q.TxLat, Lon: *q.TxLon}, Rx: appliance.LatLon{Lat: *q.RxLat, Lon: *q.RxLon},
		TxHeightM: 30, RxHeightM: 1.5, FreqMHz: 1800, TxPowerDBm: 43, TxGainDBi: 15}
	if !s.Observe(context.Background(), l, 0, -95, "received_power") {
		t.Fatal("a row inside the envelope was not recorded")
	}
	out := l
	out.FreqMHz = 3500
	if s.Observe(context.Background(), out, 0, -95, "received_power") {
		t.Fatal("a row outside the envelope's bands was recorded")
	}
	if s.Observe(context.Background(), l, 0, -95, "rsrp") {
		t.Fatal("an RSRP row fed a received-power model")
	}
	bad := l
	bad.RxHeightM = 0
	if s.Observe(context.Background(), bad, 0, -95, "received_power") {
		t.Fatal("an invalid row was recorded")
	}
	n := 0
	for _, c := range s.EffectiveBand().Classes {
		n += c.LiveN
	}
	if n != 1 {
		t.Fatalf("%d live residuals, want 1", n)
	}
}

// TestReloadWhilePredicting: predictions running during reloads always
// see one whole set (run with -race).
func TestReloadWhilePredicting(t *testing.T) {
	models := fullSet(t)
	s := newService(t, opts{models: models})
	done := make(chan struct{})
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			for {
				select {
				case <-done:
					errs <- nil
					return
				default:
				}
				p, err := s.Predict(context.Background(), pro, rioQuery())
				if err != nil {
					errs <- err
					return
				}
				if p.ModelSource == prediction.SourceResidual && (p.Extra.Conformal == nil || *p.ModelVersion != "residual-gbm-v1") {
					errs <- fmt.Errorf("a residual answer without its band: %+v", p)
					return
				}
			}
		}()
	}
	sets := []map[string]*ml.Artifact{
		{prediction.FileRidge: ridgeArtifact(t, "ridge-v1", "synthetic", 9)},
		{prediction.FileRidge: ridgeArtifact(t, "ridge-v2", "real", 5), prediction.FileResidual: residualArtifact(t, rioEnvelope())},
	}
	for i := range 20 {
		writeSet(t, models, sets[i%2])
		if err := s.Reload(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// TestDriftMonitor: the monitor fires once when a class's live residuals
// under-cover the artifact band, not before 100 residuals, not for a
// covered class, and again only after a new residual model.
func TestDriftMonitor(t *testing.T) {
	models := fullSet(t)
	var reasons []string
	ter := rio(t)
	reg, err := engines.New(engines.Config{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := prediction.New(prediction.Deps{Terrain: ter, Engines: reg.WithFallback, ModelsDir: models,
		Tower:   func(string, string) (*appliance.Tower, bool) { return nil, false },
		OnDrift: func(_ context.Context, reason string) { reasons = append(reasons, reason) }})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	q := s.EffectiveBand().ArtifactQAbsDB
	// Medium class: 99 wide residuals (outside the band), then covered ones.
	for i := range 99 {
		s.ObserveResidual(-90+2*q, -90)
		if len(reasons) != 0 {
			t.Fatalf("fired after %d residuals", i+1)
		}
	}
	// Strong class, all inside: never fires.
	for range 200 {
		s.ObserveResidual(-70+q/2, -70)
	}
	if len(reasons) != 0 {
		t.Fatalf("fired on a covered class: %v", reasons)
	}
	s.ObserveResidual(-90+2*q, -90) // the 100th medium residual
	if len(reasons) != 1 || !strings.Contains(reasons[0], "medium-signal") || !strings.Contains(reasons[0], "0.000 of the last 100") {
		t.Fatalf("reasons %v", reasons)
	}
	for range 50 {
		s.ObserveResidual(-90+2*q, -90)
	}
	if len(reasons) != 1 {
		t.Fatalf("fired again for the same model: %v", reasons)
	}
	// A new residual model re-arms it.
	a := residualArtifact(t, rioEnvelope())
	a.ModelVersion = "residual-gbm-v2"
	writeSet(t, models, map[string]*ml.Artifact{prediction.FileResidual: a})
	if err := s.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	for range 100 {
		s.ObserveResidual(-90+2*q, -90)
	}
	if len(reasons) != 2 {
		t.Fatalf("after a new model: %v", reasons)
	}
}
