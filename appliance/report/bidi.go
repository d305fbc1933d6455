package report

import (
	"slices"
	"unicode"
	"unicode/utf8"
)

// Right-to-left text. fpdf draws a string's characters left to right in
// the order they come, so a Hebrew or Arabic name drawn as stored (in
// logical order) reads backwards. visual reorders a line into the order
// of the page: a simplified Unicode Bidirectional Algorithm (UAX #9) for
// the reports' left-to-right paragraphs without explicit embeddings:
//
//   - strong right-to-left characters (Hebrew, Arabic and the other
//     right-to-left scripts) are level 1, everything else starts at 0;
//   - digits after right-to-left text (only neutrals between) are a number
//     inside it: level 2, so "שלום 123" keeps 123 readable;
//   - a bracket pair that holds right-to-left text and no left-to-right
//     letter, after right-to-left text, is right-to-left (UAX #9 N0);
//   - neutrals (spaces, punctuation) between two right-to-left characters
//     (or such numbers) join them, others stay left-to-right;
//   - combining marks stay with their base character;
//   - runs are reversed from the highest level down (UAX #9 L2), and
//     brackets in reversed runs are mirrored.
//
// What it does not do: Arabic contextual shaping (letters are drawn in
// their isolated forms, unjoined; pdftotext reads them back in order), a
// right-to-left paragraph direction, and reordering across the line
// breaks of a wrapped multi-line cell (a right-to-left run that wraps has
// its two parts on swapped lines).

// bidiClass is the simplified bidirectional class of a character.
type bidiClass uint8

const (
	bidiL   bidiClass = iota // left-to-right and everything not below
	bidiR                    // strong right-to-left
	bidiNum                  // a digit
	bidiN                    // neutral: space, punctuation, symbol
	bidiNSM                  // combining mark
)

func classOf(r rune) bidiClass {
	switch {
	case r < utf8.RuneSelf:
		switch {
		case r >= '0' && r <= '9':
			return bidiNum
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
			return bidiL
		}
		return bidiN
	case unicode.In(r, unicode.Mn, unicode.Me):
		return bidiNSM
	case unicode.IsDigit(r):
		return bidiNum
	case unicode.In(r, unicode.Hebrew, unicode.Arabic, unicode.Syriac, unicode.Thaana, unicode.Nko, unicode.Samaritan, unicode.Mandaic):
		if unicode.IsLetter(r) {
			return bidiR
		}
		return bidiN // Arabic comma, question mark, …
	case unicode.IsLetter(r) || unicode.IsMark(r):
		return bidiL
	}
	return bidiN
}

// hasRTL reports whether s holds a right-to-left letter.
func hasRTL(s string) bool {
	for _, r := range s {
		if r >= 0x0590 && classOf(r) == bidiR {
			return true
		}
	}
	return false
}

// visual returns the line s in visual order (see above); s unchanged when
// it has no right-to-left letter.
func visual(s string) string {
	if !hasRTL(s) {
		return s
	}
	rs := []rune(s)
	cls := make([]bidiClass, len(rs))
	for i, r := range rs {
		cls[i] = classOf(r)
		if cls[i] == bidiNSM {
			if i > 0 {
				cls[i] = cls[i-1] // a mark takes its base's class
			} else {
				cls[i] = bidiN
			}
		}
	}
	resolveBrackets(rs, cls)
	// Numbers whose last strong character before them is right-to-left
	// are numbers of the right-to-left text.
	lv := make([]uint8, len(rs))
	lastR := false
	for i, c := range cls {
		switch c {
		case bidiL:
			lastR = false
		case bidiR:
			lastR, lv[i] = true, 1
		case bidiNum:
			if lastR {
				lv[i] = 2
			}
		}
	}
	// Neutrals between two right-to-left characters (numbers of the
	// right-to-left text included) are right-to-left.
	for i := 0; i < len(rs); {
		if cls[i] != bidiN {
			i++
			continue
		}
		j := i
		for j < len(rs) && cls[j] == bidiN {
			j++
		}
		if i > 0 && j < len(rs) && lv[i-1] >= 1 && lv[j] >= 1 {
			for k := i; k < j; k++ {
				lv[k] = 1
			}
		}
		i = j
	}
	// Clusters: a base and its marks move together.
	type cluster struct {
		rs []rune
		lv uint8
	}
	var cs []cluster
	for i, r := range rs {
		if i > 0 && unicode.In(r, unicode.Mn, unicode.Me) {
			cs[len(cs)-1].rs = append(cs[len(cs)-1].rs, r)
			continue
		}
		cs = append(cs, cluster{rs: []rune{r}, lv: lv[i]})
	}
	// UAX #9 L2: from the highest level down to 1, reverse every run at
	// that level or above.
	for level := uint8(2); level >= 1; level-- {
		for i := 0; i < len(cs); {
			if cs[i].lv < level {
				i++
				continue
			}
			j := i
			for j < len(cs) && cs[j].lv >= level {
				j++
			}
			slices.Reverse(cs[i:j])
			i = j
		}
	}
	out := make([]rune, 0, len(rs))
	for _, c := range cs {
		if c.lv == 1 {
			c.rs[0] = mirror(c.rs[0])
		}
		out = append(out, c.rs...)
	}
	return string(out)
}

// resolveBrackets applies UAX #9 N0 to a left-to-right line: a matched
// pair of (), [] or {} whose content has a right-to-left letter and no
// left-to-right one, and whose last strong character before the opening
// bracket is right-to-left, becomes right-to-left (both brackets).
func resolveBrackets(rs []rune, cls []bidiClass) {
	var open []int // positions of unmatched opening brackets
	for i, r := range rs {
		switch r {
		case '(', '[', '{':
			if len(open) < 63 { // UAX #9 BD16 stops at 63
				open = append(open, i)
			}
			continue
		case ')', ']', '}':
		default:
			continue
		}
		want := map[rune]rune{')': '(', ']': '[', '}': '{'}[r]
		k := len(open) - 1
		for k >= 0 && rs[open[k]] != want {
			k--
		}
		if k < 0 {
			continue
		}
		o := open[k]
		open = open[:k]
		hasR, hasL := false, false
		for _, c := range cls[o+1 : i] {
			hasR, hasL = hasR || c == bidiR, hasL || c == bidiL
		}
		if !hasR || hasL {
			continue
		}
		before := bidiL // sos: the paragraph is left-to-right
		for j := o - 1; j >= 0; j-- {
			if cls[j] == bidiL || cls[j] == bidiR {
				before = cls[j]
				break
			}
		}
		if before == bidiR {
			cls[o], cls[i] = bidiR, bidiR
		}
	}
}

// mirror returns the mirrored glyph of a bracket in right-to-left text.
func mirror(r rune) rune {
	switch r {
	case '(':
		return ')'
	case ')':
		return '('
	case '[':
		return ']'
	case ']':
		return '['
	case '{':
		return '}'
	case '}':
		return '{'
	case '<':
		return '>'
	case '>':
		return '<'
	case '«':
		return '»'
	case '»':
		return '«'
	}
	return r
}
