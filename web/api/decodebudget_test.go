package api_test

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"image"
	"image/png"
	"net/http"
	"strings"
	"sync"
	"testing"

	"linkplan/appliance/decodebudget"
)

// TestDecodeBudget: the appliance-wide decode budget (issue 20, scope 3)
// refuses a body it cannot hold now with 503, Retry-After and a message
// naming the budget, and a body larger than the whole budget with 413 and
// no Retry-After (rvapi finding 4); a body within it is read; every request gives back what it
// held, whatever its answer.
func TestDecodeBudget(t *testing.T) {
	budget := decodebudget.New(256 << 10)
	h := newHarness(t, harnessOptions{decode: budget, unmetered: true})
	pro := h.keys["pro"]
	link := `{"receiver":{"lat":-22.9,"lon":-43.2,"height":10},"frequency_mhz":700,"max_distance_km":5,"operator":"` + strings.Repeat("x", 300<<10) + `"}`
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("lat,lon,rsrp,cellFreq\n-22.93,-43.2,-95,1800\n"))
	zw.Close()
	dtGzip, ctGzip := driveTestBody(t, gz.String(), dtForm)
	var big bytes.Buffer // 2000×2000 16-bit pixels: 32 MB decoded from a few KiB
	if err := png.Encode(&big, image.NewNRGBA64(image.Rect(0, 0, 2000, 2000))); err != nil {
		t.Fatal(err)
	}
	logo := `{"logo":{"media_type":"image/png","data_base64":"` + base64.StdEncoding.EncodeToString(big.Bytes()) + `"}}`
	cases := []struct {
		name, url, ct, body string
		status              int
	}{
		// a body larger than the whole budget can never fit: 413, not a
		// 503 that no retry passes (rvapi finding 4)
		{"a JSON body over the whole budget", "/analyze_link", "application/json", link, http.StatusRequestEntityTooLarge},
		{"a JSON body over what the budget has left", "/analyze_link", "application/json", link[:200<<10], http.StatusServiceUnavailable},
		{"a JSON body within it", "/analyze_link", "application/json", `{"receiver":{"lat":-22.9,"lon":-43.2,"height":10},"frequency_mhz":700,"max_distance_km":5}`, http.StatusOK},
		// a gzip stream is charged its inflater and its longest record
		// (512 KiB), more than this budget
		{"a gzip drive test over the budget", "/coverage/observations/drivetest", ctGzip, dtGzip, http.StatusServiceUnavailable},
		{"a PNG logo whose pixels are over the budget", "/tenant/branding", "application/json", logo, http.StatusServiceUnavailable},
		{"a CSV batch over the whole budget", "/batch_reports", "text/csv", "lat,lon,frequency_mhz\n" + strings.Repeat("-22.9,-43.2,700\n", 20_000), http.StatusRequestEntityTooLarge},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			method := "POST"
			if c.url == "/tenant/branding" {
				method = "PUT"
			}
			if strings.Contains(c.name, "has left") {
				other := budget.Lease() // another request holds 100 KiB
				if err := other.Grow(100<<10, "another body"); err != nil {
					t.Fatal(err)
				}
				defer other.Release()
			}
			res := h.do(t, method, c.url, pro, map[string]string{"Content-Type": c.ct}, c.body)
			if res.status != c.status {
				t.Fatalf("status %d, want %d: %.300s", res.status, c.status, res.body)
			}
			if testing.Verbose() {
				t.Logf("%d %.400s", res.status, res.body)
			}
			if c.status == http.StatusServiceUnavailable {
				msg := res.json(t)["error"].(map[string]any)["message"].(string)
				if res.header.Get("Retry-After") == "" || !strings.Contains(msg, "256 KiB") {
					t.Errorf("Retry-After %q, message %q: want a Retry-After and the budget named", res.header.Get("Retry-After"), msg)
				}
			}
			if c.status == http.StatusRequestEntityTooLarge {
				msg := res.json(t)["error"].(map[string]any)["message"].(string)
				if res.header.Get("Retry-After") != "" || !strings.Contains(msg, "whole memory budget") || !strings.Contains(msg, "256 KiB") {
					t.Errorf("Retry-After %q, message %q: want no Retry-After and the whole budget named", res.header.Get("Retry-After"), msg)
				}
			}
			want := int64(0)
			if strings.Contains(c.name, "has left") {
				want = 100 << 10 // the other request's
			}
			if n := budget.InUse(); n != want {
				t.Errorf("%d bytes still charged after the answer, want %d", n, want)
			}
		})
	}
	// Requests at once never hold more than the budget together.
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			h.do(t, "POST", "/analyze_link", pro, map[string]string{"Content-Type": "application/json"}, link[:200<<10])
		})
	}
	wg.Wait()
	if budget.Peak() > budget.Limit() || budget.InUse() != 0 || budget.Refused() == 0 {
		t.Errorf("peak %d of %d, in use %d, refused %d: want within the limit, all given back, some refused", budget.Peak(), budget.Limit(), budget.InUse(), budget.Refused())
	}
}
