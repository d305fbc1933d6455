package geoexport

import (
	"strings"
	"unicode/utf8"
)

// SpreadsheetSafe returns the text cell s neutralised for spreadsheets
// (the OWASP "CSV injection" rule; doc.go, "Spreadsheet safety"): a text
// that starts with '=', '+', '-', '@', a tab or a carriage return (or their
// full-width forms U+FF1D, U+FF0B, U+FF0D, U+FF20, which some spreadsheets
// also read as a formula) gets a leading single quote, so that a
// spreadsheet shows it as text instead of evaluating it. A text that
// already starts with a single quote gets one more, so that the quote a
// spreadsheet hides is not the client's own and SpreadsheetText can undo
// the change. Every other text is returned unchanged. Only text cells go
// through it: numbers stay numbers.
func SpreadsheetSafe(s string) string {
	if s == "" {
		return s
	}
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r', '\'':
		return "'" + s
	}
	switch r, _ := utf8.DecodeRuneInString(s); r {
	case '\uFF1D', '\uFF0B', '\uFF0D', '\uFF20':
		return "'" + s
	}
	return s
}

// SpreadsheetText reverses SpreadsheetSafe: it drops one leading single
// quote (a reader of a file written here gets the text back).
func SpreadsheetText(s string) string { return strings.TrimPrefix(s, "'") }
