package api

import (
	"bytes"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestWriteJSONNonFiniteIsLoggedBug: an answer JSON cannot encode (an
// infinity that escaped the rounding) is a plain-text 500 and one ERROR
// line with the request id (issue 20: a batch row of 1e308 answered 500
// with no log line).
func TestWriteJSONNonFiniteIsLoggedBug(t *testing.T) {
	var logs bytes.Buffer
	a := New(Deps{PlatformDeps: PlatformDeps{Log: slog.New(slog.NewTextHandler(&logs, nil))}})
	h := a.outer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]float64{"margin_db": math.Inf(1)})
	}))
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "/health", nil)
	req.Header.Set("X-Request-Id", "rid-inf-1")
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusInternalServerError || strings.TrimSpace(rec.Body.String()) != "Internal Server Error" {
		t.Fatalf("got %d %q, want the plain-text 500", rec.Code, rec.Body.String())
	}
	line := ""
	for l := range strings.SplitSeq(logs.String(), "\n") {
		if strings.Contains(l, "level=ERROR") {
			line = l
		}
	}
	if !strings.Contains(line, "rid-inf-1") || !strings.Contains(line, "unsupported value: +Inf") {
		t.Errorf("no ERROR line with the request id and the reason:\n%s", logs.String())
	}
}
