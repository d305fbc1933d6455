package api_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/admission"
)

// openStream posts a heatmap and returns the open response (the caller
// closes its body: the map is canceled when its last stream leaves).
func openStream(t *testing.T, h *harness, key, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest("POST", h.srv.URL+"/coverage/heatmap", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-API-Key", key)
	req.Header.Set("Content-Type", "application/json")
	res, err := h.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestIssue20_HeatmapQueuePositionAnd503: over the heavy-work budget a map
// is queued with its position in the stream (a queued event) and in GET
// /coverage/heatmap/{id}; past the wait queue's bound the start is a 503
// with Retry-After and the structured error body.
func TestIssue20_HeatmapQueuePositionAnd503(t *testing.T) {
	h := newHarness(t, harnessOptions{heavy: &admission.Options{Workers: 1, MaxQueue: 1}})
	h.issue(t, "pro2", appliance.TierPro, appliance.RoleTenant)
	h.issue(t, "pro3", appliance.TierPro, appliance.RoleTenant)
	// fspl at 30 km computes for seconds on the one worker slot.
	long := `{"site":{"lat":-22.93,"lon":-43.30,"height_m":30,"eirp_dbm":58},"frequency_mhz":900,"radius_km":30,"resolution_m":90,"engine":"fspl"}`
	a := openStream(t, h, h.keys["pro"], long)
	defer a.Body.Close()
	b := openStream(t, h, h.keys["pro2"], heatmapBody)
	defer b.Body.Close()
	if a.StatusCode != http.StatusOK || b.StatusCode != http.StatusOK {
		t.Fatalf("starts: %d, %d", a.StatusCode, b.StatusCode)
	}
	bid := b.Header.Get("X-Map-Id")
	rd := bufio.NewReader(b.Body)
	var queued struct {
		Position int    `json:"queue_position"`
		Message  string `json:"message"`
	}
	for typ := ""; ; {
		line, err := rd.ReadString('\n')
		if err != nil {
			t.Fatalf("stream of the second map ended before a queued event: %v", err)
		}
		if v, ok := strings.CutPrefix(line, "event: "); ok {
			typ = strings.TrimSpace(v)
		}
		if v, ok := strings.CutPrefix(line, "data: "); ok && typ == "queued" {
			if err := json.Unmarshal([]byte(v), &queued); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	if queued.Position != 1 || queued.Message == "" {
		t.Errorf("queued event %+v", queued)
	}
	st := h.do(t, "GET", "/coverage/heatmap/"+bid, h.keys["pro2"], nil, "")
	if st.status != http.StatusOK || !bytes.Contains(st.body, []byte(`"state":"queued"`)) || !bytes.Contains(st.body, []byte(`"queue_position":1`)) {
		t.Errorf("GET of the queued map: %d %s", st.status, st.body)
	}
	c := h.do(t, "POST", "/coverage/heatmap", h.keys["pro3"], map[string]string{"Content-Type": "application/json"}, heatmapBody)
	ra, err := strconv.Atoi(c.header.Get("Retry-After"))
	if c.status != http.StatusServiceUnavailable || err != nil || ra < 1 || !bytes.Contains(c.body, []byte(`"code":"unavailable"`)) ||
		!bytes.Contains(c.body, []byte("heavy computations are waiting")) {
		t.Errorf("start with a full queue: %d Retry-After %q %s", c.status, c.header.Get("Retry-After"), c.body)
	}
}
