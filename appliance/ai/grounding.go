package ai

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Number is one number written in an answer.
type Number struct {
	Text string // as written, e.g. "12,5"
	// Readings are its possible values (a decimal comma or point, or
	// thousands groups) with their decimals.
	Readings []Reading
}

// Reading is one value a written number can mean.
type Reading struct {
	Value    float64 // never negative: signs are not compared
	Decimals int     // digits after the decimal separator, 0 for an integer
}

// Numbers returns the numbers written in text, in order (package doc,
// "Grounding"): a number is a run of digits with single '.' or ','
// separators between digits; a digit run that continues a word (F1,
// S23W044) or follows a letter and a '.' or '-' (P.1812) is part of a
// name, not a number.
func Numbers(text string) []Number {
	var out []Number
	for i := 0; i < len(text); {
		c := text[i]
		if c < '0' || c > '9' {
			i++
			continue
		}
		start := i
		j := i
		for j < len(text) {
			if isDigit(text[j]) {
				j++
				continue
			}
			if (text[j] == '.' || text[j] == ',') && j+1 < len(text) && isDigit(text[j+1]) {
				j++
				continue
			}
			break
		}
		i = j
		if partOfName(text, start) {
			for i < len(text) && (isDigit(text[i]) || isWordByte(text[i])) {
				i++
			}
			continue
		}
		tok := text[start:j]
		out = append(out, Number{Text: tok, Readings: readings(tok)})
	}
	return out
}

func isDigit(c byte) bool    { return c >= '0' && c <= '9' }
func isWordByte(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// partOfName reports whether the digits at text[i] continue a name.
func partOfName(text string, i int) bool {
	if i == 0 {
		return false
	}
	r, n := utf8.DecodeLastRuneInString(text[:i])
	if unicode.IsLetter(r) || r == '_' {
		return true
	}
	if r == '.' || r == '-' {
		r2, _ := utf8.DecodeLastRuneInString(text[:i-n])
		return unicode.IsLetter(r2)
	}
	return false
}

// readings lists the values a token of digit groups can mean: the last
// separator as the decimal separator (earlier ones as thousands
// separators between groups of 3 digits), or every separator a thousands
// separator.
func readings(tok string) []Reading {
	groups := strings.FieldsFunc(tok, func(r rune) bool { return r == '.' || r == ',' })
	if len(groups) == 1 {
		v, _ := strconv.ParseFloat(tok, 64)
		return []Reading{{Value: v}}
	}
	var out []Reading
	mid := true
	for _, g := range groups[1 : len(groups)-1] {
		mid = mid && len(g) == 3
	}
	last := groups[len(groups)-1]
	if mid {
		if v, err := strconv.ParseFloat(strings.Join(groups[:len(groups)-1], "")+"."+last, 64); err == nil {
			out = append(out, Reading{Value: v, Decimals: len(last)})
		}
	}
	if mid && len(last) == 3 {
		if v, err := strconv.ParseFloat(strings.Join(groups, ""), 64); err == nil {
			out = append(out, Reading{Value: v})
		}
	}
	return out
}

// Supports reports whether a reading matches a fact value v under the
// rounding rule: |x − |v|| ≤ ½·10^−k for a number written with k decimals
// (v rounds to it at that precision; a half-way value either way).
func Supports(r Reading, v float64) bool {
	k := min(r.Decimals, 9)
	tol := 0.5*math.Pow(10, -float64(k)) + 1e-9
	return math.Abs(r.Value-math.Abs(v)) <= tol
}

// Unsupported returns the numbers of text that no fact of f supports,
// as written and without repeats, after the labels of f (ids, engine
// versions) are taken out of the text.
func (f *FactSheet) Unsupported(text string) []string {
	masked := f.maskLabels(text)
	seen := map[string]bool{}
	out := []string{}
	for _, n := range Numbers(masked) {
		if seen[n.Text] || f.supported(n) {
			continue
		}
		seen[n.Text] = true
		out = append(out, n.Text)
	}
	return out
}

func (f *FactSheet) supported(n Number) bool {
	for _, r := range n.Readings {
		for _, x := range f.Numbers {
			if Supports(r, x.Value) {
				return true
			}
		}
	}
	return false
}

// maskLabels blanks every occurrence of a label value in text (ASCII
// case-insensitive, longest labels first).
func (f *FactSheet) maskLabels(text string) string {
	labels := make([]string, 0, len(f.Labels))
	for _, l := range f.Labels {
		if len(l.Value) > 0 {
			labels = append(labels, l.Value)
		}
	}
	sort.Slice(labels, func(i, j int) bool { return len(labels[i]) > len(labels[j]) })
	b := []byte(text)
	lower := []byte(asciiLower(text))
	for _, l := range labels {
		ll := []byte(asciiLower(l))
		for from := 0; ; {
			k := indexBytes(lower[from:], ll)
			if k < 0 {
				break
			}
			for p := from + k; p < from+k+len(ll); p++ {
				b[p], lower[p] = ' ', ' '
			}
			from += k + len(ll)
		}
	}
	return string(b)
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func indexBytes(s, sep []byte) int { return strings.Index(string(s), string(sep)) }

// Missing returns the codes of the sheet's warnings that text does not
// name, in sheet order, never nil. A warning is named by its code, ASCII
// case-insensitive, written with '_', '-' or spaces between its words
// ("fspl_obstructed", "FSPL obstructed", "synthetic-tower").
func (f *FactSheet) Missing(text string) []string {
	norm := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r == '_' || r == '-' {
				return ' '
			}
			return r
		}, asciiLower(s))
	}
	t := " " + strings.Join(strings.Fields(norm(text)), " ") + " "
	out := []string{}
	for _, w := range f.Warnings {
		if !strings.Contains(t, norm(w.Code)) {
			out = append(out, w.Code)
		}
	}
	return out
}
