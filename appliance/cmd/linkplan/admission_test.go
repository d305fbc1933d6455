//go:build systemtools

package main_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/tenancy"
	"linkplan/store"
)

// issueKeysOffline issues tenant keys (one tenant each) straight into the
// store of dataDir, before a server holds it: the admin route spends one
// TOTP step per key.
func issueKeysOffline(t *testing.T, dataDir string, tier appliance.Tier, n int) []string {
	t.Helper()
	db, err := store.Open(dataDir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	auth := tenancy.New(db, nil)
	keys := make([]string, n)
	for i := range keys {
		if keys[i], _, err = auth.Issue(tenancy.IssueRequest{Tier: tier, Role: appliance.RoleTenant,
			Owner: fmt.Sprintf("admission test %d", i), Email: "admission@example.com"}); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// mapStream is an open POST /coverage/heatmap stream.
type mapStream struct {
	res  *http.Response
	rd   *bufio.Reader
	id   string
	last string // type of the last event read
}

func openMap(t *testing.T, s *server, key, body string) *mapStream {
	t.Helper()
	req, err := http.NewRequest("POST", s.base+"/coverage/heatmap", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-API-Key", key)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	return &mapStream{res: res, rd: bufio.NewReader(res.Body), id: res.Header.Get("X-Map-Id")}
}

// until reads events until one of type typ (its data) or the stream's end
// (ok false).
func (m *mapStream) until(t *testing.T, typ string) (data string, ok bool) {
	t.Helper()
	for {
		line, err := m.rd.ReadString('\n')
		if err != nil {
			return "", false
		}
		if v, found := strings.CutPrefix(line, "event: "); found {
			m.last = strings.TrimSpace(v)
		}
		if v, found := strings.CutPrefix(line, "data: "); found && m.last == typ {
			return strings.TrimSpace(v), true
		}
	}
}

const smallMap = `{"site":{"lat":-22.93,"lon":-43.30,"height_m":30,"eirp_dbm":58},"frequency_mhz":1800,"radius_km":3,"resolution_m":90,"engine":"fspl"}`

// TestIssue20_HeavyWorkHasABudget is issue 20's finding "heavy work has no
// budget" on the binary, functionally (the figures are make
// bench-admission's): with one worker slot and a wait queue of one, a
// second tenant's map waits with its queue position in the stream and in
// GET, a third is refused with 503 + Retry-After; at a stop the computing
// and the queued map end "interrupted by a restart"; after the restart a
// finished map answers as before (summary and export) and the interrupted
// ones say so, not "unknown".
func TestIssue20_HeavyWorkHasABudget(t *testing.T) {
	bin := binary(t)
	dataDir := t.TempDir()
	keys := issueKeysOffline(t, dataDir, appliance.TierPro, 4)
	flags := []string{"--heavy-workers", "1", "--heavy-queue", "1"}
	s := startServe(t, bin, dataDir, flags...)

	done := openMap(t, s, keys[0], smallMap)
	if _, ok := done.until(t, "summary"); !ok || done.id == "" {
		t.Fatalf("the first map did not finish: %d %s", done.res.StatusCode, s.stderr.String())
	}
	// fspl at 30 km computes for many seconds on the one slot.
	long := openMap(t, s, keys[1], `{"site":{"lat":-22.93,"lon":-43.30,"height_m":30,"eirp_dbm":58},"frequency_mhz":900,"radius_km":30,"resolution_m":90,"engine":"fspl"}`)
	if _, ok := long.until(t, "progress"); !ok {
		t.Fatalf("the long map did not start computing: %d", long.res.StatusCode)
	}
	queued := openMap(t, s, keys[2], smallMap)
	data, ok := queued.until(t, "queued")
	if !ok || !strings.Contains(data, `"queue_position":1`) {
		t.Fatalf("the second map: %d, queued event %q", queued.res.StatusCode, data)
	}
	if r := s.call(t, "GET", "/coverage/heatmap/"+queued.id, map[string]string{"X-API-Key": keys[2]}, ""); r.status != http.StatusOK ||
		!strings.Contains(string(r.body), `"state":"queued"`) || !strings.Contains(string(r.body), `"queue_position":1`) {
		t.Errorf("GET of the queued map: %d %s", r.status, r.body)
	}
	r := s.call(t, "POST", "/coverage/heatmap", map[string]string{"X-API-Key": keys[3], "Content-Type": "application/json"}, smallMap)
	if ra, err := strconv.Atoi(r.header.Get("Retry-After")); r.status != http.StatusServiceUnavailable || err != nil || ra < 1 ||
		!strings.Contains(string(r.body), `"code":"unavailable"`) {
		t.Errorf("a third map with the queue full: %d Retry-After %q %s", r.status, r.header.Get("Retry-After"), r.body)
	}

	if err := s.stop(t); err != nil {
		t.Fatalf("stop: %v\n%s", err, s.stderr.String())
	}
	for _, m := range []*mapStream{long, queued} {
		data, ok := m.until(t, "error")
		if !ok || !strings.Contains(data, `"code":"interrupted"`) {
			t.Errorf("map %s at the stop: %q (last event %s)", m.id, data, m.last)
		}
	}

	s = startServe(t, bin, dataDir, flags...)
	r = s.call(t, "GET", "/coverage/heatmap/"+done.id, map[string]string{"X-API-Key": keys[0]}, "")
	var got struct {
		State   string          `json:"state"`
		Summary json.RawMessage `json:"summary"`
	}
	if err := json.Unmarshal(r.body, &got); err != nil || r.status != http.StatusOK || got.State != "done" || string(got.Summary) == "null" {
		t.Errorf("the finished map after the restart: %d %s", r.status, r.body)
	}
	if r := s.call(t, "GET", "/coverage/heatmap/"+done.id+"/export?format=geotiff", map[string]string{"X-API-Key": keys[0]}, ""); r.status != http.StatusOK || len(r.body) < 1000 {
		t.Errorf("export after the restart: %d, %d bytes", r.status, len(r.body))
	}
	for i, m := range map[int]*mapStream{1: long, 2: queued} {
		r := s.call(t, "GET", "/coverage/heatmap/"+m.id, map[string]string{"X-API-Key": keys[i]}, "")
		if r.status != http.StatusOK || !strings.Contains(string(r.body), `"state":"failed"`) {
			t.Errorf("interrupted map %s after the restart: %d %s", m.id, r.status, r.body)
		}
		ev := s.call(t, "GET", "/coverage/heatmap/"+m.id+"/events", map[string]string{"X-API-Key": keys[i]}, "")
		if !strings.Contains(string(ev.body), "interrupted by a restart") {
			t.Errorf("events of map %s after the restart lack the interruption:\n%s", m.id, tail(ev.body))
		}
	}
	if r := s.call(t, "GET", "/coverage/heatmap/"+done.id, map[string]string{"X-API-Key": keys[1]}, ""); r.status != http.StatusNotFound {
		t.Errorf("another tenant's map after the restart: %d", r.status)
	}
	if err := s.stop(t); err != nil {
		t.Fatal(err)
	}
}

func tail(b []byte) string {
	if len(b) > 600 {
		b = b[len(b)-600:]
	}
	return string(b)
}
