package worker

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"testing"

	"linkplan/engines/raytrace"
)

// TestIssue24_AnswerBound: the client decodes an answer up to its
// request's bound and refuses a larger one with errOversizedAnswer (not a
// crash: the worker answered), with or without a Content-Length. Before,
// every answer was read up to 1 GiB whatever its request.
func TestIssue24_AnswerBound(t *testing.T) {
	const nx, ny = 2, 2
	limit := maxMapAnswerBytes(nx, ny)
	// An answer of far more receivers than the request's 2×2 (the arrays
	// of a map of 1024×600, each value distinct so that gob cannot shrink
	// it).
	big := raytrace.MapResult{NX: 1024, NY: 600}
	n := big.NX * big.NY
	big.ReceivedPowerDBm, big.PathLossDB, big.RMSDelaySpreadNs, big.Flags = make([]float32, n), make([]float32, n), make([]float32, n), make([]uint8, n)
	for i := range n {
		big.ReceivedPowerDBm[i], big.PathLossDB[i], big.RMSDelaySpreadNs[i] = -60-float32(i)*1e-5, 100+float32(i)*1e-5, 10+float32(i)*1e-5
	}
	raw, err := encode(big)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(raw)) <= limit {
		t.Fatalf("test answer of %d bytes is within the bound %d", len(raw), limit)
	}
	if int64(len(raw)) > maxMapAnswerBytes(big.NX, big.NY) {
		t.Fatalf("an answer of %d×%d receivers (%d bytes) exceeds its own bound %d", big.NX, big.NY, len(raw), maxMapAnswerBytes(big.NX, big.NY))
	}
	answer := func(length int64) *http.Response {
		return &http.Response{StatusCode: http.StatusOK, ContentLength: length, Body: io.NopCloser(bytes.NewReader(raw))}
	}
	for _, tc := range []struct {
		name   string
		length int64
	}{{"with its length", int64(len(raw))}, {"chunked", -1}} {
		t.Run(tc.name, func(t *testing.T) {
			var out raytrace.MapResult
			err := decodeAnswer(answer(tc.length), limit, &out)
			if !errors.Is(err, errOversizedAnswer) || errors.Is(err, errBrokenAnswer) {
				t.Fatalf("answer of %d bytes for a bound of %d: %v", len(raw), limit, err)
			}
			t.Logf("%d bytes for a 2×2 request (bound %d): %v", len(raw), limit, err)
		})
	}
	var out raytrace.MapResult
	if err := decodeAnswer(answer(int64(len(raw))), maxMapAnswerBytes(big.NX, big.NY), &out); err != nil || len(out.Flags) != n {
		t.Fatalf("the same answer within its own bound: %v", err)
	}
}
