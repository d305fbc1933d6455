package api_test

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/engines/radio"
)

// calTx is the transmitter of the calibration tests: an explicit site in
// the harness terrain (the /analyze fuzz seed's).
var calTx = appliance.LatLon{Lat: -22.97922, Lon: -43.14501}

// calibrationRows returns n consented observations of calTx at 1800 MHz,
// receivers spread 0.5–3.5 km around it (many H3 resolution-8 blocks),
// each measured at the free-space level plus offsetDB plus a ±1 dB
// pattern: the tenant's drive test of a transmitter that free space
// underestimates by offsetDB.
func calibrationRows(n int, offsetDB float64) string {
	rows := make([]string, n)
	for i := range rows {
		bearing := float64(i*37%360) * math.Pi / 180
		d := 500 + float64(i*131%3000)
		rx := appliance.LatLon{Lat: calTx.Lat + d*math.Cos(bearing)/111195, Lon: calTx.Lon + d*math.Sin(bearing)/(111195*math.Cos(calTx.Lat*math.Pi/180))}
		obs := 43 - radio.FreeSpaceLossExactDB(1800, rx.DistanceM(calTx)/1000) + offsetDB + float64(i%3-1)
		rows[i] = fmt.Sprintf(`{"tx_lat":%g,"tx_lon":%g,"tx_height_m":30,"tx_power_dbm":43,"rx_lat":%.6f,"rx_lon":%.6f,"rx_height_m":1.5,"freq_hz":1800000000,"observed_dbm":%.2f,"ts":%d}`,
			calTx.Lat, calTx.Lon, rx.Lat, rx.Lon, obs, 1772366340+i)
	}
	return `{"observations":[` + strings.Join(rows, ",") + `],"consent_for_training":true}`
}

func calAnalyzeBody(rx appliance.LatLon) string {
	return fmt.Sprintf(`{"tower":{"lat":%g,"lon":%g,"height_m":30,"power":43},"receiver":{"lat":%.6f,"lon":%.6f,"height_m":1.5},"frequency_mhz":1800,"engine":"fspl"}`,
		calTx.Lat, calTx.Lon, rx.Lat, rx.Lon)
}

type calAnalyze struct {
	RxPowerDBm  float64 `json:"rx_power_dbm"`
	Calibration *struct {
		OffsetDB       float64 `json:"offset_db"`
		N              int     `json:"n"`
		CVRMSEBeforeDB float64 `json:"cv_rmse_before_db"`
		CVRMSEAfterDB  float64 `json:"cv_rmse_after_db"`
		InsideArea     bool    `json:"inside_area"`
	} `json:"calibration"`
	Warnings []struct {
		Code string `json:"code"`
	} `json:"warnings"`
}

func (c calAnalyze) warns(code string) bool {
	for _, w := range c.Warnings {
		if w.Code == code {
			return true
		}
	}
	return false
}

func analyzeAs(t *testing.T, h *harness, key string, rx appliance.LatLon) calAnalyze {
	t.Helper()
	res := h.do(t, "POST", "/analyze", h.keys[key], nil, calAnalyzeBody(rx))
	if res.status != http.StatusOK {
		t.Fatalf("analyze as %s: %d %s", key, res.status, res.body)
	}
	return decodeInto[calAnalyze](t, res)
}

type calStatus struct {
	Enabled bool `json:"enabled"`
	FitJob  *struct {
		ID string `json:"id"`
	} `json:"fit_job"`
	Calibration *appliance.TenantCalibration `json:"calibration"`
}

// TestCalibrationScenario: a Pro tenant's consented drive test of one
// transmitter that free space underestimates by 10 dB. Opting in queues a
// fit; the fitted fspl calibration is applied (cross-validated RMSE
// better) to that tenant's /analyze answers and maps of the transmitter,
// with the calibration object (offset about 10 dB, in rx_power_dbm) and
// the outside-area warning beyond the measurements; another tenant's
// answers for the same transmitter are untouched; new consented rows queue
// a refit; the residual report is a job whose zip holds the report;
// opting out removes the calibration from the answers at once; Free keys
// are refused.
func TestCalibrationScenario(t *testing.T) {
	h := newHarness(t, harnessOptions{unmetered: true})
	pro := h.keys["pro"]
	if res := h.do(t, "GET", "/coverage/calibration", h.keys["free"], nil, ""); res.status != http.StatusForbidden {
		t.Errorf("free: %d %s", res.status, res.body)
	}
	res := h.do(t, "GET", "/coverage/calibration", pro, nil, "")
	if st := decodeInto[calStatus](t, res); res.status != 200 || st.Enabled || st.Calibration != nil {
		t.Fatalf("initial status %d %s", res.status, res.body)
	}
	if res := h.do(t, "POST", "/coverage/calibration/fit", pro, nil, ""); res.status != http.StatusConflict {
		t.Errorf("fit before opting in: %d %s", res.status, res.body)
	}
	if res := h.do(t, "PUT", "/coverage/calibration", pro, nil, `{}`); res.status != 422 || !strings.Contains(string(res.body), "enabled") {
		t.Errorf("PUT without enabled: %d %s", res.status, res.body)
	}
	if res := h.do(t, "POST", "/coverage/observations/residuals", pro, nil, `{"engines":["nope"]}`); res.status != 422 || !strings.Contains(string(res.body), "engines[0]") {
		t.Errorf("unknown engine: %d %s", res.status, res.body)
	}
	if res := h.do(t, "POST", "/coverage/observations/batch", pro, nil, calibrationRows(400, 10)); res.status != http.StatusOK {
		t.Fatalf("observations: %d %.300s", res.status, res.body)
	}
	inside := appliance.LatLon{Lat: calTx.Lat + 1500.0/111195, Lon: calTx.Lon}
	far := appliance.LatLon{Lat: calTx.Lat + 9000.0/111195, Lon: calTx.Lon}
	plainIn, plainFar := analyzeAs(t, h, "pro", inside), analyzeAs(t, h, "pro", far)
	if plainIn.Calibration != nil {
		t.Fatalf("calibrated before opting in: %+v", plainIn)
	}

	res = h.do(t, "PUT", "/coverage/calibration", pro, nil, `{"enabled":true}`)
	st := decodeInto[calStatus](t, res)
	if res.status != 200 || !st.Enabled || st.FitJob == nil {
		t.Fatalf("opt in: %d %s", res.status, res.body)
	}
	if j := waitFor(t, h, pro, st.FitJob.ID); j.State != "succeeded" {
		t.Fatalf("fit job %+v", j)
	}
	st = decodeInto[calStatus](t, h.do(t, "GET", "/coverage/calibration", pro, nil, ""))
	if st.Calibration == nil {
		t.Fatal("no calibration after the fit")
	}
	var fs *appliance.EngineCalibration
	for i := range st.Calibration.Engines {
		if st.Calibration.Engines[i].Engine == appliance.EngineFSPL {
			fs = &st.Calibration.Engines[i]
		}
	}
	if fs == nil || !fs.Applied || fs.CVRMSEAfterDB >= fs.CVRMSEBeforeDB || len(fs.Cells) != 1 || fs.Cells[0].Area != nil || fs.Cells[0].AreaSquares == 0 {
		t.Fatalf("fspl calibration %+v", fs)
	}
	t.Logf("fspl: n=%d cv_rmse_before_db=%.2f cv_rmse_after_db=%.2f method=%s offset=%.2f dB", fs.N, fs.CVRMSEBeforeDB, fs.CVRMSEAfterDB, fs.Method, fs.Cells[0].OffsetDB)

	in := analyzeAs(t, h, "pro", inside)
	if in.Calibration == nil || !in.Calibration.InsideArea || math.Abs(in.Calibration.OffsetDB-10) > 2 || in.warns(appliance.WarnCalibrationOutsideArea) {
		t.Fatalf("inside the area: %+v", in)
	}
	if d := in.RxPowerDBm - plainIn.RxPowerDBm; math.Abs(d-in.Calibration.OffsetDB) > 0.01 {
		t.Errorf("rx_power_dbm moved by %.3f dB, offset %.3f dB", d, in.Calibration.OffsetDB)
	}
	out := analyzeAs(t, h, "pro", far)
	if out.Calibration == nil || out.Calibration.InsideArea || !out.warns(appliance.WarnCalibrationOutsideArea) {
		t.Errorf("outside the area: %+v", out)
	} else if d := out.RxPowerDBm - plainFar.RxPowerDBm; math.Abs(d-out.Calibration.OffsetDB) > 0.01 {
		t.Errorf("outside: rx_power_dbm moved by %.3f dB, offset %.3f dB", d, out.Calibration.OffsetDB)
	}
	// Another tenant's answer for the same transmitter is untouched.
	if other := analyzeAs(t, h, "internal", inside); other.Calibration != nil || other.warns(appliance.WarnCalibrationOutsideArea) {
		t.Errorf("another tenant's answer is calibrated: %+v", other)
	}
	// A map of the transmitter carries the calibration and its warning.
	mapBody := fmt.Sprintf(`{"site":{"lat":%g,"lon":%g,"height_m":30,"eirp_dbm":43},"frequency_mhz":1800,"radius_km":1,"resolution_m":250,"engine":"fspl"}`, calTx.Lat, calTx.Lon)
	_, _, raw := startMap(t, h, pro, mapBody)
	if !strings.Contains(string(raw), `"calibration":{"offset_db":`) || !strings.Contains(string(raw), appliance.WarnCalibrationOutsideArea) {
		t.Errorf("map without its calibration: %.1500s", raw)
	}
	if _, _, raw := startMap(t, h, h.keys["internal"], mapBody); strings.Contains(string(raw), `"calibration":{`) {
		t.Errorf("another tenant's map is calibrated: %.800s", raw)
	}

	// New consented rows queue a refit.
	if res := h.do(t, "POST", "/coverage/observations/batch", pro, nil, obsBatch("false", -22.961)); res.status != http.StatusOK {
		t.Fatalf("observation: %d %s", res.status, res.body)
	}
	// Rows without consent queue nothing.
	if cur := decodeInto[calStatus](t, h.do(t, "GET", "/coverage/calibration", pro, nil, "")); cur.FitJob == nil || cur.FitJob.ID != st.FitJob.ID {
		t.Errorf("rows without consent queued a refit: %+v", cur.FitJob)
	}
	if res := h.do(t, "POST", "/coverage/observations/batch", pro, nil, obsBatch("true", -22.96)); res.status != http.StatusOK {
		t.Fatalf("observation: %d %s", res.status, res.body)
	}
	st2 := decodeInto[calStatus](t, h.do(t, "GET", "/coverage/calibration", pro, nil, ""))
	if st2.FitJob == nil || st2.FitJob.ID == st.FitJob.ID {
		t.Errorf("no refit queued: %+v", st2.FitJob)
	} else {
		waitFor(t, h, pro, st2.FitJob.ID)
	}

	// The residual report.
	res = h.do(t, "POST", "/coverage/observations/residuals", pro, nil, `{"engines":["fspl","itm"]}`)
	if res.status != http.StatusAccepted || !strings.HasPrefix(res.header.Get("Location"), "/jobs/") {
		t.Fatalf("report: %d %s", res.status, res.body)
	}
	rj := decodeInto[jobAnswer](t, res)
	if j := waitFor(t, h, pro, rj.ID); j.State != "succeeded" {
		t.Fatalf("report job %+v", j)
	}
	dl := h.do(t, "GET", "/jobs/"+rj.ID+"/download", pro, nil, "")
	zr, err := zip.NewReader(bytes.NewReader(dl.body), int64(len(dl.body)))
	if dl.status != 200 || err != nil {
		t.Fatalf("download: %d %v", dl.status, err)
	}
	var rep struct {
		Rows    int `json:"rows"`
		Engines []struct {
			Engine string  `json:"engine"`
			N      int     `json:"n"`
			BiasDB float64 `json:"bias_db"`
		} `json:"engines"`
	}
	for _, f := range zr.File {
		if f.Name == "report.json" {
			rc, _ := f.Open()
			b, _ := io.ReadAll(rc)
			rc.Close()
			if err := json.Unmarshal(b, &rep); err != nil {
				t.Fatal(err)
			}
		}
	}
	if rep.Rows != 401 || len(rep.Engines) != 2 || rep.Engines[0].Engine != "fspl" || rep.Engines[0].N < 300 || math.Abs(rep.Engines[0].BiasDB-10) > 2 {
		t.Errorf("report %+v", rep)
	}

	// Opting out: the calibration is gone from the answers at once.
	res = h.do(t, "PUT", "/coverage/calibration", pro, nil, `{"enabled":false}`)
	if st := decodeInto[calStatus](t, res); res.status != 200 || st.Enabled || st.Calibration != nil {
		t.Fatalf("opt out: %d %s", res.status, res.body)
	}
	if again := analyzeAs(t, h, "pro", inside); again.Calibration != nil || again.RxPowerDBm != plainIn.RxPowerDBm {
		t.Errorf("still calibrated after opting out: %+v", again)
	}
}

// calibrationScenarios are the calibration routes against the document:
// the pro tenant's drive test of calTx is stored and its calibration
// fitted first, so that the status, /analyze and /analyze_link answers
// carry a whole calibration for the schemas to check; the tenant opts out
// at the end (no later answer is calibrated).
func calibrationScenarios(t *testing.T, h *harness) []scenario {
	t.Helper()
	pro := h.keys["pro"]
	if res := h.do(t, "POST", "/coverage/observations/batch", pro, nil, calibrationRows(300, 10)); res.status != http.StatusOK {
		t.Fatalf("observations: %d %.300s", res.status, res.body)
	}
	res := h.do(t, "PUT", "/coverage/calibration", pro, nil, `{"enabled":true}`)
	st := decodeInto[calStatus](t, res)
	if res.status != http.StatusOK || st.FitJob == nil {
		t.Fatalf("opt in: %d %s", res.status, res.body)
	}
	if j := waitFor(t, h, pro, st.FitJob.ID); j.State != "succeeded" {
		t.Fatalf("fit %+v", j)
	}
	inside := appliance.LatLon{Lat: calTx.Lat + 1500.0/111195, Lon: calTx.Lon}
	near := fmt.Sprintf(`{"receiver":{"lat":%.6f,"lon":%.6f,"height":1.5},"frequency_mhz":1800,"max_distance_km":3,"engine":"fspl"}`, inside.Lat, inside.Lon)
	return []scenario{
		{name: "calibration status", method: "GET", url: "/coverage/calibration", key: "pro", status: 200,
			contains: []string{`"enabled":true`, `"cv_rmse_after_db"`, `"area_squares"`}},
		{name: "calibration status below Pro", method: "GET", url: "/coverage/calibration", key: "free", status: 403, code: "forbidden"},
		{name: "a calibrated analysis", method: "POST", url: "/analyze", key: "pro", body: calAnalyzeBody(inside), status: 200,
			contains: []string{`"calibration":{"offset_db":`, `"inside_area":true`}},
		{name: "an analysis of another tenant", method: "POST", url: "/analyze", key: "internal", body: calAnalyzeBody(inside), status: 200,
			check: func(t *testing.T, h *harness, res *response) {
				if strings.Contains(string(res.body), `"calibration"`) {
					t.Errorf("another tenant's answer is calibrated: %.500s", res.body)
				}
			}},
		{name: "analyze_link near the calibrated transmitter", method: "POST", url: "/analyze_link", key: "pro", body: near, status: 200},
		{name: "opt in again", method: "PUT", url: "/coverage/calibration", key: "pro", body: `{"enabled":true}`, status: 200,
			contains: []string{`"fit_job":{`}},
		{name: "opt in without enabled", method: "PUT", url: "/coverage/calibration", key: "pro", body: `{}`, status: 422, code: "invalid_input",
			fields: []string{"enabled"}, doc: docRejects},
		{name: "opt in with a string", method: "PUT", url: "/coverage/calibration", key: "pro", body: `{"enabled":"yes"}`, status: 422, code: "invalid_input",
			fields: []string{"enabled"}, doc: docRejects},
		{name: "refit now", method: "POST", url: "/coverage/calibration/fit", key: "pro", status: 202},
		{name: "residual report", method: "POST", url: "/coverage/observations/residuals", key: "pro", body: `{}`, status: 202},
		{name: "residual report of an unknown engine", method: "POST", url: "/coverage/observations/residuals", key: "pro",
			body: `{"engines":["raytrace2"]}`, status: 422, code: "invalid_input", fields: []string{"engines[0]"}, doc: docRejects},
		{name: "residual report below Pro", method: "POST", url: "/coverage/observations/residuals", key: "free", body: `{}`, status: 403, code: "forbidden"},
		{name: "opt out", method: "PUT", url: "/coverage/calibration", key: "pro", body: `{"enabled":false}`, status: 200,
			contains: []string{`"enabled":false`, `"calibration":null`}},
		{name: "refit while off", method: "POST", url: "/coverage/calibration/fit", key: "pro", status: 409, code: "conflict"},
	}
}
