package appliance_test

import (
	"math"
	"testing"

	"linkplan/appliance"
)

func TestRound(t *testing.T) {
	cases := []struct {
		name     string
		x        float64
		decimals int
		want     float64
	}{
		{"three decimals", 1.23456, 3, 1.235},
		{"six decimals", -22.9123456789, 6, -22.912346},
		{"negative zero", -0.0004, 3, 0},
		{"1e308 stays finite", 1e308, 6, 1e308},
		{"-1e308 stays finite", -1e308, 3, -1e308},
		{"max float", math.MaxFloat64, 6, math.MaxFloat64},
		{"large but roundable", 123456789.1234567, 6, 123456789.123457},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := appliance.Round(c.x, c.decimals)
			if got != c.want || math.Signbit(got) != math.Signbit(c.want) || math.IsInf(got, 0) {
				t.Errorf("Round(%g, %d) = %g, want %g", c.x, c.decimals, got, c.want)
			}
		})
	}
	if !math.IsNaN(appliance.Round(math.NaN(), 3)) || !math.IsInf(appliance.Round(math.Inf(1), 3), 1) {
		t.Error("NaN and +Inf must come back as they are")
	}
}
