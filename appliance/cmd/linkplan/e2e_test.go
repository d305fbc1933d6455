//go:build systemtools

package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"linkplan/appliance/cmd/linkplan/internal/realbin"
)

// The tests in this file are black-box: they build the linkplan binary and
// run it as a user would (appliance/cmd/linkplan/internal/realbin). They
// are skipped with -short.
//
// Where a new real-binary test goes: a console (Chromium) test into
// browsertest; a CLI or serve test here. It calls t.Parallel() when it
// starts its own appliance (startServe on its own t.TempDir(); the kernel
// picks the port) and decides nothing by the clock; it stays serial when
// it kills a process at a time offset, reuses a port after a restart
// (freeAddr) or measures a duration (the drills of issues 21, 24 and 28).

const e2eVersion = realbin.Version

func TestMain(m *testing.M) {
	code := m.Run()
	if synthgen.dir != "" {
		_ = os.RemoveAll(synthgen.dir) // issue20_models_test.go
	}
	os.Exit(code)
}

// binary returns the linkplan binary of the current sources, built once
// for every test package of the run (realbin.Binary).
func binary(t testing.TB) string {
	t.Helper()
	return realbin.Binary(t)
}

// server is a running `linkplan serve` (realbin.Server) with the short
// names the tests of this package use.
type server struct {
	*realbin.Server
	base   string // http://127.0.0.1:port
	stderr *realbin.SyncBuffer
	cmd    *exec.Cmd
}

func wrapServer(s *realbin.Server) *server {
	return &server{Server: s, base: s.Base, stderr: s.Stderr, cmd: s.Cmd}
}

// startServe starts `linkplan serve` on dataDir and waits until
// /health/ready answers 200 (realbin.StartServe).
func startServe(t testing.TB, bin, dataDir string, extra ...string) *server {
	t.Helper()
	return wrapServer(realbin.StartServe(t, bin, dataDir, extra...))
}

// startServeUntil is startServe waiting for path to answer 200 (a warm
// standby answers /health/ready with 503: it waits for /health).
func startServeUntil(t testing.TB, bin, dataDir, path string, extra ...string) *server {
	t.Helper()
	return wrapServer(realbin.StartServeUntil(t, bin, dataDir, path, extra...))
}

// stop sends SIGTERM and returns the exit error (nil for status 0).
func (s *server) stop(t testing.TB) error {
	t.Helper()
	return s.Stop(t)
}

// runFor runs the binary with a time limit and returns its output and
// exit status (-1 when it had to be killed).
func runFor(t *testing.T, limit time.Duration, bin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return realbin.RunFor(t, limit, bin, args...)
}

type reply struct {
	status int
	header http.Header
	body   []byte
}

// call sends one request and checks that the response carries X-Request-Id.
func (s *server) call(t testing.TB, method, path string, header map[string]string, body string) reply {
	t.Helper()
	r := s.Call(t, method, path, header, body)
	return reply{status: r.Status, header: r.Header, body: r.Body}
}

// checkLinkResult checks that one tower of an /analyze_link answer carries
// every SPEC §2.3 field with its JSON type.
func checkLinkResult(t *testing.T, where string, v any) {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%s: %T, want an object", where, v)
	}
	types := map[string]string{
		"tower_id": "string", "operator": "string", "distance_km": "number", "azimuth_deg": "number",
		"los_clear": "boolean", "fresnel_ok": "boolean", "path_loss_db": "number", "link_margin_db": "number",
		"engine": "string", "rx_power_dbm": "number",
	}
	for name, want := range types {
		x, present := m[name]
		if !present {
			t.Errorf("%s: field %s missing", where, name)
			continue
		}
		got := ""
		switch x.(type) {
		case string:
			got = "string"
		case float64:
			got = "number"
		case bool:
			got = "boolean"
		default:
			got = fmt.Sprintf("%T", x)
		}
		if got != want {
			t.Errorf("%s: %s is %s, want %s", where, name, got, want)
		}
	}
	if d, _ := m["distance_km"].(float64); d <= 0 || d > 20 {
		t.Errorf("%s: distance_km %v outside (0, 20]", where, m["distance_km"])
	}
	if a, _ := m["azimuth_deg"].(float64); a < 0 || a >= 360 {
		t.Errorf("%s: azimuth_deg %v", where, m["azimuth_deg"])
	}
}

func TestServeEndToEnd(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	dataDir := t.TempDir()
	s := startServe(t, bin, dataDir)

	if r := s.call(t, "GET", "/health", nil, ""); r.status != 200 || string(r.body) != `{"status":"healthy"}`+"\n" {
		t.Errorf("health: %d %q", r.status, r.body)
	}
	credPath := filepath.Join(dataDir, "admin-credentials.json")
	fi, err := os.Stat(credPath)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("%s has mode %o, want 600", credPath, fi.Mode().Perm())
	}
	credBytes, err := os.ReadFile(credPath)
	if err != nil {
		t.Fatal(err)
	}
	var cred struct {
		APIKey     string `json:"api_key"`
		TOTPSecret string `json:"totp_secret"`
	}
	if err := json.Unmarshal(credBytes, &cred); err != nil || cred.APIKey == "" || cred.TOTPSecret == "" {
		t.Fatalf("credentials %s: %v", credBytes, err)
	}

	code, err := totp.GenerateCode(cred.TOTPSecret, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	r := s.call(t, "POST", "/admin/keys", map[string]string{"X-API-Key": cred.APIKey, "X-Admin-Totp": code},
		`{"tier":"Pro","email":"e2e@example.com","owner":"E2E test","justification":"black-box test of the binary"}`)
	if r.status != http.StatusCreated {
		t.Fatalf("issue key: %d %s", r.status, r.body)
	}
	var issued struct {
		APIKey string `json:"api_key"`
		Tier   string `json:"tier"`
	}
	if err := json.Unmarshal(r.body, &issued); err != nil || issued.Tier != "Pro" || !strings.HasPrefix(issued.APIKey, "lp_live_") {
		t.Fatalf("issued %s: %v", r.body, err)
	}

	// The learned models of the binary: the shipped Dortmund model refuses
	// Rio and the synthetic ridge answers; the audit gate reports the real-data claim.
	r = s.call(t, "POST", "/coverage/predict", map[string]string{"X-API-Key": issued.APIKey, "Content-Type": "application/json"},
		`{"tx_lat":-22.95,"tx_lon":-43.21,"tx_height_m":30,"rx_lat":-22.92,"rx_lon":-43.19,"frequency_mhz":1800,"tx_power_dbm":43}`)
	if r.status != http.StatusOK || !strings.Contains(string(r.body), `"model_source":"local-model"`) || !strings.Contains(string(r.body), `"inside":false`) {
		t.Errorf("coverage/predict: %d %s", r.status, r.body)
	}
	if r := s.call(t, "GET", "/health/audit-gate", nil, ""); r.status != http.StatusOK || !strings.Contains(string(r.body), `"data_provenance":"real"`) {
		t.Errorf("audit gate: %d %s", r.status, r.body)
	}

	analyze := func(t *testing.T, s *server) {
		t.Helper()
		r := s.call(t, "POST", "/analyze_link", map[string]string{"X-API-Key": issued.APIKey, "Content-Type": "application/json"},
			`{"receiver":{"lat":-22.95,"lon":-43.20,"height":10},"frequency_mhz":1800,"max_distance_km":20}`)
		if r.status != http.StatusOK {
			t.Fatalf("analyze_link: %d %s", r.status, r.body)
		}
		var a map[string]any
		if err := json.Unmarshal(r.body, &a); err != nil {
			t.Fatal(err)
		}
		checkLinkResult(t, "best_tower", a["best_tower"])
		alts, ok := a["alternatives"].([]any)
		if !ok || len(alts) == 0 || len(alts) > 5 {
			t.Errorf("alternatives: %v", a["alternatives"])
		}
		for i, alt := range alts {
			checkLinkResult(t, fmt.Sprintf("alternatives[%d]", i), alt)
		}
		if a["engine_used"] != "fspl" {
			t.Errorf("engine_used %v", a["engine_used"])
		}
		prov, ok := a["data_provenance"].(map[string]any)
		if !ok {
			t.Fatalf("data_provenance %v", a["data_provenance"])
		}
		if terr, _ := prov["terrain"].(string); !strings.Contains(terr, "S23W044") {
			t.Errorf("data_provenance.terrain %q", prov["terrain"])
		}
		if _, ok := prov["synthetic_towers_in_result"].(float64); !ok {
			t.Errorf("data_provenance.synthetic_towers_in_result %v", prov["synthetic_towers_in_result"])
		}
	}
	analyze(t, s)
	// The AI routes without --ai-provider-url: the template explainer, the
	// disclaimer last, and no outbound call (llm_inference inactive).
	r = s.call(t, "POST", "/ai/chat", map[string]string{"X-API-Key": issued.APIKey, "Content-Type": "application/json"},
		`{"analysis":{"receiver":{"lat":-22.95,"lon":-43.20,"height":10},"frequency_mhz":1800,"max_distance_km":20}}`)
	if r.status != http.StatusOK || !strings.Contains(string(r.body), `"outcome":"template"`) ||
		!strings.Contains(string(r.body), "não substitui o parecer técnico do engenheiro responsável.\"") {
		t.Errorf("ai chat: %d %.400s", r.status, r.body)
	}
	if r := s.call(t, "POST", "/analyze_link", nil, `{}`); r.status != http.StatusUnauthorized || !bytes.Contains(r.body, []byte(`"code":"unauthenticated"`)) {
		t.Errorf("without a key: %d %s", r.status, r.body)
	}

	t.Run("second serve on the same data dir fails fast", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		start := time.Now()
		cmd := exec.CommandContext(ctx, bin, "serve", "--addr", "127.0.0.1:0", "--data-dir", dataDir)
		out, err := cmd.CombinedOutput()
		took := time.Since(start)
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 {
			t.Fatalf("exit: %v (ctx %v)\n%s", err, ctx.Err(), out)
		}
		if !strings.Contains(string(out), "locked") {
			t.Errorf("the error does not say the database is locked:\n%s", out)
		}
		if took > 15*time.Second {
			t.Errorf("took %v to fail", took)
		}
	})

	// The month's calls of the key's tenant, as GET /v1/me/quota reports
	// them (the quota route itself is not counted).
	calls := func(t *testing.T, s *server) int {
		t.Helper()
		r := s.call(t, "GET", "/v1/me/quota", map[string]string{"X-API-Key": issued.APIKey}, "")
		var q struct {
			Counters []struct {
				Name string `json:"name"`
				Used int    `json:"used"`
			} `json:"counters"`
		}
		if err := json.Unmarshal(r.body, &q); err != nil || r.status != http.StatusOK || len(q.Counters) == 0 || q.Counters[0].Name != "calls" {
			t.Fatalf("quota: %d %s", r.status, r.body)
		}
		return q.Counters[0].Used
	}
	before := calls(t, s)
	if before < 1 {
		t.Errorf("calls used %d after an analysis", before)
	}
	if err := s.stop(t); err != nil {
		t.Fatalf("SIGTERM: exit %v\n%s", err, s.stderr.String())
	}
	// a clean stop, and its line is the last: everything is released
	// (the database last) before it, as docs/OPERATIONS.md says
	if lines := strings.Split(strings.TrimSpace(s.stderr.String()), "\n"); !strings.Contains(lines[len(lines)-1], `msg="linkplan stopped"`) {
		t.Errorf("the log does not end with the clean stop:\n%s", s.stderr.String())
	}

	// Restart: the admin credentials stay, and the issued key still works.
	s2 := startServe(t, bin, dataDir)
	after, err := os.ReadFile(credPath)
	if err != nil || !bytes.Equal(after, credBytes) {
		t.Errorf("credentials changed across a restart (%v)", err)
	}
	// The counts survive the restart (written by the clean stop).
	if got := calls(t, s2); got != before {
		t.Errorf("calls used %d after the restart, %d before", got, before)
	}
	analyze(t, s2)
	if got := calls(t, s2); got != before+1 {
		t.Errorf("calls used %d after one more analysis, want %d", got, before+1)
	}
	if err := s2.stop(t); err != nil {
		t.Errorf("second SIGTERM: %v", err)
	}
}
