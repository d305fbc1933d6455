package prediction

import (
	"math"
	"testing"
)

// FuzzParseExternal: any bytes an external endpoint answers are either a
// valid answer (signal in range, optional fields in range) or a reason;
// never a panic.
func FuzzParseExternal(f *testing.F) {
	for _, s := range []string{`{"signal_dbm": -71.25, "model_version": "v3", "confidence": 0.8, "cv_rmse_db": 6.5}`, `{"signal_dbm": 900}`,
		`{"signal_dbm": null}`, `[]`, `<html>`, `{"signal_dbm": -1e400}`, `{"confidence": 2, "signal_dbm": -80}`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		a, why := parseExternal(b)
		if (a == nil) == (why == "") {
			t.Fatalf("answer %v with reason %q", a, why)
		}
		if a == nil {
			return
		}
		if s := *a.SignalDBm; math.IsNaN(s) || s < -200 || s > 50 {
			t.Fatalf("signal %v accepted", s)
		}
		if a.Confidence != nil && !(*a.Confidence >= 0 && *a.Confidence <= 1) {
			t.Fatalf("confidence %v accepted", *a.Confidence)
		}
		if len(a.ModelVersion) > 64 {
			t.Fatalf("model_version of %d bytes accepted", len(a.ModelVersion))
		}
	})
}
