package api

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"linkplan/appliance"
)

// TestFinding9_CompareRowErrorsHaveNoPrefixes: issue 7, finding 9. The
// error of a comparison row is the user message of an error answer (one
// mechanism, errors.go), so it carries no internal operation prefix and no
// raw control character.
func TestFinding9_CompareRowErrorsHaveNoPrefixes(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{name: "validation error under two operations",
			err:  fmt.Errorf("compare case: %w", fmt.Errorf("itm predict: %w", appliance.Invalid("rx.height_m", "must be at least 0.5"))),
			want: "invalid input: rx.height_m: must be at least 0.5"},
		{name: "outside the envelope",
			err:  fmt.Errorf("p1812 predict: %w", fmt.Errorf("frequency 7000 MHz: %w", appliance.ErrOutsideEnvelope)),
			want: "frequency 7000 MHz: " + appliance.ErrOutsideEnvelope.Error()},
		{name: "unavailable engine",
			err:  fmt.Errorf("predict: %w", fmt.Errorf("engine raytrace: %w", appliance.ErrUnavailable)),
			want: "engine raytrace: " + appliance.ErrUnavailable.Error()},
		{name: "an unknown error says internal error",
			err:  fmt.Errorf("itm predict: %w", errors.New("boom\u202e")),
			want: "internal error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := rowError(tc.err)
			if got != tc.want {
				t.Errorf("rowError = %q, want %q", got, tc.want)
			}
			for _, p := range []string{"compare case:", "predict:", "\u202e"} {
				if strings.Contains(got, p) {
					t.Errorf("%q carries %q", got, p)
				}
			}
		})
	}
}
