package api_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"linkplan/appliance"
)

// analyzeFSPL is a cheap JSON request of another tenant, whose body takes
// the appliance-wide decode budget.
const analyzeFSPL = `{"tower":{"lat":-22.95,"lon":-43.21,"height_m":30,"power":40},"receiver":{"lat":-22.96,"lon":-43.21,"height_m":1.5},"frequency_mhz":1800,"engine":"fspl"}`

// pendingUpload is a POST to url whose body (of Content-Length length;
// -1: chunked) only arrives through the returned writer.
type pendingUpload struct {
	w    *io.PipeWriter
	done chan *response
}

func startUpload(t *testing.T, h *harness, key, url string, length int64) *pendingUpload {
	t.Helper()
	pr, pw := io.Pipe()
	req, err := http.NewRequest("POST", h.srv.URL+url, pr)
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = length
	req.Header.Set("X-API-Key", key)
	p := &pendingUpload{w: pw, done: make(chan *response, 1)}
	go func() {
		res, err := h.srv.Client().Do(req)
		if err != nil {
			p.done <- &response{body: []byte(err.Error())}
			return
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		p.done <- &response{status: res.StatusCode, header: res.Header, body: b}
	}()
	t.Cleanup(func() { _ = pw.CloseWithError(io.ErrUnexpectedEOF) })
	return p
}

// answer waits up to d for the answer; nil when none came.
func (p *pendingUpload) answer(d time.Duration) *response {
	select {
	case res := <-p.done:
		return res
	case <-time.After(d):
		return nil
	}
}

// TestRVBld_UploadCheckedBeforeRead: POST /buildings/layers answers a
// key that may not upload, or a Content-Length over the key's own file
// cap, before a byte of the body is read (rvapi finding 3): a Free key
// announcing 128 MiB held the appliance's whole decode budget while its
// body trickled in, and every other tenant's request body answered 503.
func TestRVBld_UploadCheckedBeforeRead(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	cases := []struct {
		name, key, url string
		length         int64
		status         int
		want           string
	}{
		{"Free key announcing the route's limit", "free", "/buildings/layers?name=x", 128<<20 - 64, http.StatusForbidden, "Enterprise or Ultra"},
		{"Business key", "internal", "/buildings/layers?name=x", 1 << 20, http.StatusForbidden, "Enterprise or Ultra"},
		{"Enterprise key one byte over its cap", "enterprise", "/buildings/layers?name=x", 32<<20 + 1, http.StatusRequestEntityTooLarge, "limited to 33554432 bytes"},
		{"Enterprise key at the Ultra cap", "enterprise", "/buildings/layers?name=x", 128 << 20, http.StatusRequestEntityTooLarge, "limited to 33554432 bytes"},
		{"Enterprise key without a name", "enterprise", "/buildings/layers", 1 << 20, http.StatusUnprocessableEntity, `"field":"name"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := startUpload(t, h, h.keys[c.key], c.url, c.length)
			_, _ = p.w.Write([]byte("{")) // the body trickles
			// Meanwhile another tenant's request body is decoded.
			if other := h.do(t, "POST", "/analyze", h.keys["pro"], nil, analyzeFSPL); other.status != http.StatusOK {
				t.Errorf("while the upload is pending, another tenant's /analyze answers %d: %.300s", other.status, other.body)
			}
			res := p.answer(5 * time.Second)
			if res == nil {
				t.Fatalf("no answer before the body was sent: the body is read before the key and its cap are checked")
			}
			if res.status != c.status || !strings.Contains(string(res.body), c.want) {
				t.Fatalf("%d %s, want %d with %q", res.status, res.body, c.status, c.want)
			}
		})
	}
}

// TestRVBld_UploadsOwnBudget: an upload's body is charged to the
// building-layer uploads' own decode budget (the size of the Ultra cap),
// never to the appliance-wide one (rvapi findings 3 and 4): while an
// Ultra upload of 128 MiB trickles in, other tenants' request bodies are
// decoded as usual, another upload gets 503 with Retry-After, and once
// the first ends the second passes.
func TestRVBld_UploadsOwnBudget(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	ultra := h.issue(t, "ultra", appliance.TierUltra, appliance.RoleTenant)
	p := startUpload(t, h, ultra, "/buildings/layers?name=big", 128<<20)
	if _, err := p.w.Write([]byte("{")); err != nil {
		t.Fatalf("the Ultra upload at its cap was answered before its body: %v %+v", err, p.answer(time.Second))
	}
	time.Sleep(200 * time.Millisecond) // the server reserves its buffer
	if res := p.answer(0); res != nil {
		t.Fatalf("the Ultra upload at its cap answered %d before its body was sent: %s", res.status, res.body)
	}
	for _, k := range []string{"pro", "enterprise", "free"} {
		if res := h.do(t, "POST", "/analyze", h.keys[k], nil, analyzeFSPL); res.status != http.StatusOK {
			t.Errorf("%s's /analyze while an upload holds its budget: %d %.300s", k, res.status, res.body)
		}
	}
	res := h.do(t, "POST", "/buildings/layers?name=small", h.keys["enterprise"], nil, riosBlock())
	if res.status != http.StatusServiceUnavailable || res.header.Get("Retry-After") == "" || !strings.Contains(string(res.body), "128 MiB") {
		t.Errorf("a second upload while the first holds the uploads' budget: %d Retry-After %q %.300s, want 503 with Retry-After",
			res.status, res.header.Get("Retry-After"), res.body)
	}
	_ = p.w.CloseWithError(io.ErrUnexpectedEOF)
	if res := p.answer(5 * time.Second); res == nil {
		t.Fatal("the cut upload never answered")
	}
	// The first request's lease is released as its handler returns, which
	// can trail its answer by a moment: a 503 then says to retry.
	res = h.do(t, "POST", "/buildings/layers?name=small", h.keys["enterprise"], nil, riosBlock())
	for deadline := time.Now().Add(5 * time.Second); res.status == http.StatusServiceUnavailable && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
		res = h.do(t, "POST", "/buildings/layers?name=small", h.keys["enterprise"], nil, riosBlock())
	}
	if res.status != http.StatusCreated {
		t.Errorf("the second upload once the budget is free: %d %.300s", res.status, res.body)
	}
}

// TestRVBld_UltraUploadAtCap: an Ultra upload of exactly its documented
// cap (128 MiB) is read and stored (it always answered 503 Retry-After,
// which no retry could pass: the read asked the 128 MiB budget for one
// byte more, rvapi finding 4); one byte over is a 413, before the body is
// read when Content-Length says so, at the cap when the body is chunked.
func TestRVBld_UltraUploadAtCap(t *testing.T) {
	if testing.Short() {
		t.Skip("sends 128 MiB bodies")
	}
	h := newHarness(t, harnessOptions{})
	ultra := h.issue(t, "ultra", appliance.TierUltra, appliance.RoleTenant)
	base := riosBlock()
	const ultraCap = 128 << 20
	cases := []struct {
		name    string
		size    int
		chunked bool
		status  int
		want    string
	}{
		{"exactly the cap", ultraCap, false, http.StatusCreated, `"buildings":2`},
		{"one byte over the cap", ultraCap + 1, false, http.StatusRequestEntityTooLarge, "limited to 134217728 bytes"},
		{"one byte over the cap, chunked", ultraCap + 1, true, http.StatusRequestEntityTooLarge, "134217728 bytes (128 MiB), the building-layer file cap of this key's tier"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			body := base + strings.Repeat(" ", c.size-len(base))
			var rd io.Reader = strings.NewReader(body)
			if c.chunked {
				rd = struct{ io.Reader }{rd} // no length: chunked
			}
			req, err := http.NewRequest("POST", h.srv.URL+"/buildings/layers?name=big", rd)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("X-API-Key", ultra)
			start := time.Now()
			res, err := h.srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			b, _ := io.ReadAll(res.Body)
			t.Logf("%d bytes: %d in %v", c.size, res.StatusCode, time.Since(start))
			if res.StatusCode != c.status || !strings.Contains(string(b), c.want) {
				t.Fatalf("%d bytes: %d Retry-After %q %.300s, want %d with %q", c.size, res.StatusCode, res.Header.Get("Retry-After"), b, c.status, c.want)
			}
		})
	}
}

// TestRVBld_OwnLayersAfterDowngrade: a tenant moved from Enterprise to
// Business (rvapi finding 9) still lists, inspects and deletes its own
// building layers; it uploads no more, and its list shows limits of zero.
func TestRVBld_OwnLayersAfterDowngrade(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	key := h.issue(t, "moving", appliance.TierEnterprise, appliance.RoleTenant)
	res := h.do(t, "POST", "/buildings/layers?name=kept", key, nil, riosBlock())
	if res.status != http.StatusCreated {
		t.Fatalf("upload: %d %s", res.status, res.body)
	}
	id := decodeInto[layerDetail](t, res).Layer.ID
	k, err := h.auth.Authenticate(key)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.db.UpdateTenantKeys(k.TenantID, func(keys []*appliance.APIKey) (appliance.KeyChange, error) {
		for _, x := range keys {
			x.Tier = appliance.TierBusiness
		}
		return appliance.KeyChange{Update: keys}, nil
	}); err != nil {
		t.Fatal(err)
	}
	if k, err := h.auth.Authenticate(key); err != nil || k.Tier != appliance.TierBusiness {
		t.Fatalf("after the move: %+v %v", k, err)
	}
	steps := []struct {
		name, method, url, body string
		status                  int
		want                    string
	}{
		{"list", "GET", "/buildings/layers", "", http.StatusOK, `"layers_limit":0`},
		{"list names the layer", "GET", "/buildings/layers", "", http.StatusOK, id},
		{"inspect", "GET", "/buildings/layers/" + id, "", http.StatusOK, `"buildings":2`},
		{"upload", "POST", "/buildings/layers?name=new", riosBlock(), http.StatusForbidden, "Enterprise or Ultra"},
		{"delete", "DELETE", "/buildings/layers/" + id, "", http.StatusOK, `"deleted":true`},
		{"list after delete", "GET", "/buildings/layers", "", http.StatusOK, `"layers":[]`},
		{"inspect after delete", "GET", "/buildings/layers/" + id, "", http.StatusNotFound, "no building layer"},
	}
	for _, s := range steps {
		res := h.do(t, s.method, s.url, key, nil, s.body)
		if res.status != s.status || !strings.Contains(string(res.body), s.want) {
			t.Fatalf("%s: %d %.300s, want %d with %q", s.name, res.status, res.body, s.status, s.want)
		}
	}
	if audit := string(h.do(t, "GET", "/tenant/audit?action=buildings.layer.delete", key, nil, "").body); !strings.Contains(audit, id) {
		t.Errorf("the delete is not audited: %.300s", audit)
	}
}
