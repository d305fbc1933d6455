package sheetcsv

// Records follows the record boundaries of CSV text byte by byte, as the
// reader of Open (encoding/csv with LazyQuotes) splits it, so that a
// caller can refuse a record longer than it will hold before the CSV
// reader copies it (issue 20: a gzip of zeros inflated into one 64 MiB
// line that the reader held three times). A field that starts with a
// double quote is quoted; it ends at a quote followed by the separator, a
// line break, "\r\n" or the end of the text; a doubled quote, or a quote
// followed by anything else, is text. A record ends at a line break
// outside a quoted field. Separators and quotes are ASCII, so the
// boundaries are the same before and after a Windows-1252 conversion.
type Records struct {
	sep      byte
	len      int  // bytes of the current record so far
	line     int  // line breaks seen
	start    int  // line breaks seen when the current record started
	quoted   bool // inside a quoted field
	fresh    bool // at the start of a field
	afterQ   bool // a quote inside a quoted field, not yet decided
	afterQCR bool // that quote, then '\r', not yet decided
}

// NewRecords returns a tracker of text whose separator is sep (',', ';'
// or '\t'; DetectSeparator of its header line).
func NewRecords(sep byte) *Records { return &Records{sep: sep, fresh: true} }

// Feed takes the next byte of the text and returns the length, in bytes,
// of the record it belongs to so far (0 right after a record's line
// break).
func (r *Records) Feed(c byte) int {
	if c == '\n' {
		r.line++
	}
	if r.afterQCR {
		// a quote then '\r': with '\n' the field and the record end; with
		// anything else both were text, and c is in the quoted field
		r.afterQCR, r.afterQ = false, false
		if c == '\n' {
			r.quoted = false
		}
	}
	if r.afterQ {
		r.afterQ = false
		switch {
		case c == '"': // a doubled quote: text
			r.len++
			return r.len
		case c == r.sep || c == '\n':
			r.quoted = false
		case c == '\r':
			r.afterQ, r.afterQCR = true, true // decided by the next byte
			r.len++
			return r.len
		}
	}
	switch {
	case r.quoted:
		if c == '"' {
			r.afterQ = true
		}
	case r.fresh && c == '"':
		r.quoted, r.fresh = true, false
	case c == r.sep:
		r.fresh = true
	case c == '\n':
		r.len, r.fresh, r.start = 0, true, r.line
		return 0
	default:
		r.fresh = false
	}
	r.len++
	return r.len
}

// Line returns the line (1-based) where the current record starts.
func (r *Records) Line() int { return r.start + 1 }
