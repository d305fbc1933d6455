package api_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"strings"
	"testing"

	"linkplan/appliance/prediction"
	"linkplan/engines/ml"
	"linkplan/engines/ml/shipped"
)

// predictBody is a POST /coverage/predict body from (txLat, txLon) to
// (rxLat, rxLon) at freq MHz, with extra fields appended.
func predictBody(txLat, txLon, rxLat, rxLon, freq float64, extra string) string {
	return fmt.Sprintf(`{"tx_lat":%g,"tx_lon":%g,"tx_height_m":30,"rx_lat":%g,"rx_lon":%g,"frequency_mhz":%g,"tx_power_dbm":43,"tx_gain_dbi":15%s}`,
		txLat, txLon, rxLat, rxLon, freq, extra)
}

var (
	predictRio      = predictBody(-22.95, -43.21, -22.92, -43.19, 1800, "")
	predictDortmund = predictBody(51.4925, 7.4130, 51.4900, 7.4200, 1815, "")
)

// predictionScenarios are the scenarios of the learned-model routes, on
// the shipped models (the harness's state directory has no
// models/current/): the real Dortmund drive-test model as the residual
// engine and the synthetic pipeline-validation ridge as the local model. Most use the Business key: Pro's prediction rate
// limit is 6 a minute (SPEC §8.1).
func predictionScenarios(t *testing.T, h *harness) []scenario {
	t.Helper()
	// The shipped real model's figures decide its grade and gates.
	b, err := fs.ReadFile(shipped.FS(), prediction.ShippedResidual)
	if err != nil {
		t.Fatal(err)
	}
	dortmund, err := ml.ReadArtifact(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	dortmundGrade, _ := prediction.Grade(dortmund.DataProvenance, dortmund.CVRMSEDB)
	gates := prediction.Gates(dortmund, nil, "")
	return []scenario{
		{name: "predict in Rio: the Dortmund model refuses, the synthetic ridge answers", method: "POST", url: "/coverage/predict", key: "internal", body: predictRio, status: 200,
			contains: []string{`"model_source":"local-model"`, `"engine_used":"ridge"`, `"model_version":"ridge-v1"`, `"confidence":0.55`,
				`"warnings":[{"code":"model_not_field_validated","message":"the answering model ridge-v1 was trained on synthetic data`,
				`"envelope":{"inside":false,"reason":"outside the calibrated area (`,
				`"fallback_reason":"residual engine ` + dortmund.ModelVersion + ` refused to extrapolate: outside the calibrated area (`,
				`"data_provenance":"synthetic"`, `"accuracy_grade":"pipeline_validation_only"`, `"field_accuracy_claim":false`, `"region":"SE"`}},
		{name: "predict in Dortmund: the residual engine answers without terrain", method: "POST", url: "/coverage/predict", key: "internal", body: predictDortmund, status: 200,
			contains: []string{`"model_source":"residual-gbm"`, `"model_version":"` + dortmund.ModelVersion + `"`, `"confidence":0.75`, `"data_provenance":"real"`,
				`"accuracy_grade":"` + dortmundGrade + `"`, `"field_accuracy_claim":true`, `"envelope":{"inside":true}`, `"mondrian":false`, `"region":null`, `"fallback_reason":null`,
				`"unseen":true`, `"warnings":[]`},
			check: func(t *testing.T, h *harness, res *response) {
				var p struct {
					SignalDBm  float64 `json:"signal_dbm"`
					PathLossDB float64 `json:"path_loss_db"`
					Extra      struct {
						Conformal struct {
							LossIntervalDB [2]float64 `json:"loss_interval_db"`
							HalfWidthDB    float64    `json:"half_width_db"`
						} `json:"conformal"`
					} `json:"extra"`
				}
				if err := json.Unmarshal(res.body, &p); err != nil {
					t.Fatal(err)
				}
				c := p.Extra.Conformal
				if c.HalfWidthDB < 10 || c.LossIntervalDB[1] <= p.PathLossDB || c.LossIntervalDB[0] >= p.PathLossDB {
					t.Errorf("band %+v around loss %v", c, p.PathLossDB)
				}
			}},
		{name: "predict in Dortmund outside its bands", method: "POST", url: "/coverage/predict", key: "internal", body: predictBody(51.4925, 7.4130, 51.4900, 7.4200, 3700, ""),
			status: 422, code: "terrain_missing"},
		{name: "predict on Pro", method: "POST", url: "/coverage/predict", key: "pro", body: predictRio, status: 200, contains: []string{`"model_requested":"auto"`}},
		{name: "predict on Free", method: "POST", url: "/coverage/predict", key: "free", body: predictRio, status: 403, code: "forbidden"},
		{name: "predict without a key", method: "POST", url: "/coverage/predict", body: predictRio, status: 401, code: "unauthenticated"},
		{name: "predict physics only", method: "POST", url: "/coverage/predict", key: "internal", body: predictBody(-22.95, -43.21, -22.92, -43.19, 1800, `,"model":"physics","rx_height_m":3,"cable_loss_db":2,"rx_gain_dbi":2`),
			status: 200, contains: []string{`"model_source":"physics-fallback"`, `"engine_used":"fspl"`, `"confidence":0.55`, `"model_version":null`, `"cv_rmse_db":null`,
				`"envelope":null`, `"fallback_reason":null`, `"model_requested":"physics"`, `"data_provenance":"none"`, `"warnings":[]`}},
		{name: "predict with the ridge model", method: "POST", url: "/coverage/predict", key: "internal", body: predictBody(-22.95, -43.21, -22.92, -43.19, 900, `,"model":"ridge"`),
			status: 200, contains: []string{`"model_source":"local-model"`, `"envelope":null`, `"fallback_reason":null`, `"model_requested":"ridge"`}},
		{name: "predict without the required fields", method: "POST", url: "/coverage/predict", key: "internal", body: `{"tx_lat":-22.95,"tx_lon":-43.21,"tx_height_m":30}`,
			status: 422, code: "invalid_input", fields: []string{"rx_lat", "rx_lon", "frequency_mhz", "tx_power_dbm"}, doc: docRejects},
		{name: "predict out of range", method: "POST", url: "/coverage/predict", key: "internal", body: predictBody(-22.95, -43.21, -22.92, -43.19, 0, `,"rx_height_m":0,"cable_loss_db":21`),
			status: 422, code: "invalid_input", fields: []string{"frequency_mhz", "rx_height_m", "cable_loss_db"}, doc: docRejects},
		{name: "predict with an unknown model", method: "POST", url: "/coverage/predict", key: "internal", body: predictBody(-22.95, -43.21, -22.92, -43.19, 1800, `,"model":"gpt"`),
			status: 422, code: "invalid_input", fields: []string{"model"}, doc: docRejects},
		{name: "predict with an unknown field", method: "POST", url: "/coverage/predict", key: "internal", body: predictBody(-22.95, -43.21, -22.92, -43.19, 1800, `,"freq_hz":1.8e9`),
			status: 422, code: "invalid_input", fields: []string{"freq_hz"}, doc: docRejects},
		{name: "predict from an unknown tower", method: "POST", url: "/coverage/predict", key: "internal",
			body: `{"tower_id":"no-such-tower","rx_lat":-22.92,"rx_lon":-43.19,"frequency_mhz":1800,"tx_power_dbm":43}`, status: 404, code: "not_found"},
		{name: "predict where no terrain exists (Curitiba)", method: "POST", url: "/coverage/predict", key: "internal", body: predictBody(-25.40, -49.20, -25.38, -49.19, 1800, ""),
			status: 422, code: "terrain_missing"},
		{name: "predict with a broken body", method: "POST", url: "/coverage/predict", key: "internal", body: `{"tx_lat":`, status: 400, code: "malformed_json"},
		{name: "model info", method: "GET", url: "/coverage/model/info", key: "free", status: 200,
			contains: []string{`"local_model":{"version":"ridge-v1"`, `"data_provenance":"synthetic"`, `"model_version":"` + dortmund.ModelVersion + `"`, `"baseline_engine":null`,
				`"method":"cv_split_conformal_abs"`, `"origin":"shipped"`, `"accuracy_grade":"` + dortmundGrade + `"`, `"rmse_by_band":{`,
				`"unseen":{"method":"cluster_bootstrap_upper_conformal"`, `"basis":"leave_one_operator_out"`, `"status":"attested"`, `"scope":"build"`, `"synthetic_rows":5000`, `"hulls":[`}},
		{name: "model info without a key", method: "GET", url: "/coverage/model/info", status: 401, code: "unauthenticated"},
		{name: "claim readiness (public)", method: "GET", url: "/coverage/claim-readiness", status: 200,
			contains: []string{`"field_accuracy_claim":true`, `"served_band":{`, `"regions":[]`, `"unseen":{"method":"cluster_bootstrap_upper_conformal"`, `"attestation":{"status":"attested"`}},
		{name: "effective band (public)", method: "GET", url: "/coverage/effective-band", status: 200,
			contains: []string{`"nominal_coverage":0.9`, `"class":"strong"`, `"class":"weak"`, `"live_window":500`}},
		{name: "promotion readiness (public)", method: "GET", url: "/coverage/promotion-readiness", status: 200,
			contains: []string{fmt.Sprintf(`"sole_source_eligible":%v`, gates.SoleSourceEligible), fmt.Sprintf(`"real_rows":%d`, dortmund.NTrain),
				fmt.Sprintf(`"name":"cv_rmse_below_8_db","passed":%v`, dortmund.CVRMSEDB < 8), `"promotion_eligible":false`}},
		{name: "audit gate (public)", method: "GET", url: "/health/audit-gate", status: 200,
			contains: []string{`"status":"field_accuracy_claimed"`, `"data_provenance":"real"`, `"accuracy_grade":"` + dortmundGrade + `"`,
				`"attestation":{"status":"attested","attested_rows":45105`}},
	}
}

// TestTenantIsolationPrediction: a prediction from tenant A's own tower is
// A's alone (B: 404 as for a missing tower; Free: 403 before any lookup),
// and the model routes answer B and Free the same before and after A
// stored its tower.
func TestTenantIsolationPrediction(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	const lat, lon = -22.9519, -43.2105
	towerID := registerOwn(t, h, "pro", "Isolada Predicao", "ISO-PRED-A", lat, lon)
	body := fmt.Sprintf(`{"tower_id":%q,"rx_lat":%g,"rx_lon":%g,"frequency_mhz":1800,"tx_power_dbm":43}`, towerID, lat+0.01, lon)
	for _, tc := range []struct {
		key    string
		status int
	}{{"pro", 200}, {"internal", 404}, {"free", 403}} {
		res := h.do(t, "POST", "/coverage/predict", h.keys[tc.key], nil, body)
		if res.status != tc.status {
			t.Errorf("%s: status %d, want %d: %s", tc.key, res.status, tc.status, res.body)
		}
		if tc.key != "pro" && strings.Contains(string(res.body), "Isolada") {
			t.Errorf("%s sees A's tower: %s", tc.key, res.body)
		}
	}
	if res := h.do(t, "POST", "/coverage/predict", h.keys["pro"], nil, body); res.status != http.StatusOK || !strings.Contains(string(res.body), `"model_source"`) {
		t.Fatalf("A's own prediction: %d %s", res.status, res.body)
	}
}
