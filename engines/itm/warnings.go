package itm

import (
	"fmt"
	"strings"
)

// Warning is a set of bit flags that flag a prediction made near or beyond
// the limits the model was built for. The bit values are those of NTIA ITM
// v1.4 (Warnings.h), so a Warning prints as the reference "warnings" value.
// A result with warnings is still a result; hard failures are errors.
type Warning uint32

// Warning flags, with the NTIA v1.4 bit values.
const (
	// WarnTxHeight: the TX structural height is outside 1–1000 m.
	WarnTxHeight Warning = 0x0001
	// WarnRxHeight: the RX structural height is outside 1–1000 m.
	WarnRxHeight Warning = 0x0002
	// WarnFrequency: the frequency is outside 40–10000 MHz.
	WarnFrequency Warning = 0x0004
	// WarnPathLong: the path is longer than 1000 km.
	WarnPathLong Warning = 0x0008
	// WarnPathVeryLong: the path is longer than 2000 km.
	WarnPathVeryLong Warning = 0x0010
	// WarnPathShortForHeights: the path is shorter than |h_e,tx − h_e,rx| / 0.2
	// (a ray steeper than about 11°).
	WarnPathShortForHeights Warning = 0x0020
	// WarnPathShort: the path is shorter than 1 km.
	WarnPathShort Warning = 0x0040
	// WarnTxHorizonAngle: |θ_hzn,tx| exceeds 200 mrad; the small-angle
	// approximations may break down.
	WarnTxHorizonAngle Warning = 0x0080
	// WarnRxHorizonAngle: |θ_hzn,rx| exceeds 200 mrad.
	WarnRxHorizonAngle Warning = 0x0100
	// WarnTxHorizonNear: the TX horizon is nearer than 1/10 of the
	// smooth-earth horizon distance.
	WarnTxHorizonNear Warning = 0x0200
	// WarnRxHorizonNear: the RX horizon is nearer than 1/10 of the
	// smooth-earth horizon distance.
	WarnRxHorizonNear Warning = 0x0400
	// WarnTxHorizonFar: the TX horizon is farther than 3 times the
	// smooth-earth horizon distance.
	WarnTxHorizonFar Warning = 0x0800
	// WarnRxHorizonFar: the RX horizon is farther than 3 times the
	// smooth-earth horizon distance.
	WarnRxHorizonFar Warning = 0x1000
	// WarnExtremeVariability: a time, location or situation quantile lies
	// beyond 3.1 standard deviations (about 0.1 % or 99.9 %).
	WarnExtremeVariability Warning = 0x2000
	// WarnLowSurfaceRefractivity: the surface refractivity N_s is below
	// 250 N-units.
	WarnLowSurfaceRefractivity Warning = 0x4000
)

var warningText = [...]struct {
	flag Warning
	text string
}{
	{WarnTxHeight, "TX antenna height outside 1-1000 m"},
	{WarnRxHeight, "RX antenna height outside 1-1000 m"},
	{WarnFrequency, "frequency outside 40-10000 MHz"},
	{WarnPathLong, "path longer than 1000 km"},
	{WarnPathVeryLong, "path longer than 2000 km; use the result with care"},
	{WarnPathShortForHeights, "path short for the difference of the effective antenna heights"},
	{WarnPathShort, "path shorter than 1 km; use the result with care"},
	{WarnTxHorizonAngle, "TX horizon angle above 200 mrad; small-angle approximations may break down"},
	{WarnRxHorizonAngle, "RX horizon angle above 200 mrad; small-angle approximations may break down"},
	{WarnTxHorizonNear, "TX horizon nearer than 1/10 of the smooth-earth horizon distance"},
	{WarnRxHorizonNear, "RX horizon nearer than 1/10 of the smooth-earth horizon distance"},
	{WarnTxHorizonFar, "TX horizon farther than 3 times the smooth-earth horizon distance"},
	{WarnRxHorizonFar, "RX horizon farther than 3 times the smooth-earth horizon distance"},
	{WarnExtremeVariability, "a requested percentage lies far in the tail of its distribution"},
	{WarnLowSurfaceRefractivity, "surface refractivity below 250 N-units"},
}

// Strings returns one human-readable sentence per flag set in w, in bit
// order. Unknown bits are reported by their hexadecimal value. It returns
// nil when w is zero.
func (w Warning) Strings() []string {
	if w == 0 {
		return nil
	}
	var out []string
	rest := w
	for _, t := range warningText {
		if w&t.flag != 0 {
			out = append(out, t.text)
			rest &^= t.flag
		}
	}
	if rest != 0 {
		out = append(out, fmt.Sprintf("unknown warning bits %#x", uint32(rest)))
	}
	return out
}

// Flags returns the flags set in w one by one, in bit order (unknown bits
// included, each as its own flag). It returns nil when w is zero.
func (w Warning) Flags() []Warning {
	var out []Warning
	for b := Warning(1); b != 0 && b <= w; b <<= 1 {
		if w&b != 0 {
			out = append(out, b)
		}
	}
	return out
}

// String joins Strings with "; ", or returns "no warnings".
func (w Warning) String() string {
	if w == 0 {
		return "no warnings"
	}
	return strings.Join(w.Strings(), "; ")
}
