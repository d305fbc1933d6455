package p1411

import "strings"

// Warning is a set of bit flags that mark a prediction made outside the
// domain the model was fitted on. A result with warnings is still the value
// the Recommendation's equations give; hard failures are errors.
type Warning uint8

// Warning flags.
const (
	// WarnFrequency: the frequency is outside the environment's range
	// (Range.MinFreqMHz–MaxFreqMHz).
	WarnFrequency Warning = 1 << iota
	// WarnDistance: the 3-D distance is outside the environment's range
	// (Range.MinDistM–MaxDistM).
	WarnDistance
	// WarnFreeSpaceFloor: the distance is below the environment's minimum
	// and the fitted line fell below free-space loss, so free-space loss was
	// returned instead (§4.1.1/§4.2.1 only; see the package Caveats).
	WarnFreeSpaceFloor
	// WarnNegativeLoss: the loss is below 0 dB, which no passive path can
	// produce; it happens far outside the domain (for example §4.3.1 at
	// d = 0.1 m with a low location percentage).
	WarnNegativeLoss
)

// Strings returns one lower-case sentence per flag set in w, in bit order.
// It returns nil when w is 0.
func (w Warning) Strings() []string {
	var out []string
	for _, f := range []struct {
		flag Warning
		text string
	}{
		{WarnFrequency, "frequency outside the P.1411 model range"},
		{WarnDistance, "distance outside the P.1411 model range"},
		{WarnFreeSpaceFloor, "distance below the model minimum: free-space loss used as a floor"},
		{WarnNegativeLoss, "loss below 0 dB: result is not physical"},
	} {
		if w&f.flag != 0 {
			out = append(out, f.text)
		}
	}
	return out
}

// String returns the warnings joined by "; ", or "" when w is 0.
func (w Warning) String() string { return strings.Join(w.Strings(), "; ") }

// Has reports whether every flag of x is set in w.
func (w Warning) Has(x Warning) bool { return w&x == x }
