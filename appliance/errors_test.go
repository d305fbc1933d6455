package appliance

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestFinding5_ValidationErrorCapped is the domain half of the regression
// test of issue 7, finding 5: a ValidationError keeps at most
// MaxFieldErrors fields and counts the rest, however they are added.
func TestFinding5_ValidationErrorCapped(t *testing.T) {
	filled := func(n int) *ValidationError {
		v := &ValidationError{}
		for i := range n {
			v.Add(fmt.Sprintf("bands_mhz[%d]", i), "must be between %d and %d MHz", 1, 100000)
		}
		return v
	}
	cases := []struct {
		name        string
		v           *ValidationError
		kept, total int
		full        bool
	}{
		{"empty", &ValidationError{}, 0, 0, false},
		{"under the cap", filled(3), 3, 3, false},
		{"at the cap", filled(MaxFieldErrors), MaxFieldErrors, MaxFieldErrors, true},
		{"524188 adds (the finding)", filled(524188), MaxFieldErrors, 524188, true},
		{"merge within the cap", func() *ValidationError { v := filled(10); v.Merge(filled(20)); return v }(), 30, 30, false},
		{"merge over the cap counts the rest", func() *ValidationError { v := filled(40); v.Merge(filled(30)); return v }(), MaxFieldErrors, 70, true},
		{"merge carries omitted", func() *ValidationError { v := filled(1); v.Merge(filled(80)); return v }(), MaxFieldErrors, 81, true},
		{"merge nil", func() *ValidationError { v := filled(2); v.Merge(nil); return v }(), 2, 2, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if len(tc.v.Fields) != tc.kept || tc.v.Len() != tc.total || tc.v.Full() != tc.full {
				t.Errorf("kept %d, total %d, full %v; want %d, %d, %v", len(tc.v.Fields), tc.v.Len(), tc.v.Full(), tc.kept, tc.total, tc.full)
			}
			err := tc.v.Err()
			if (err == nil) != (tc.total == 0) {
				t.Fatalf("Err() = %v with %d bad fields", err, tc.total)
			}
			if err == nil {
				return
			}
			if !errors.Is(err, ErrInvalid) {
				t.Error("does not match ErrInvalid")
			}
			msg := err.Error()
			if more := tc.total - tc.kept; more > 0 && !strings.HasSuffix(msg, fmt.Sprintf("; and %d more", more)) {
				t.Errorf("message does not count the %d omitted: ...%s", more, msg[max(0, len(msg)-60):])
			}
			if strings.Count(msg, ": must be") != tc.kept {
				t.Errorf("message lists %d fields, want %d", strings.Count(msg, ": must be"), tc.kept)
			}
		})
	}
}
