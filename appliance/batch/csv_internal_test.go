package batch

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"strings"
	"testing"
)

// FuzzLongestRecord: the record lengths longestRecord sees bound what
// encoding/csv (LazyQuotes, as ReadCSV reads) holds for any record: the
// text of a record's fields is never longer than the longest record found,
// so refusing records over MaxRecordBytes bounds the parser's memory.
func FuzzLongestRecord(f *testing.F) {
	for _, s := range []string{
		"a,b,c\n1,2,3\n",
		"\"a\nb\",c\n1,2\n",
		"\"a\"\"b\",c\r\n1,\"2\"x,3\n",
		"x\"y,\"z\n\n\n",
		"\"open field\n\nstill open",
		";;;\n\"\";\"\"\"\"\n",
	} {
		f.Add([]byte(s), byte(','))
		f.Add([]byte(s), byte(';'))
	}
	f.Fuzz(func(t *testing.T, raw []byte, sep byte) {
		if sep != ',' && sep != ';' && sep != '\t' {
			sep = ','
		}
		_, n := longestRecord(raw, sep)
		cr := csv.NewReader(bytes.NewReader(raw))
		cr.Comma = rune(sep)
		cr.FieldsPerRecord = -1
		cr.LazyQuotes = true
		for {
			rec, err := cr.Read()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				return // csv's own refusal: nothing held
			}
			held := 0
			for _, f := range rec {
				held += len(f)
			}
			if held > n {
				t.Fatalf("a record holds %d bytes of fields, longestRecord saw at most %d: %q", held, n, raw)
			}
		}
	})
}

// TestReadCSVLongRecord: a file whose one record (a line of zeros, or a
// quoted field of line breaks) is longer than MaxRecordBytes is refused
// naming the line and the limit, before the CSV reader copies it.
func TestReadCSVLongRecord(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		{"a line of zeros", "lat,lon,frequency_mhz\n" + strings.Repeat("\x00", 1<<20), "line 2 starts a record longer than 64 KiB"},
		{"a quoted field of line breaks", "lat,lon,frequency_mhz\n-22.9,-43.2,700\n\"" + strings.Repeat("\n", 1<<20), "line 3 starts a record longer than 64 KiB"},
		{"a long header", strings.Repeat("lat", 30_000) + "\n1,2,3\n", "line 1 starts a record longer than 64 KiB"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadCSV(strings.NewReader(c.in), 100)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want …%s", err, c.want)
			}
		})
	}
	// Just under the limit is read.
	ok := "id,lat,lon,frequency_mhz\n" + strings.Repeat("x", MaxRecordBytes-40) + ",-22.9,-43.2,700\n"
	if f, err := ReadCSV(strings.NewReader(ok), 100); err != nil || len(f.Rows) != 1 {
		t.Fatalf("a record under the limit: %v", err)
	}
}
