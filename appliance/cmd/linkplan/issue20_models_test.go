//go:build systemtools

package main_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"linkplan/appliance/training"
)

// dortmundSample lists the committed every-20th-row samples of one
// operator's drive tests (testdata/dortmund/PROVENANCE.md) as
// --observations values, with the operator named when op is true.
func dortmundSample(t *testing.T, operator string, named bool) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "dortmund", operator+"_*.every20.csv.gz"))
	if err != nil || len(files) != 4 {
		t.Fatalf("samples of %s: %v %v", operator, files, err)
	}
	var args []string
	for _, f := range files {
		if named {
			f = operator + "=" + f
		}
		args = append(args, "--observations", f)
	}
	return args
}

// evalFigures parses the numbers of a `model eval` line and of its fair
// physics baseline line.
func evalFigures(t *testing.T, out, stderr string) (fig map[string]float64, fairRMSE float64) {
	t.Helper()
	fig = map[string]float64{}
	for _, m := range regexp.MustCompile(`([a-z_]+)=([-0-9.]+|NaN)`).FindAllStringSubmatch(out, -1) {
		v, err := strconv.ParseFloat(m[2], 64)
		if err != nil {
			t.Fatalf("%s in %q", m[0], out)
		}
		fig[m[1]] = v
	}
	m := regexp.MustCompile(`fair physics baseline \(free space, EIRP offset -?[0-9.]+ dBm fitted on the model's training rows\): n=[0-9]+ rmse_db=([0-9.]+)`).FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no fair physics baseline in %q", stderr)
	}
	fairRMSE, _ = strconv.ParseFloat(m[1], 64)
	return fig, fairRMSE
}

// TestIssue20_UnseenOperatorBand: issue 20, finding "for an unseen
// operator the 90 % band must stay honest under shift" (the lead's
// measurement on an operator we do not have: band coverage 0.854 at
// nominal 0.90). Leave one operator out on the committed samples of the
// real Dortmund drive tests, on the binary: trained on one operator,
// `model eval` on the other prints the ordinary and the unseen-transmitter
// coverage; the band served to the unseen operator covers at least 0.88
// both ways while the RMSE stays no worse than the fair physics baseline
// (free space with the EIRP offset fitted on the training operator).
// T-Mobile → O2 is the shift the ordinary band misses (0.86). Trained on
// both operators, the unseen band is calibrated on each operator left out.
func TestIssue20_UnseenOperatorBand(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	dir := t.TempDir()
	for _, tc := range []struct{ train, test string }{{"o2", "tmobile"}, {"tmobile", "o2"}} {
		t.Run(tc.train+" to "+tc.test, func(t *testing.T) {
			model := filepath.Join(dir, tc.train+".json")
			out, stderr, code := runCLI(t, bin, append([]string{"model", "train", "--out", model}, dortmundSample(t, tc.train, true)...)...)
			if code != 0 || !strings.Contains(out, "unseen_groups=1 ") {
				t.Fatalf("train: exit %d: %s %s", code, out, stderr)
			}
			out, stderr, code = runCLI(t, bin, append([]string{"model", "eval", "--model", model}, dortmundSample(t, tc.test, false)...)...)
			if code != 0 {
				t.Fatalf("eval: exit %d: %s %s", code, out, stderr)
			}
			fig, fair := evalFigures(t, out, stderr)
			t.Logf("%s -> %s: rmse %.3f (fair physics %.3f), coverage %.4f, unseen %.4f, served %.4f (width %.1f dB)", tc.train, tc.test,
				fig["rmse_db"], fair, fig["coverage"], fig["unseen_coverage"], fig["served_coverage"], fig["served_mean_width_db"])
			if fig["unseen_rows"] != fig["n"] || fig["served_coverage"] < 0.88 || fig["unseen_coverage"] < 0.88 || fig["rmse_db"] > fair ||
				fig["unseen_mean_width_db"] < fig["mean_width_db"] {
				t.Fatalf("figures %v, fair physics RMSE %v", fig, fair)
			}
			if tc.train == "tmobile" && fig["coverage"] >= 0.88 {
				t.Fatalf("the ordinary band covers %v of O2: the shift this test is about is gone", fig["coverage"])
			}
		})
	}
	model := filepath.Join(dir, "both.json")
	out, stderr, code := runCLI(t, bin, append(append([]string{"model", "train", "--out", model}, dortmundSample(t, "o2", true)...), dortmundSample(t, "tmobile", true)...)...)
	if code != 0 || !strings.Contains(out, "unseen_groups=3 ") {
		t.Fatalf("train on both: exit %d: %s %s", code, out, stderr)
	}
}

// synthgen is a state directory prepared once: `linkplan model synth`'s
// 3,000 rows relabelled drivetest_synthgen, uploaded by a Pro tenant with
// consent through POST /coverage/observations/batch, and one offline
// retrain (issue 20's repro). Tests copy it.
var synthgen struct {
	once sync.Once
	dir  string
	key  string // the uploading tenant's Pro key (an admin TOTP code serves once)
	err  error
}

// synthgenState returns a copy of the prepared state directory and the
// Pro key stored in it.
func synthgenState(t *testing.T, bin string) (string, string) {
	t.Helper()
	synthgen.once.Do(func() {
		dir, err := os.MkdirTemp("", "linkplan-synthgen-") // removed by TestMain
		if err != nil {
			synthgen.err = err
			return
		}
		synthgen.dir = dir
		csv := filepath.Join(dir, "synth.csv")
		if out, stderr, code := runCLI(t, bin, "model", "synth", "--n", "3000", "--seed", "20", "--out", csv); code != 0 {
			synthgen.err = fmt.Errorf("synth: exit %d: %s %s", code, out, stderr)
			return
		}
		raw, err := os.ReadFile(csv)
		if err != nil {
			synthgen.err = err
			return
		}
		rows, err := training.ReadSynthCSV(bytes.NewReader(raw))
		if err != nil {
			synthgen.err = err
			return
		}
		data := filepath.Join(dir, "data")
		s := startServe(t, bin, data)
		key := issueKey(t, s, data, "Pro")
		synthgen.key = key
		type obs struct {
			TxLat       float64 `json:"tx_lat"`
			TxLon       float64 `json:"tx_lon"`
			TxHeightM   float64 `json:"tx_height_m"`
			TxPowerDBm  float64 `json:"tx_power_dbm"`
			TxGainDBi   float64 `json:"tx_gain_dbi"`
			RxLat       float64 `json:"rx_lat"`
			RxLon       float64 `json:"rx_lon"`
			RxHeightM   float64 `json:"rx_height_m"`
			RxGainDBi   float64 `json:"rx_gain_dbi"`
			CableLossDB float64 `json:"cable_loss_db"`
			FreqHz      float64 `json:"freq_hz"`
			ObservedDBm float64 `json:"observed_dbm"`
			Source      string  `json:"source"`
			Ts          float64 `json:"ts"`
		}
		batch := struct {
			Observations []obs `json:"observations"`
			Consent      bool  `json:"consent_for_training"`
		}{Consent: true}
		for _, o := range rows {
			batch.Observations = append(batch.Observations, obs{o.TxLat, o.TxLon, o.TxHeightM, o.TxPowerDBm, o.TxGainDBi, o.RxLat, o.RxLon,
				o.RxHeightM, o.RxGainDBi, o.CableLossDB, o.FreqHz, o.ObservedDBm, "drivetest_synthgen", o.TsUnix})
		}
		body, _ := json.Marshal(batch)
		r := s.call(t, "POST", "/coverage/observations/batch", map[string]string{"X-API-Key": key, "Content-Type": "application/json"}, string(body))
		if r.status != http.StatusOK || !strings.Contains(string(r.body), `"ingested":3000`) {
			synthgen.err = fmt.Errorf("upload: %d %s", r.status, r.body)
			return
		}
		if err := s.stop(t); err != nil {
			synthgen.err = err
			return
		}
		out, stderr, code := runCLI(t, bin, "model", "retrain", "--data-dir", data)
		if code != 0 || !strings.Contains(out, "decision=promoted") || !strings.Contains(out, "data_provenance=unknown") {
			synthgen.err = fmt.Errorf("retrain: exit %d: %s %s", code, out, stderr)
		}
	})
	if synthgen.err != nil {
		t.Fatal(synthgen.err)
	}
	cp := filepath.Join(t.TempDir(), "data")
	if err := os.CopyFS(cp, os.DirFS(filepath.Join(synthgen.dir, "data"))); err != nil {
		t.Fatal(err)
	}
	return cp, synthgen.key
}

func gate(t *testing.T, s *server) map[string]any {
	t.Helper()
	r := s.call(t, "GET", "/health/audit-gate", nil, "")
	var g map[string]any
	if r.status != http.StatusOK || json.Unmarshal(r.body, &g) != nil {
		t.Fatalf("audit gate: %d %s", r.status, r.body)
	}
	return g
}

// TestIssue20_RelabelledSynthgenNoFieldAccuracyClaim: issue 20, finding
// "any tenant label drivetest_* counts as real data: 3,000 rows from
// linkplan model synth labelled drivetest_synthgen were promoted by the
// automatic retrain, and the public /health/audit-gate then said
// field_accuracy_claimed". On the binary: after the retrain the gate says
// pipeline_validation_only (data_provenance unknown, attestation none)
// and a prediction from the retrained model is capped and warned; only
// an operator's `observations attest` (audited) makes the rows real and
// the claim appear, and `--withdraw` takes it back at the next start.
func TestIssue20_RelabelledSynthgenNoFieldAccuracyClaim(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	data, key := synthgenState(t, bin)
	s := startServe(t, bin, data)
	g := gate(t, s)
	att, _ := g["attestation"].(map[string]any)
	if g["status"] != "pipeline_validation_only" || g["field_accuracy_claim"] != false || g["data_provenance"] != "unknown" || att["status"] != "none" {
		t.Fatalf("gate after the unattested retrain: %v", g)
	}
	r := s.call(t, "POST", "/coverage/predict", map[string]string{"X-API-Key": key, "Content-Type": "application/json"},
		`{"tx_lat":-22.52,"tx_lon":-43.52,"tx_height_m":30,"rx_lat":-22.5,"rx_lon":-43.5,"frequency_mhz":1800,"tx_power_dbm":43,"model":"residual"}`)
	var p struct {
		ModelSource string  `json:"model_source"`
		Confidence  float64 `json:"confidence"`
		Warnings    []struct {
			Code string `json:"code"`
		} `json:"warnings"`
	}
	if r.status != http.StatusOK || json.Unmarshal(r.body, &p) != nil || p.ModelSource != "residual-gbm" || p.Confidence > 0.55 ||
		len(p.Warnings) != 1 || p.Warnings[0].Code != "model_not_field_validated" {
		t.Fatalf("predict: %d %s", r.status, r.body)
	}
	if err := s.stop(t); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"observations", "attest", "--data-dir", data, "--source", "drivetest_*", "--basis", "x"},
		{"observations", "attest", "--data-dir", data, "--source", "drivetest_synthgen"},
		{"observations", "attest", "--data-dir", data, "--all", "--basis", "x"},
		{"observations", "attest", "--data-dir", data, "--source", "synthetic", "--basis", "x"},
	} {
		if _, stderr, code := runCLI(t, bin, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2: %s", args, code, stderr)
		}
	}
	out, stderr, code := runCLI(t, bin, "observations", "attest", "--data-dir", data, "--source", "drivetest_synthgen", "--basis", "the test's operator vouches for these rows")
	if code != 0 || !strings.HasPrefix(out, "3000 stored observations of source drivetest_synthgen are attested") {
		t.Fatalf("attest: exit %d: %s %s", code, out, stderr)
	}
	out, stderr, code = runCLI(t, bin, "model", "retrain", "--data-dir", data)
	if code != 0 || !strings.Contains(out, "decision=promoted") || !strings.Contains(out, "data_provenance=real") {
		t.Fatalf("retrain after the attestation: exit %d: %s %s", code, out, stderr)
	}
	s = startServe(t, bin, data)
	g = gate(t, s)
	att, _ = g["attestation"].(map[string]any)
	if g["status"] != "field_accuracy_claimed" || g["data_provenance"] != "real" || att["status"] != "attested" {
		t.Fatalf("gate after the attestation: %v", g)
	}
	if err := s.stop(t); err != nil {
		t.Fatal(err)
	}
	out, stderr, code = runCLI(t, bin, "observations", "attest", "--data-dir", data, "--source", "drivetest_synthgen", "--withdraw", "--basis", "they were generated")
	if code != 0 || !strings.Contains(out, "withdrawn") {
		t.Fatalf("withdraw: exit %d: %s %s", code, out, stderr)
	}
	s = startServe(t, bin, data)
	g = gate(t, s)
	att, _ = g["attestation"].(map[string]any)
	if g["status"] != "pipeline_validation_only" || g["data_provenance"] != "unknown" || att["status"] != "withdrawn" {
		t.Fatalf("gate after the withdrawal: %v", g)
	}
}

// TestIssue20_RetrainedResidual28GHzInRioRefused: issue 20, finding "a
// retrained residual model has no envelope: a 28 GHz query in Rio is
// answered as inside although its P.1812 baseline covers 30–6000 MHz".
// On the binary, the retrained residual engine refuses it at a receiver
// of the Rio de Janeiro terrain sample with the reason (its baseline's
// validity and its bands) and fspl answers; at 1800 MHz there it answers
// inside. Model info shows the envelope's hull and validity.
func TestIssue20_RetrainedResidual28GHzInRioRefused(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	data, key := synthgenState(t, bin)
	s := startServe(t, bin, data)
	predict := func(mhz int) map[string]any {
		t.Helper()
		r := s.call(t, "POST", "/coverage/predict", map[string]string{"X-API-Key": key, "Content-Type": "application/json"},
			fmt.Sprintf(`{"tx_lat":-22.52,"tx_lon":-43.52,"tx_height_m":30,"rx_lat":-22.5,"rx_lon":-43.5,"frequency_mhz":%d,"tx_power_dbm":43,"model":"residual"}`, mhz))
		var p map[string]any
		if r.status != http.StatusOK || json.Unmarshal(r.body, &p) != nil {
			t.Fatalf("predict %d MHz: %d %s", mhz, r.status, r.body)
		}
		return p
	}
	p := predict(28000)
	env, _ := p["envelope"].(map[string]any)
	reason, _ := env["reason"].(string)
	if env["inside"] != false || !strings.Contains(reason, "frequency 28000 MHz is outside the validity of its baseline engine p1812-p1411-hybrid (30–6000 MHz)") ||
		!strings.Contains(reason, "outside the calibrated bands") || p["model_source"] == "residual-gbm" {
		t.Fatalf("28 GHz in Rio: %v", p)
	}
	p = predict(1800)
	if env, _ := p["envelope"].(map[string]any); env["inside"] != true || p["model_source"] != "residual-gbm" {
		t.Fatalf("1800 MHz in Rio: %v", p)
	}
	r := s.call(t, "GET", "/coverage/model/info", map[string]string{"X-API-Key": key}, "")
	if r.status != http.StatusOK || !strings.Contains(string(r.body), `"validity":{"engine":"p1812-p1411-hybrid","min_mhz":30,"max_mhz":6000}`) ||
		!strings.Contains(string(r.body), `"hulls":[`) {
		t.Fatalf("model info: %d %s", r.status, r.body)
	}
}
