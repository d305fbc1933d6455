package ai_test

import (
	"reflect"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/ai"
)

func TestNumbers(t *testing.T) {
	cases := []struct {
		name string
		text string
		want []string
	}{
		{"decimal comma and point", "margem de 12,5 dB e perda 130.2 dB", []string{"12,5", "130.2"}},
		{"names are not numbers", "a zona F1, o tile S23W044 e o modelo P.1812 e ITU-R", nil},
		{"units attached", "3km e 12dB", []string{"3", "12"}},
		{"thousands", "1.234,5 m", []string{"1.234,5"}},
		{"sentence end", "fica a 2 km.", []string{"2"}},
		{"negative", "margem −12 dB", []string{"12"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, n := range ai.Numbers(c.text) {
				got = append(got, n.Text)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("Numbers(%q) = %q, want %q", c.text, got, c.want)
			}
		})
	}
}

func TestUnsupported(t *testing.T) {
	f := &ai.FactSheet{Numbers: []ai.Fact{{Key: "m", Value: -12.43, Unit: "dB"}, {Key: "d", Value: 1234.4, Unit: "m"}, {Key: "pct", Value: 60}},
		Labels: []ai.Label{{Key: "tower_id", Value: "anatel:998877"}, {Key: "engine_version", Value: "p1812-8/1"}}}
	cases := []struct {
		name string
		text string
		want []string
	}{
		{"rounded to the written precision", "margem de -12 dB, ou 12,4 dB; 12.43 dB", []string{}},
		{"a rounding that is wrong", "margem de 12,5 dB", []string{"12,5"}},
		{"invented margin", "the margin is 18.2 dB", []string{"18.2"}},
		{"ids and versions are masked", "tower ANATEL:998877 with p1812-8/1", []string{}},
		{"thousands reading", "a 1.234 m, 1,234 m ou 1,3 km", []string{"1,3"}},
		{"repeats listed once", "7 and 7 and 60", []string{"7"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := f.Unsupported(c.text); !reflect.DeepEqual(got, c.want) {
				t.Fatalf("Unsupported(%q) = %q, want %q", c.text, got, c.want)
			}
		})
	}
}

// FuzzNumbers: the scanner never panics, every number it returns is text
// of the input, made of digits and separators, with non-negative readings.
func FuzzNumbers(f *testing.F) {
	for _, s := range []string{"12,5 dB", "P.1812", "1.234,5", "F1", "−3", "..1,,2", "a1.b2", "\xff9"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, n := range ai.Numbers(s) {
			if !strings.Contains(s, n.Text) || strings.Trim(n.Text, "0123456789.,") != "" {
				t.Fatalf("number %q of %q", n.Text, s)
			}
			for _, r := range n.Readings {
				if r.Value < 0 || r.Decimals < 0 {
					t.Fatalf("reading %+v of %q", r, n.Text)
				}
			}
		}
		fs := &ai.FactSheet{Numbers: []ai.Fact{{Value: 1}}, Labels: []ai.Label{{Value: s}}}
		_ = fs.Unsupported(s + " 2")
	})
}

// TestMissingWarnings: a warning is named by its code, case-insensitive,
// with '_', '-' or spaces between its words; anything else is missing.
func TestMissingWarnings(t *testing.T) {
	f := &ai.FactSheet{Warnings: []appliance.Warning{{Code: "fspl_obstructed"}, {Code: "eirp_assumed"}, {Code: "synthetic_tower"}}}
	for _, c := range []struct {
		name, text string
		want       []string
	}{
		{"codes", "fspl_obstructed, eirp_assumed and synthetic_tower apply.", []string{}},
		{"words", "FSPL obstructed; EIRP-assumed;\nsynthetic\ttower.", []string{}},
		{"none", "The link closes.", []string{"fspl_obstructed", "eirp_assumed", "synthetic_tower"}},
		{"paraphrase is not a name", "The path is obstructed and the tower is synthetic.", []string{"fspl_obstructed", "eirp_assumed", "synthetic_tower"}},
		{"one", "Mind synthetic_tower.", []string{"fspl_obstructed", "eirp_assumed"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := f.Missing(c.text); !reflect.DeepEqual(got, c.want) {
				t.Fatalf("missing %v, want %v", got, c.want)
			}
		})
	}
}
