package prediction_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/prediction"
	"linkplan/engines/ml"
	"linkplan/engines/ml/shipped"
)

// fullSet writes a ridge, a 1800 MHz band model and a residual engine
// calibrated on Rio, B3 and B7.
func fullSet(t *testing.T) string { return fullSetB(t) }

func fullSetB(t testing.TB) string {
	t.Helper()
	models := t.TempDir()
	writeSet(t, models, map[string]*ml.Artifact{
		prediction.FileRidge:      ridgeArtifact(t, "ridge-v1", "synthetic", 9),
		prediction.BandFile(1800): ridgeArtifact(t, "ridge-1800mhz-v1", "real", 10),
		prediction.FileResidual:   residualArtifact(t, rioEnvelope()),
	})
	return models
}

func TestPredictChain(t *testing.T) {
	models := fullSet(t)
	noResidual := t.TempDir()
	writeSet(t, noResidual, map[string]*ml.Artifact{prediction.FileRidge: ridgeArtifact(t, "ridge-v1", "synthetic", 9)})
	elsewhere := t.TempDir()
	env := rioEnvelope()
	env.Areas = []ml.LatLonBox{{Name: "Dortmund, Germany", MinLat: 51.4, MinLon: 7.3, MaxLat: 51.6, MaxLon: 7.6}}
	writeSet(t, elsewhere, map[string]*ml.Artifact{prediction.FileResidual: residualArtifact(t, env)})

	for _, tc := range []struct {
		name       string
		models     string
		edit       func(q *prediction.Query)
		source     string
		version    string
		inside     *bool // nil: no envelope verdict
		reason     string
		confidence float64
		warned     bool // model_not_field_validated: the synthetic ridge-v1 answered
	}{
		{name: "inside the envelope: residual engine", models: models, source: prediction.SourceResidual, version: "residual-gbm-v1", inside: ptr(true), confidence: 0.75},
		{name: "outside the band: refused, band model answers", models: models, edit: func(q *prediction.Query) { q.FrequencyMHz = ptr(1900.0) },
			source: prediction.SourceLocal, version: "ridge-1800mhz-v1", inside: ptr(false), reason: "frequency 1900 MHz is outside the calibrated bands (B3, B7)",
			confidence: prediction.RidgeConfidence(10)},
		{name: "3500 MHz: refused, global ridge (no 3500 band model)", models: models, edit: func(q *prediction.Query) { q.FrequencyMHz = ptr(3500.0) },
			source: prediction.SourceLocal, version: "ridge-v1", inside: ptr(false), reason: "outside the calibrated bands", confidence: 0.55, warned: true},
		{name: "outside the area: refused, nothing else loaded: physics", models: elsewhere, source: prediction.SourcePhysics, inside: ptr(false),
			reason: "outside the calibrated area (Dortmund, Germany)", confidence: 0.55},
		{name: "model ridge skips the residual engine", models: models, edit: func(q *prediction.Query) { q.Model = ptr("ridge") },
			source: prediction.SourceLocal, version: "ridge-1800mhz-v1", confidence: prediction.RidgeConfidence(10)},
		{name: "model physics", models: models, edit: func(q *prediction.Query) { q.Model = ptr("physics") }, source: prediction.SourcePhysics, confidence: 0.55},
		{name: "model residual without one falls back", models: noResidual, edit: func(q *prediction.Query) { q.Model = ptr("residual") },
			source: prediction.SourceLocal, version: "ridge-v1", reason: "no residual engine is loaded", confidence: 0.55, warned: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newService(t, opts{models: tc.models})
			q := rioQuery()
			if tc.edit != nil {
				tc.edit(&q)
			}
			p, err := s.Predict(context.Background(), pro, q)
			if err != nil {
				t.Fatal(err)
			}
			if p.ModelSource != tc.source || (tc.version != "" && (p.ModelVersion == nil || *p.ModelVersion != tc.version)) {
				t.Fatalf("answered by %s %v, want %s %s", p.ModelSource, p.ModelVersion, tc.source, tc.version)
			}
			if p.Confidence != tc.confidence {
				t.Fatalf("confidence %v, want %v", p.Confidence, tc.confidence)
			}
			if p.Warnings == nil || (len(p.Warnings) == 1 && p.Warnings[0].Code == appliance.WarnModelNotFieldValidated) != tc.warned ||
				(!tc.warned && len(p.Warnings) != 0) {
				t.Fatalf("warnings %+v, want model_not_field_validated %v", p.Warnings, tc.warned)
			}
			switch {
			case tc.inside == nil && p.Envelope != nil:
				t.Fatalf("envelope %+v, want none", p.Envelope)
			case tc.inside != nil && (p.Envelope == nil || p.Envelope.Inside != *tc.inside):
				t.Fatalf("envelope %+v, want inside %v", p.Envelope, *tc.inside)
			}
			if tc.reason != "" && (p.FallbackReason == nil || !strings.Contains(*p.FallbackReason, tc.reason)) {
				t.Fatalf("fallback reason %v, want it to say %q", p.FallbackReason, tc.reason)
			}
			if tc.reason == "" && p.FallbackReason != nil {
				t.Fatalf("fallback reason %q, want none", *p.FallbackReason)
			}
			if tc.inside != nil && !*tc.inside && !strings.Contains(*p.FallbackReason, tc.reason) {
				t.Fatalf("the refusal is not reported: %v", p.FallbackReason)
			}
			if got := p.SignalDBm + p.PathLossDB; got < 43+15-0.01 || got > 43+15+0.01 {
				t.Fatalf("signal %v + loss %v = %v, want the EIRP 58", p.SignalDBm, p.PathLossDB, got)
			}
			if (p.ModelSource == prediction.SourceResidual) != (p.Extra.Conformal != nil) {
				t.Fatalf("conformal %+v on a %s answer", p.Extra.Conformal, p.ModelSource)
			}
			if p.ModelSource == prediction.SourcePhysics && (p.EngineUsed != "fspl" || p.ModelVersion != nil || p.CVRMSEDB != nil ||
				p.AccuracyGrade != prediction.GradePipelineValidationOnly || p.FieldAccuracyClaim) {
				t.Fatalf("physics answer %+v", p)
			}
		})
	}
}

func TestPredictConformalMondrian(t *testing.T) {
	s := newService(t, opts{models: fullSet(t)})
	p, err := s.Predict(context.Background(), pro, rioQuery())
	if err != nil {
		t.Fatal(err)
	}
	c := p.Extra.Conformal
	if c == nil || !c.Mondrian || c.Region == nil || *c.Region != "SE" || p.Region == nil || *p.Region != "SE" {
		t.Fatalf("Rio is SE with a local band: %+v", c)
	}
	if c.LossIntervalDB[1] <= c.LossIntervalDB[0] || c.LossIntervalDB[1]-p.PathLossDB < c.HalfWidthDB-0.002 {
		t.Fatalf("loss interval %v around %v, half-width %v: hi must be the larger loss", c.LossIntervalDB, p.PathLossDB, c.HalfWidthDB)
	}
	a := residualArtifact(t, nil)
	se, _ := a.Conformal.BandFor("SE")
	if c.HalfWidthDB != float64(int64(se.QAbsDB*1000+0.5))/1000 || c.Coverage != 0.9 {
		t.Fatalf("half-width %v, want the SE band's %v", c.HalfWidthDB, se.QAbsDB)
	}
	if c.HalfWidthDB >= a.Conformal.Marginal.QAbsDB {
		t.Fatalf("the SE band %v should be narrower than the marginal %v", c.HalfWidthDB, a.Conformal.Marginal.QAbsDB)
	}

	// Regions without a local band, and no region (abroad): the marginal
	// band, mondrian false, region null.
	a = residualArtifact(t, nil)
	for _, region := range []string{"N", ""} {
		s2 := newService(t, opts{models: fullSet(t), regionAt: func(appliance.LatLon) string { return region }})
		p2, err := s2.Predict(context.Background(), pro, rioQuery())
		if err != nil {
			t.Fatal(err)
		}
		c2 := p2.Extra.Conformal
		if c2.Mondrian || c2.Region != nil || c2.HalfWidthDB != float64(int64(a.Conformal.Marginal.QAbsDB*1000+0.5))/1000 {
			t.Fatalf("region %q: %+v, want the marginal band %v", region, c2, a.Conformal.Marginal.QAbsDB)
		}
	}
}

// externalServer answers like the endpoint named.
func externalServer(t *testing.T, mode string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var q prediction.ExternalRequest
		if err := json.NewDecoder(r.Body).Decode(&q); err != nil || q.FrequencyMHz != 1800 || q.RxLat != -22.92 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		switch mode {
		case "ok":
			fmt.Fprint(w, `{"signal_dbm": -71.25, "model_version": "operator-v3", "confidence": 0.8, "cv_rmse_db": 6.5}`)
		case "slow":
			select {
			case <-time.After(2 * time.Second):
			case <-r.Context().Done():
			}
			fmt.Fprint(w, `{"signal_dbm": -71.25}`)
		case "garbage":
			fmt.Fprint(w, `<html>not json</html>`)
		case "no signal":
			fmt.Fprint(w, `{"model_version": "x"}`)
		case "absurd":
			fmt.Fprint(w, `{"signal_dbm": 900}`)
		case "500":
			http.Error(w, "boom", http.StatusInternalServerError)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestPredictExternalEndpoint(t *testing.T) {
	models := fullSet(t)
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL
	down.Close()
	for _, tc := range []struct {
		name   string
		url    string
		source string
		reason string
	}{
		{"up", externalServer(t, "ok").URL, prediction.SourceExternal, ""},
		{"down", downURL, prediction.SourceResidual, "external model endpoint unreachable"},
		{"slow", externalServer(t, "slow").URL, prediction.SourceResidual, "did not answer within 100ms"},
		{"garbage", externalServer(t, "garbage").URL, prediction.SourceResidual, "answer is malformed: not a JSON object"},
		{"no signal_dbm", externalServer(t, "no signal").URL, prediction.SourceResidual, "signal_dbm is missing"},
		{"absurd signal", externalServer(t, "absurd").URL, prediction.SourceResidual, "outside [-200, 50]"},
		{"HTTP 500", externalServer(t, "500").URL, prediction.SourceResidual, "answered HTTP 500"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newService(t, opts{models: models, external: prediction.External{URL: tc.url, Timeout: 100 * time.Millisecond}})
			start := time.Now()
			p, err := s.Predict(context.Background(), pro, rioQuery())
			if err != nil {
				t.Fatal(err)
			}
			if time.Since(start) > time.Second {
				t.Fatalf("took %v: the timeout does not bound the call", time.Since(start))
			}
			if p.ModelSource != tc.source {
				t.Fatalf("answered by %s, want %s (reason %v)", p.ModelSource, tc.source, p.FallbackReason)
			}
			if tc.reason == "" {
				if p.FallbackReason != nil || p.SignalDBm != -71.25 || *p.ModelVersion != "operator-v3" || p.Confidence != 0.8 || *p.CVRMSEDB != 6.5 {
					t.Fatalf("external answer %+v", p)
				}
				return
			}
			if p.FallbackReason == nil || !strings.Contains(*p.FallbackReason, tc.reason) {
				t.Fatalf("fallback reason %v, want %q", p.FallbackReason, tc.reason)
			}
		})
	}
}

func TestPredictErrors(t *testing.T) {
	s := newService(t, opts{models: fullSet(t)})
	for _, tc := range []struct {
		name   string
		k      *appliance.APIKey
		edit   func(q *prediction.Query)
		target error
		field  string
	}{
		{"free tier", free, nil, appliance.ErrForbidden, ""},
		{"starter tier", &appliance.APIKey{TenantID: "t", Tier: appliance.TierStarter}, nil, appliance.ErrForbidden, ""},
		{"no receiver", pro, func(q *prediction.Query) { q.RxLat = nil }, appliance.ErrInvalid, "rx_lat"},
		{"no frequency", pro, func(q *prediction.Query) { q.FrequencyMHz = nil }, appliance.ErrInvalid, "frequency_mhz"},
		{"frequency 0", pro, func(q *prediction.Query) { q.FrequencyMHz = ptr(0.0) }, appliance.ErrInvalid, "frequency_mhz"},
		{"no power", pro, func(q *prediction.Query) { q.TxPowerDBm = nil }, appliance.ErrInvalid, "tx_power_dbm"},
		{"cable loss 25", pro, func(q *prediction.Query) { q.CableLossDB = ptr(25.0) }, appliance.ErrInvalid, "cable_loss_db"},
		{"unknown model", pro, func(q *prediction.Query) { q.Model = ptr("gpt") }, appliance.ErrInvalid, "model"},
		{"tower and tx", pro, func(q *prediction.Query) { q.TowerID = ptr("x") }, appliance.ErrInvalid, "tower_id"},
		{"unknown tower", pro, func(q *prediction.Query) { q.TowerID, q.TxLat, q.TxLon = ptr("x"), nil, nil }, appliance.ErrNotFound, ""},
		{"no terrain (Brasília)", pro, func(q *prediction.Query) {
			q.TxLat, q.TxLon, q.RxLat, q.RxLon = ptr(-15.79), ptr(-47.88), ptr(-15.77), ptr(-47.86)
		}, appliance.ErrTerrainMissing, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := rioQuery()
			if tc.edit != nil {
				tc.edit(&q)
			}
			_, err := s.Predict(context.Background(), tc.k, q)
			if !errors.Is(err, tc.target) {
				t.Fatalf("err %v, want %v", err, tc.target)
			}
			if tc.field != "" {
				var ve *appliance.ValidationError
				if !errors.As(err, &ve) || ve.Fields[0].Field != tc.field {
					t.Fatalf("err %v, want a field error on %s", err, tc.field)
				}
			}
		})
	}
}

// TestPredictShippedDortmund: the shipped real model answers inside
// Dortmund without terrain, and refuses Rio.
func TestPredictShippedDortmund(t *testing.T) {
	s := newService(t, opts{shipped: shipped.FS()})
	q := prediction.Query{TxLat: ptr(51.4925), TxLon: ptr(7.4130), TxHeightM: ptr(30.0), RxLat: ptr(51.4900), RxLon: ptr(7.4200),
		FrequencyMHz: ptr(1815.0), TxPowerDBm: ptr(46.0)}
	p, err := s.Predict(context.Background(), pro, q)
	if err != nil {
		t.Fatal(err)
	}
	b, err := fs.ReadFile(shipped.FS(), prediction.ShippedResidual)
	if err != nil {
		t.Fatal(err)
	}
	a, err := ml.ReadArtifact(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	grade, _ := prediction.Grade("real", a.CVRMSEDB)
	if p.ModelSource != prediction.SourceResidual || *p.ModelVersion != "drivetest-gbm-v2" || p.DataProvenance != "real" ||
		p.AccuracyGrade != grade || !p.FieldAccuracyClaim || p.Region != nil || p.Extra.Conformal == nil || p.Extra.Conformal.Mondrian {
		t.Fatalf("Dortmund answer %+v", p)
	}
	if p.SignalDBm < -130 || p.SignalDBm > -40 {
		t.Fatalf("RSRP %v dBm is not plausible", p.SignalDBm)
	}
	p, err = s.Predict(context.Background(), pro, rioQuery())
	if err != nil {
		t.Fatal(err)
	}
	if p.ModelSource == prediction.SourceResidual || p.Envelope == nil || p.Envelope.Inside ||
		!strings.Contains(p.Envelope.Reason, "Dortmund") || p.FieldAccuracyClaim && p.ModelSource == prediction.SourcePhysics {
		t.Fatalf("Rio answer %+v", p)
	}
}

func TestPredictDeterministic(t *testing.T) {
	models := fullSet(t)
	var first *prediction.Prediction
	for i := range 3 {
		s := newService(t, opts{models: models})
		p, err := s.Predict(context.Background(), pro, rioQuery())
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = p
		} else if !reflect.DeepEqual(first, p) {
			t.Fatalf("run %d differs:\n%+v\n%+v", i, first, p)
		}
	}
}
