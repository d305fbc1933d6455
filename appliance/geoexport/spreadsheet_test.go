package geoexport_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"linkplan/appliance/geoexport"
)

func TestSpreadsheetSafe(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"empty", "", ""},
		{"plain text", "site 1", "site 1"},
		{"equals", `=cmd|' /C calc'!A0`, `'=cmd|' /C calc'!A0`},
		{"plus", "+1+1", "'+1+1"},
		{"minus", "-2+3", "'-2+3"},
		{"at", "@SUM(1+1)", "'@SUM(1+1)"},
		{"hyperlink", `=HYPERLINK("http://x","y")`, `'=HYPERLINK("http://x","y")`},
		{"tab", "\t=1+1", "'\t=1+1"},
		{"carriage return", "\r=1+1", "'\r=1+1"},
		{"a quote of the client's", "'=1+1", "''=1+1"},
		{"full-width equals", "＝1+1", "'＝1+1"},
		{"formula later in the text", "site =1+1", "site =1+1"},
		{"a negative number in a text cell", "-5", "'-5"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := geoexport.SpreadsheetSafe(c.in)
			if got != c.want {
				t.Errorf("SpreadsheetSafe(%q) = %q, want %q", c.in, got, c.want)
			}
			if back := geoexport.SpreadsheetText(got); back != c.in {
				t.Errorf("SpreadsheetText(%q) = %q, want %q back", got, back, c.in)
			}
		})
	}
}

// FuzzSpreadsheetSafe: whatever the text, the neutralised cell starts with
// no formula character (a single quote is the only one it may start with)
// and SpreadsheetText gives the text back.
func FuzzSpreadsheetSafe(f *testing.F) {
	for _, s := range []string{"", "=1", "'", "''=", "＋x", "\xff=", "a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := geoexport.SpreadsheetSafe(s)
		if geoexport.SpreadsheetText(got) != s {
			t.Fatalf("%q → %q does not come back", s, got)
		}
		r, _ := utf8.DecodeRuneInString(got)
		if strings.ContainsRune("=+-@\t\r＝＋－＠", r) && got != "" {
			t.Fatalf("%q → %q starts with a formula character", s, got)
		}
	})
}
