package api

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"mime"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"linkplan/appliance"
)

// TestFinding9_RoundingNeverNegativeZero is the regression test of issue 7,
// finding 9 for the rounding helpers: answers carried -0 and unrounded
// floats (150.6423599742555).
func TestFinding9_RoundingNeverNegativeZero(t *testing.T) {
	cases := []struct {
		name string
		in   float64
		want float64
	}{
		{"unrounded value of the finding", 150.6423599742555, 150.642},
		{"small negative rounds to +0", -0.0004, 0},
		{"negative zero becomes +0", math.Copysign(0, -1), 0},
		{"half away from zero", -2.0005, -2.001},
		{"negative kept", -7.8, -7.8},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := r3(tc.in)
			if got != tc.want || math.Signbit(got) != math.Signbit(tc.want) {
				t.Errorf("r3(%v) = %v (signbit %v), want %v", tc.in, got, math.Signbit(got), tc.want)
			}
			p := round3(tc.in)
			if p == nil || *p != got || math.Signbit(*p) != math.Signbit(got) {
				t.Errorf("round3(%v) = %v, want %v", tc.in, p, got)
			}
		})
	}
	if got := roundTo(-0.0000004, 1e6); math.Signbit(got) {
		t.Errorf("roundTo(-4e-7, 1e6) = %v, want +0", got)
	}
	for _, x := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if round3(x) != nil {
			t.Errorf("round3(%v) is not nil", x)
		}
	}
}

// TestFinding9_UserMessageWithoutOperationPrefixes is the regression test
// of issue 7, finding 9 for error messages: the user message comes from
// the typed error or the innermost wrapper of the sentinel, never from the
// operation names of the wrapped chain ("analyze link:", "parse case:").
func TestFinding9_UserMessageWithoutOperationPrefixes(t *testing.T) {
	ve := &appliance.ValidationError{}
	ve.Add("receiver.lat", "must be between -90 and 90, got %g", 95.0)
	cases := []struct {
		name       string
		err        error
		wantStatus int
		want       string
	}{
		{"sentinel wrapper inside operations", fmt.Errorf("analyze pair: %w", fmt.Errorf("tower %q: %w", "anatel:1", appliance.ErrNotFound)), 404, `tower "anatel:1": not found`},
		{"validation error inside operations", fmt.Errorf("parse case: %w", fmt.Errorf("analyze link: %w", ve)), 422, "invalid input: receiver.lat: must be between -90 and 90, got 95"},
		{"bare sentinel", appliance.ErrConflict, 409, "conflict"},
		{"joined errors", fmt.Errorf("predict case: %w", errors.Join(errors.New("unrelated"), fmt.Errorf("tier pro is required: %w", appliance.ErrForbidden))), 403, "tier pro is required"},
		{"missing tile", fmt.Errorf("analyze link: %w", &appliance.TileMissingError{Tile: "S23W044"}), 422, "terrain tile S23W044 is not in any loaded terrain pack"},
		{"timeout", fmt.Errorf("analyze link: %w", fmt.Errorf("predict: %w", errContextDeadline())), 503, "the request did not finish within its time limit"},
		{"http error", &httpError{status: 400, code: "malformed_json", msg: "request body is empty"}, 400, "request body is empty"},
		// a write the data disk refused for space is the operator's, not a bug
		{"disk full", fmt.Errorf("observations: store: %w", &fs.PathError{Op: "write", Path: "/var/lib/linkplan/linkplan.db", Err: syscall.ENOSPC}), 507, storageFullMessage},
		{"quota exhausted", fmt.Errorf("tower put: %w", &fs.PathError{Op: "write", Path: "linkplan.db", Err: syscall.EDQUOT}), 507, storageFullMessage},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st, _, sentinel := classify(tc.err)
			if st != tc.wantStatus {
				t.Errorf("status %d, want %d", st, tc.wantStatus)
			}
			if got := userMessage(tc.err, sentinel); got != tc.want {
				t.Errorf("message %q, want %q", got, tc.want)
			}
		})
	}
}

func errContextDeadline() error {
	ctx, cancel := contextWithDeadlinePassed()
	defer cancel()
	return ctx.Err()
}

func contextWithDeadlinePassed() (context.Context, context.CancelFunc) {
	return context.WithDeadline(context.Background(), time.Unix(0, 0))
}

// TestCleanEchoedText checks the one sanitiser of echoed text.
func TestCleanEchoedText(t *testing.T) {
	cases := []struct {
		name  string
		in    string
		limit int
		want  string
	}{
		{"plain kept", "receiver.lat", 100, "receiver.lat"},
		{"right-to-left override escaped", "a\u202eb", 100, `a\u202eb`},
		{"nul escaped", "a\x00b", 100, `a\u0000b`},
		{"invalid utf-8 replaced", "a\xffb", 100, "a\ufffdb"},
		{"cut on a character boundary", "ããããã", 8, "ãã…"},
		{"exact fit kept", "abcdef", 6, "abcdef"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := clean(tc.in, tc.limit)
			if got != tc.want || len(got) > tc.limit {
				t.Errorf("clean(%q, %d) = %q, want %q", tc.in, tc.limit, got, tc.want)
			}
		})
	}
}

// FuzzClean: whatever the text, the echoed form is valid UTF-8, within its
// limit, and holds no control or bidirectional control character.
func FuzzClean(f *testing.F) {
	for _, s := range []string{"", "receiver.lat", "a\u202eb\x00c", "\xff\xfe", strings.Repeat("ã", 100)} {
		f.Add(s, 16)
	}
	f.Fuzz(func(t *testing.T, s string, limit int) {
		limit = 8 + abs(limit)%512
		got := clean(s, limit)
		if !utf8.ValidString(got) || len(got) > limit {
			t.Fatalf("clean(%q, %d) = %q: invalid UTF-8 or over the limit", s, limit, got)
		}
		for _, r := range got {
			if isControl(r) || isBidiControl(r) {
				t.Fatalf("clean(%q) = %q holds %U", s, got, r)
			}
		}
	})
}

// FuzzJSONContentType: the Content-Type check never panics, and accepts
// exactly the JSON media types (or none).
func FuzzJSONContentType(f *testing.F) {
	for _, s := range []string{"", "application/json", "application/json; charset=utf-8", "text/plain", "application/x-www-form-urlencoded", "application/problem+json", "json", ";;", "APPLICATION/JSON"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ct string) {
		err := jsonContentType(ct)
		mt, _, perr := mime.ParseMediaType(ct)
		want := strings.TrimSpace(ct) == "" || perr == nil && (mt == "application/json" || strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"))
		if (err == nil) != want {
			t.Fatalf("jsonContentType(%q) = %v, want accepted %v", ct, err, want)
		}
		if err != nil {
			if st, code := status(err); st != 415 || code != "unsupported_media_type" {
				t.Fatalf("jsonContentType(%q): %d %s", ct, st, code)
			}
		}
	})
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
