package main_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"
)

// The tests in this file are black-box: they build the linkplan binary and
// run it as a user would. They are skipped with -short.

const e2eVersion = "v0.0.0-e2e"

// built is the binary shared by the tests of one run (built once, removed
// by TestMain).
var built struct {
	once sync.Once
	dir  string
	path string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	stopBrowser() // the console browser tests' shared Chromium (console_browser_test.go)
	if built.dir != "" {
		_ = os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// binary builds linkplan (once per test run) with a stamped version and
// returns its path.
func binary(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the linkplan binary; skipped with -short")
	}
	built.once.Do(func() {
		built.dir, built.err = os.MkdirTemp("", "linkplan-e2e-")
		if built.err != nil {
			return
		}
		built.path = filepath.Join(built.dir, "linkplan")
		cmd := exec.Command("go", "build", "-o", built.path, "-ldflags", "-X main.Version="+e2eVersion, ".")
		if out, err := cmd.CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path
}

// syncBuffer is a bytes.Buffer safe for one writer and many readers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// server is a running `linkplan serve`.
type server struct {
	cmd    *exec.Cmd
	base   string // http://127.0.0.1:port
	stderr *syncBuffer
	done   chan error // receives the exit status once
	exited bool
}

var servingAddr = regexp.MustCompile(`msg="linkplan serving" addr=(127\.0\.0\.1:[0-9]+)`)

// startServe starts `linkplan serve` on dataDir and waits until
// /health/ready answers 200. The port is chosen by the kernel (--addr
// 127.0.0.1:0) and read from the start-up log, so that concurrent test runs
// cannot race for a port.
func startServe(t testing.TB, bin, dataDir string, extra ...string) *server {
	t.Helper()
	return startServeUntil(t, bin, dataDir, "/health/ready", extra...)
}

// startServeUntil is startServe waiting for path to answer 200 (a warm
// standby answers /health/ready with 503: it waits for /health).
func startServeUntil(t testing.TB, bin, dataDir, path string, extra ...string) *server {
	t.Helper()
	s := &server{stderr: &syncBuffer{}, done: make(chan error, 1)}
	s.cmd = exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0", "--data-dir", dataDir}, extra...)...)
	pr, pw := io.Pipe()
	s.cmd.Stderr = pw
	s.cmd.Stdout = io.Discard
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			line := sc.Text()
			_, _ = s.stderr.Write([]byte(line + "\n"))
			if m := servingAddr.FindStringSubmatch(line); m != nil {
				select {
				case addr <- m[1]:
				default:
				}
			}
		}
	}()
	go func() {
		err := s.cmd.Wait()
		_ = pw.Close()
		s.done <- err
	}()
	t.Cleanup(func() {
		if !s.exited {
			_ = s.cmd.Process.Kill()
			<-s.done
		}
	})
	select {
	case a := <-addr:
		s.base = "http://" + a
	case err := <-s.done:
		s.exited = true
		t.Fatalf("serve exited before serving: %v\n%s", err, s.stderr.String())
	case <-time.After(60 * time.Second):
		t.Fatalf("serve did not log its address within 60 s\n%s", s.stderr.String())
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := http.Get(s.base + path)
		if err == nil {
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return s
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("not ready within 30 s (last: %v)\n%s", err, s.stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stop sends SIGTERM and returns the exit error (nil for status 0).
func (s *server) stop(t testing.TB) error {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-s.done:
		s.exited = true
		return err
	case <-time.After(30 * time.Second):
		t.Fatalf("serve did not stop within 30 s of SIGTERM\n%s", s.stderr.String())
	}
	return nil
}

type reply struct {
	status int
	header http.Header
	body   []byte
}

// call sends one request and checks that the response carries X-Request-Id.
func (s *server) call(t testing.TB, method, path string, header map[string]string, body string) reply {
	t.Helper()
	req, err := http.NewRequest(method, s.base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	if res.Header.Get("X-Request-Id") == "" {
		t.Errorf("%s %s (%d): no X-Request-Id", method, path, res.StatusCode)
	}
	return reply{status: res.StatusCode, header: res.Header, body: b}
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
	if !strings.Contains(s.stderr.String(), "linkplan stopped") {
		t.Errorf("no clean stop in the log:\n%s", s.stderr.String())
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
