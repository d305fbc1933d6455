package ml

import (
	"testing"
)

// TestSplitMix64 checks the generator against the reference outputs of
// Vigna's splitmix64.c for seed 1234567.
func TestSplitMix64(t *testing.T) {
	t.Parallel()
	r := splitMix64{s: 1234567}
	want := []uint64{6457827717110365317, 3203168211198807973, 9817491932198370423}
	for i, w := range want {
		if got := r.next(); got != w {
			t.Fatalf("output %d = %d, want %d", i, got, w)
		}
	}
}
