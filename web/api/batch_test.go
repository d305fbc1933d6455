package api_test

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"mime/multipart"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/batch"
)

// batchRows returns n JSON rows over Rio de Janeiro (the embedded terrain).
func batchRows(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"s%d","receiver":{"lat":%.5f,"lon":%.5f,"height":10},"frequency_mhz":1800,"max_distance_km":15}`,
			i+1, -22.96+0.0004*float64(i%50), -43.25+0.0004*float64(i/50))
	}
	return b.String()
}

type batchSync struct {
	Rows           []batch.RowResult `json:"rows"`
	Counts         batch.Counts      `json:"counts"`
	IgnoredColumns []string          `json:"ignored_columns"`
}

type jobAnswer struct {
	ID       string `json:"id"`
	State    string `json:"state"`
	Lane     string `json:"lane"`
	Progress struct {
		Done, Total int64
	} `json:"progress"`
	Error           *string `json:"error"`
	CancelRequested bool    `json:"cancel_requested"`
	Result          *struct {
		Bytes       int64  `json:"bytes"`
		SHA256      string `json:"sha256"`
		DownloadURL string `json:"download_url"`
	} `json:"result"`
	Summary json.RawMessage `json:"summary"`
}

func decodeInto[T any](t *testing.T, res *response) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(res.body, &v); err != nil {
		t.Fatalf("%v: %s", err, res.body)
	}
	return v
}

func TestBatchSyncJSON(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	body := `{"rows":[` + batchRows(2) + `,{"id":"bad","receiver":{"lat":-22.9,"lon":-43.2},"frequency_mhz":1e9},{"id":"nolat","receiver":{"lon":-43.2},"frequency_mhz":1800}],"options":{"engine":"fspl"}}`
	res := h.do(t, "POST", "/batch_reports", h.keys["pro"], nil, body)
	if res.status != http.StatusOK {
		t.Fatalf("%d %s", res.status, res.body)
	}
	got := decodeInto[batchSync](t, res)
	if len(got.Rows) != 4 || got.Counts.Total != 4 || got.Counts.Error != 2 {
		t.Fatalf("rows %d, counts %+v", len(got.Rows), got.Counts)
	}
	for i, want := range []string{"s1", "s2", "bad", "nolat"} {
		if r := got.Rows[i]; r.ReceiverID != want || r.Row != i+1 {
			t.Errorf("row %d: id %q row %d", i, r.ReceiverID, r.Row)
		}
	}
	if r := got.Rows[0]; r.TowerID == "" || r.MarginDB == nil || (r.Status != batch.StatusOK && r.Status != batch.StatusLowMargin) {
		t.Errorf("row 1: %+v", r)
	}
	// Bad rows are reported in their row, naming the field.
	if r := got.Rows[2]; r.Status != batch.StatusError || !hasFieldError(r.Errors, "frequency_mhz") {
		t.Errorf("row 3: %+v", r)
	}
	if r := got.Rows[3]; r.Status != batch.StatusError || !hasFieldError(r.Errors, "receiver.lat") {
		t.Errorf("row 4: %+v", r)
	}
	// The same row through /analyze_link gives the same tower and margin.
	one := h.do(t, "POST", "/analyze_link", h.keys["pro"], nil, `{"receiver":{"lat":-22.96,"lon":-43.25,"height":10},"frequency_mhz":1800,"max_distance_km":15}`)
	var a struct {
		Best struct {
			TowerID string  `json:"tower_id"`
			Margin  float64 `json:"link_margin_db"`
		} `json:"best_tower"`
	}
	if err := json.Unmarshal(one.body, &a); err != nil {
		t.Fatal(err)
	}
	if a.Best.TowerID != got.Rows[0].TowerID || *got.Rows[0].MarginDB != a.Best.Margin {
		t.Errorf("batch row 1 %s %v, analyze_link %s %v", got.Rows[0].TowerID, *got.Rows[0].MarginDB, a.Best.TowerID, a.Best.Margin)
	}
}

func hasFieldError(fs []appliance.FieldError, name string) bool {
	for _, f := range fs {
		if f.Field == name {
			return true
		}
	}
	return false
}

// ptBRCSV is what a Brazilian spreadsheet exports: `;` separators, decimal
// commas, Portuguese headers, Windows-1252 text ("Frequência").
var ptBRCSV = "Nome;Latitude;Longitude;Altura (m);Frequ\xeancia;Raio_km;Observa\xe7\xe3o\r\n" +
	"Escola A;-22,9600;-43,2500;12;1800;15;ok\r\n" +
	"Posto B;-22,9500;-43,2400;8,5;2600;10;\r\n" +
	"Erro C;abc;-43,2400;8;2600;10;\r\n"

func TestBatchCSV(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	check := func(t *testing.T, res *response) {
		t.Helper()
		if res.status != http.StatusOK {
			t.Fatalf("%d %s", res.status, res.body)
		}
		got := decodeInto[batchSync](t, res)
		if len(got.Rows) != 3 {
			t.Fatalf("rows %+v", got.Rows)
		}
		if r := got.Rows[0]; r.ReceiverID != "Escola A" || r.Lat == nil || *r.Lat != -22.96 || r.HeightM == nil || *r.HeightM != 12 || r.TowerID == "" {
			t.Errorf("row 1: %+v", r)
		}
		if r := got.Rows[1]; r.HeightM == nil || *r.HeightM != 8.5 || r.FreqMHz == nil || *r.FreqMHz != 2600 {
			t.Errorf("row 2: %+v", r)
		}
		if r := got.Rows[2]; r.Status != batch.StatusError || len(r.Errors) == 0 {
			t.Errorf("row 3: %+v", r)
		}
		if len(got.IgnoredColumns) != 1 {
			t.Errorf("ignored columns %q, want the one unknown header", got.IgnoredColumns)
		}
	}
	t.Run("text/csv", func(t *testing.T) {
		check(t, h.do(t, "POST", "/batch_reports?engine=fspl", h.keys["pro"], map[string]string{"Content-Type": "text/csv"}, ptBRCSV))
	})
	t.Run("multipart", func(t *testing.T) {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		fw, _ := mw.CreateFormFile("file", "sites.csv")
		fw.Write([]byte(ptBRCSV))
		mw.WriteField("language", "pt-BR")
		mw.Close()
		check(t, h.do(t, "POST", "/batch_reports", h.keys["pro"], map[string]string{"Content-Type": mw.FormDataContentType()}, buf.String()))
	})
	t.Run("multipart without file", func(t *testing.T) {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		mw.WriteField("engine", "fspl")
		mw.Close()
		res := h.do(t, "POST", "/batch_reports", h.keys["pro"], map[string]string{"Content-Type": mw.FormDataContentType()}, buf.String())
		assertFieldError(t, res, http.StatusUnprocessableEntity, "file")
	})
	t.Run("missing column", func(t *testing.T) {
		res := h.do(t, "POST", "/batch_reports", h.keys["pro"], map[string]string{"Content-Type": "text/csv"}, "lat;lon\n-22,9;-43,2\n")
		assertFieldError(t, res, http.StatusUnprocessableEntity, "frequency_mhz")
	})
	t.Run("unknown option", func(t *testing.T) {
		res := h.do(t, "POST", "/batch_reports?speed=fast", h.keys["pro"], map[string]string{"Content-Type": "text/csv"}, ptBRCSV)
		assertFieldError(t, res, http.StatusUnprocessableEntity, "speed")
	})
	t.Run("unsupported media type", func(t *testing.T) {
		res := h.do(t, "POST", "/batch_reports", h.keys["pro"], map[string]string{"Content-Type": "text/plain"}, ptBRCSV)
		assertFieldError(t, res, http.StatusUnsupportedMediaType, "Content-Type")
	})
}

type errorAnswer struct {
	Error struct {
		Code    string                 `json:"code"`
		Message string                 `json:"message"`
		Fields  []appliance.FieldError `json:"fields"`
		Limit   *int                   `json:"limit"`
		Count   *int                   `json:"count"`
	} `json:"error"`
}

func assertFieldError(t *testing.T, res *response, status int, field string) errorAnswer {
	t.Helper()
	if res.status != status {
		t.Fatalf("status %d, want %d: %s", res.status, status, res.body)
	}
	e := decodeInto[errorAnswer](t, res)
	if !hasFieldError(e.Error.Fields, field) {
		t.Errorf("error names %+v, want %q", e.Error.Fields, field)
	}
	return e
}

// The SPEC §7 message of a batch over its limit, as a client parses it.
var limitMessage = regexp.MustCompile(`^batch has (\d+) rows; the (\w+) tier allows at most (\d+) rows per job$`)

func TestBatchTierLimits(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	t.Run("Free is forbidden", func(t *testing.T) {
		res := h.do(t, "POST", "/batch_reports", h.keys["free"], nil, `{"rows":[`+batchRows(1)+`]}`)
		if res.status != http.StatusForbidden || !strings.Contains(string(res.body), "Free tier") {
			t.Fatalf("%d %s", res.status, res.body)
		}
	})
	for _, tc := range []struct {
		name, contentType, body string
	}{
		{"JSON", "application/json", `{"rows":[` + batchRows(2001) + `]}`},
		{"CSV", "text/csv", "lat,lon,frequency_mhz\n" + strings.Repeat("-22.9,-43.2,1800\n", 2001)},
	} {
		t.Run("Pro over the limit as "+tc.name, func(t *testing.T) {
			res := h.do(t, "POST", "/batch_reports", h.keys["pro"], map[string]string{"Content-Type": tc.contentType}, tc.body)
			e := assertFieldError(t, res, http.StatusBadRequest, "rows")
			if e.Error.Code != "batch_over_limit" || e.Error.Limit == nil || *e.Error.Limit != 2000 || e.Error.Count == nil || *e.Error.Count != 2001 {
				t.Errorf("%s", res.body)
			}
			m := limitMessage.FindStringSubmatch(e.Error.Message)
			if m == nil || m[1] != "2001" || m[2] != "Pro" || m[3] != "2000" {
				t.Errorf("message %q does not parse", e.Error.Message)
			}
		})
	}
	t.Run("empty", func(t *testing.T) {
		assertFieldError(t, h.do(t, "POST", "/batch_reports", h.keys["pro"], nil, `{"rows":[]}`), http.StatusUnprocessableEntity, "rows")
	})
	t.Run("wrong type names the row field", func(t *testing.T) {
		assertFieldError(t, h.do(t, "POST", "/batch_reports", h.keys["pro"], nil, `{"rows":[{"receiver":{"lat":"x"}}]}`), http.StatusUnprocessableEntity, "rows[0].receiver.lat")
	})
}

type refusingQueue struct{}

func (refusingQueue) Enqueue(context.Context, *appliance.Job) error {
	return errors.New("disk full")
}

func TestBatchQueueRefusalIs503(t *testing.T) {
	h := newHarness(t, harnessOptions{enqueue: func(batch.Enqueuer) batch.Enqueuer { return refusingQueue{} }})
	res := h.do(t, "POST", "/batch_reports", h.keys["pro"], nil, `{"rows":[`+batchRows(101)+`]}`)
	if res.status != http.StatusServiceUnavailable {
		t.Fatalf("%d %s", res.status, res.body)
	}
	if e := decodeInto[errorAnswer](t, res); e.Error.Code != "unavailable" || !strings.Contains(e.Error.Message, "queue") {
		t.Errorf("%s", res.body)
	}
	// 100 rows still run synchronously: no queue needed.
	if res := h.do(t, "POST", "/batch_reports", h.keys["pro"], nil, `{"rows":[`+batchRows(100)+`]}`); res.status != http.StatusOK {
		t.Errorf("100 rows: %d", res.status)
	}
}

func submitJob(t *testing.T, h *harness, key, body string) jobAnswer {
	t.Helper()
	res := h.do(t, "POST", "/batch_reports", key, nil, body)
	if res.status != http.StatusAccepted {
		t.Fatalf("%d %s", res.status, res.body)
	}
	// The 202 body is the job object itself (issue 20), repeated under
	// the deprecated member "job".
	j := decodeInto[jobAnswer](t, res)
	if old := decodeInto[struct {
		Job jobAnswer `json:"job"`
	}](t, res).Job; !reflect.DeepEqual(old, j) {
		t.Fatalf("deprecated job member %+v differs from the job %+v", old, j)
	}
	if res.header.Get("Location") != "/jobs/"+j.ID || j.State != "queued" {
		t.Fatalf("Location %q, job %+v", res.header.Get("Location"), j)
	}
	return j
}

func waitFor(t *testing.T, h *harness, key, id string) jobAnswer {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		// Polls are rate-limited (appliance/quota) at the harness clock:
		// each one moves it on by a second.
		h.clock.advance(time.Second)
		res := h.do(t, "GET", "/jobs/"+id, key, nil, "")
		if res.status != http.StatusOK {
			t.Fatalf("%d %s", res.status, res.body)
		}
		j := decodeInto[jobAnswer](t, res)
		switch j.State {
		case "succeeded", "failed", "canceled":
			return j
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %+v not finished", j)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestBatchJobBundle(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	j := submitJob(t, h, h.keys["pro"], `{"rows":[`+batchRows(120)+`],"options":{"language":"pt-BR"}}`)
	if j.Lane != "standard" || j.Progress.Total != 120 {
		t.Errorf("job %+v", j)
	}
	done := waitFor(t, h, h.keys["pro"], j.ID)
	if done.State != "succeeded" || done.Progress.Done != 120 || done.Result == nil || done.Result.DownloadURL != "/jobs/"+j.ID+"/download" {
		t.Fatalf("%+v", done)
	}
	var sum batch.Summary
	if err := json.Unmarshal(done.Summary, &sum); err != nil {
		t.Fatalf("summary %s: %v", done.Summary, err)
	}
	res := h.do(t, "GET", done.Result.DownloadURL, h.keys["pro"], nil, "")
	if res.status != http.StatusOK || res.header.Get("Content-Type") != "application/zip" {
		t.Fatalf("%d %s", res.status, res.header)
	}
	digest := sha256.Sum256(res.body)
	if cl, _ := strconv.Atoi(res.header.Get("Content-Length")); cl != len(res.body) || int64(cl) != done.Result.Bytes {
		t.Errorf("Content-Length %q, body %d, job says %d", res.header.Get("Content-Length"), len(res.body), done.Result.Bytes)
	}
	if res.header.Get("X-Checksum-SHA256") != hex.EncodeToString(digest[:]) || done.Result.SHA256 != hex.EncodeToString(digest[:]) {
		t.Errorf("checksum header %q, job %q, body %x", res.header.Get("X-Checksum-SHA256"), done.Result.SHA256, digest)
	}
	zr, err := zip.NewReader(bytes.NewReader(res.body), int64(len(res.body)))
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]*zip.File{}
	pdfs := 0
	for _, f := range zr.File {
		names[f.Name] = f
		if strings.HasPrefix(f.Name, "reports/") {
			pdfs++
		}
	}
	for _, want := range []string{"results.csv", "results.geojson", "results.kml", "results.shp", "results.shx", "results.dbf", "results.prj", "results.cpg", "summary.pdf", "manifest.json"} {
		if names[want] == nil {
			t.Errorf("bundle has no %s", want)
		}
	}
	if pdfs == 0 || pdfs != sum.PDFsIncluded {
		t.Errorf("%d row PDFs, summary says %d", pdfs, sum.PDFsIncluded)
	}
	// pdftotext reads a row report: the disclaimer in Portuguese.
	bin := requireCLI(t, "pdftotext", "poppler-utils")
	rc, err := names["reports/row-00001.pdf"].Open()
	if err != nil {
		t.Fatal(err)
	}
	var pdf bytes.Buffer
	pdf.ReadFrom(rc)
	rc.Close()
	p := filepath.Join(t.TempDir(), "row.pdf")
	os.WriteFile(p, pdf.Bytes(), 0o600)
	out, err := exec.Command(bin, "-layout", p, "-").Output()
	if err != nil || !strings.Contains(string(out), "não substitui o parecer técnico") {
		t.Errorf("pdftotext: %v\n%s", err, out)
	}
	// A finished job cannot be canceled.
	if res := h.do(t, "POST", "/jobs/"+j.ID+"/cancel", h.keys["pro"], nil, ""); res.status != http.StatusConflict {
		t.Errorf("cancel finished job: %d %s", res.status, res.body)
	}
	// A conditional download with the ETag is a 304.
	if res := h.do(t, "GET", done.Result.DownloadURL, h.keys["pro"], map[string]string{"If-None-Match": `"` + done.Result.SHA256 + `"`}, ""); res.status != http.StatusNotModified {
		t.Errorf("If-None-Match: %d", res.status)
	}
}

func TestBatchJobCancel(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	j := submitJob(t, h, h.keys["pro"], `{"rows":[`+batchRows(2000)+`],"options":{"pdfs":false}}`)
	res := h.do(t, "POST", "/jobs/"+j.ID+"/cancel", h.keys["pro"], nil, "")
	switch res.status {
	case http.StatusOK, http.StatusAccepted:
	default:
		t.Fatalf("cancel: %d %s", res.status, res.body)
	}
	if got := waitFor(t, h, h.keys["pro"], j.ID); got.State != "canceled" && got.State != "succeeded" {
		t.Fatalf("after cancel: %+v", got)
	} else if got.State == "canceled" {
		if res := h.do(t, "GET", "/jobs/"+j.ID+"/download", h.keys["pro"], nil, ""); res.status != http.StatusConflict {
			t.Errorf("download of a canceled job: %d %s", res.status, res.body)
		}
	}
	if res := h.do(t, "POST", "/jobs/"+j.ID+"/cancel", h.keys["pro"], nil, `{"x":1}`); res.status != http.StatusUnprocessableEntity {
		t.Errorf("cancel with a body: %d %s", res.status, res.body)
	}
}

// TestTenantIsolationJobs is the isolation table of the job routes: another
// tenant's job is a 404 on every route, exactly like a job that does not
// exist, and nothing of it is echoed.
func TestTenantIsolationJobs(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	j := submitJob(t, h, h.keys["pro"], `{"rows":[`+batchRows(101)+`],"options":{"pdfs":false}}`)
	waitFor(t, h, h.keys["pro"], j.ID)
	for _, tc := range []struct{ name, method, url string }{
		{"status", "GET", "/jobs/" + j.ID},
		{"download", "GET", "/jobs/" + j.ID + "/download"},
		{"cancel", "POST", "/jobs/" + j.ID + "/cancel"},
		{"missing job", "GET", "/jobs/job_doesnotexist"},
	} {
		for _, key := range []string{"internal", "free"} {
			t.Run(tc.name+" as "+key, func(t *testing.T) {
				res := h.do(t, tc.method, tc.url, h.keys[key], nil, "")
				if res.status != http.StatusNotFound {
					t.Fatalf("%d %s", res.status, res.body)
				}
				if strings.Contains(string(res.body), "s101") || strings.Contains(string(res.body), `"state"`) {
					t.Errorf("404 leaks the job: %s", res.body)
				}
			})
		}
	}
	if res := h.do(t, "GET", "/jobs/"+j.ID, h.keys["pro"], nil, ""); res.status != http.StatusOK {
		t.Errorf("owner: %d", res.status)
	}
}

// TestIssue20_BatchAcceptedIsTheJobObject: the 202 of POST /batch_reports
// (and of POST /plan_repeater) is the job object of GET /jobs/{id}: the
// same members (plus the batch's ignored_columns and the deprecated job
// copy), with the same values for the members a worker does not change.
// Before, the 202 nested it under "job" and the two read differently.
func TestIssue20_BatchAcceptedIsTheJobObject(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	pro := h.keys["pro"]
	for _, c := range []struct{ url, body string }{
		{"/batch_reports", `{"rows":[` + batchRows(101) + `],"options":{"pdfs":false}}`},
		{"/plan_repeater", planBody(4)},
	} {
		t.Run(c.url, func(t *testing.T) {
			res := h.do(t, "POST", c.url, pro, nil, c.body)
			if res.status != http.StatusAccepted {
				t.Fatalf("%d %s", res.status, res.body)
			}
			accepted := res.json(t)
			h.clock.advance(time.Second)
			got := h.do(t, "GET", res.header.Get("Location"), pro, nil, "")
			if got.status != http.StatusOK {
				t.Fatalf("GET %s: %d %s", res.header.Get("Location"), got.status, got.body)
			}
			job := got.json(t)
			for k := range job {
				if _, ok := accepted[k]; !ok {
					t.Errorf("the 202 lacks the job member %q", k)
				}
			}
			for k := range accepted {
				if _, ok := job[k]; !ok && k != "ignored_columns" && k != "warnings" && k != "job" {
					t.Errorf("the 202 has %q, GET /jobs/{id} does not", k)
				}
			}
			for _, k := range []string{"id", "kind", "lane", "created_at", "max_attempts"} {
				if !reflect.DeepEqual(accepted[k], job[k]) {
					t.Errorf("%s: 202 %v, GET %v", k, accepted[k], job[k])
				}
			}
			old, _ := accepted["job"].(map[string]any)
			delete(accepted, "job")
			delete(accepted, "ignored_columns")
			delete(accepted, "warnings")
			if !reflect.DeepEqual(old, accepted) {
				t.Errorf("the deprecated job member %v differs from the job %v", old, accepted)
			}
		})
	}
}

// TestIssue20_AcceptedSchemasAreTheJob: the OpenAPI schemas of the 202
// answers (BatchAccepted, PlanAccepted) hold every property of Job with
// the same schema, and require what Job requires, so that the document
// says what the code answers: the job object.
func TestIssue20_AcceptedSchemasAreTheJob(t *testing.T) {
	d := loadOpenAPI(t)
	job := obj(d.root, "components", "schemas", "Job")
	for _, name := range []string{"BatchAccepted", "PlanAccepted"} {
		acc := obj(d.root, "components", "schemas", name)
		jp, ap := obj(job, "properties"), obj(acc, "properties")
		for k, v := range jp {
			if !reflect.DeepEqual(ap[k], v) {
				t.Errorf("%s.%s differs from Job.%s", name, k, k)
			}
		}
		for _, r := range anySlice(job["required"]) {
			if !slices.Contains(anySlice(acc["required"]), r) {
				t.Errorf("%s does not require %v", name, r)
			}
		}
	}
}
