package worker_test

import (
	"bytes"
	"encoding/gob"
	"net/http"
	"net/http/httptest"
	"testing"

	"linkplan/engines/raytrace"
	"linkplan/engines/raytrace/worker"
)

// Mirrors of the worker's unit bodies (gob matches fields by name).
type fuzzPointUnit struct {
	Scene   worker.SceneRef
	Request raytrace.PointRequest
}

type fuzzMapUnit struct {
	Scene   worker.SceneRef
	Request raytrace.MapRequest
}

// FuzzWorkerUnit: any body on the unit routes, with a valid secret, gets
// an answer (400, 409 or 422 for what is not a valid unit) and never
// stops the worker.
func FuzzWorkerUnit(f *testing.F) {
	secret := []byte("0123456789abcdef0123456789abcdef")
	in := grid(2)
	sc, err := raytrace.NewScene(in)
	if err != nil {
		f.Fatal(err)
	}
	h := sc.Hash()
	ref := worker.SceneRef{Hash: hexOf(h[:]), Input: &in}
	for _, v := range []any{fuzzPointUnit{Scene: ref, Request: pointReq()}, fuzzMapUnit{Scene: ref, Request: mapReq(4, 10)},
		fuzzPointUnit{Scene: worker.SceneRef{Hash: ref.Hash}, Request: pointReq()}} {
		var b bytes.Buffer
		if err := gob.NewEncoder(&b).Encode(v); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes(), v != any(nil) && b.Len()%2 == 0)
	}
	f.Add([]byte{}, true)
	f.Add([]byte("\x03\xff\x81\x00"), false)
	srv := worker.NewServer(raytrace.CPU{}, secret, 2, nil)
	srv.MaxUnitBytes = 1 << 20
	srv.MaxMapPixels = 1 << 12 // the fuzzer's maps stay small (the appliance caps them by tier)
	f.Fuzz(func(t *testing.T, body []byte, point bool) {
		path := worker.PathMap
		if point {
			path = worker.PathPoint
		}
		req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+hexOf(secret))
		req.Header.Set(worker.HeaderProtocol, worker.ProtocolVersion)
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		switch rec.Code {
		case http.StatusOK, http.StatusBadRequest, http.StatusConflict, http.StatusUnprocessableEntity:
		default:
			t.Fatalf("status %d: %s", rec.Code, rec.Body.String())
		}
	})
}

func hexOf(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 2*len(b))
	for i, x := range b {
		out[2*i], out[2*i+1] = digits[x>>4], digits[x&15]
	}
	return string(out)
}
