package sheetcsv_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"linkplan/appliance/sheetcsv"
)

// longest feeds text to a Records and returns the longest record length
// seen.
func longest(text []byte, sep byte) int {
	r := sheetcsv.NewRecords(sep)
	n := 0
	for _, c := range text {
		n = max(n, r.Feed(c))
	}
	return n
}

func TestRecords(t *testing.T) {
	cases := []struct {
		name, text string
		want       int
		line       int // line where the record after the text starts
	}{
		{"lines", "a,b\n1,2\n", 3, 3},
		{"a quoted line break", "a,\"x\ny\"\n1\n", 7, 4},
		{"a doubled quote", "\"a\"\"\nb\"\n", 7, 3},
		{"a lazy quote in a bare field", "x\"y\nz\n", 3, 3},
		{"quote then CR LF ends the record", "\"a\"\r\nbb\n", 4, 3},
		{"quote then CR then text stays quoted", "\"a\"\r,\nbb\"\n", 9, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := sheetcsv.NewRecords(',')
			n := 0
			for _, b := range []byte(c.text) {
				n = max(n, r.Feed(b))
			}
			if n != c.want || r.Line() != c.line {
				t.Errorf("longest %d, last record at line %d; want %d, %d", n, r.Line(), c.want, c.line)
			}
		})
	}
}

// FuzzRecords: the record lengths Records sees bound what the reader of
// Open holds for any record of any text: the text of a record's fields is
// never longer than the longest record seen, so refusing records over a
// limit bounds the CSV reader's memory.
func FuzzRecords(f *testing.F) {
	for _, s := range []string{"a,b,c\n1,2,3\n", "\"a\nb\",c\n1,2\n", "\"a\"\"b\",c\r\n1,\"2\"x,3\n", "x\"y,\"z\n\n\n",
		"\"open field\n\nstill open", ";;;\n\"\";\"\"\"\"\n", "\"\"\r0\n0", "\"a\"\r,\n,\"\n"} {
		f.Add([]byte(s), byte(','))
		f.Add([]byte(s), byte(';'))
	}
	f.Fuzz(func(t *testing.T, text []byte, sep byte) {
		if sep != ',' && sep != ';' && sep != '\t' {
			sep = ','
		}
		n := longest(text, sep)
		// the header line decides Open's separator: give it sep first
		hdr := []byte{'h', sep, 'h', '\n'}
		cr, _ := sheetcsv.OpenBytes(append(hdr, text...))
		if _, err := cr.Read(); err != nil {
			return
		}
		for {
			rec, err := cr.Read()
			if errors.Is(err, io.EOF) || err != nil {
				return
			}
			held := 0
			for _, f := range rec {
				held += len(f)
			}
			if held > n && utf8Only(text) {
				t.Fatalf("a record holds %d bytes of fields, Records saw at most %d: %q", held, n, text)
			}
		}
	})
}

// utf8Only: a Windows-1252 text grows when converted, so only UTF-8 texts
// are compared byte for byte.
func utf8Only(b []byte) bool { return bytes.Equal(bytes.ToValidUTF8(b, nil), b) }
