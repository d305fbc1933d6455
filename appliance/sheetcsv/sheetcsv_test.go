package sheetcsv_test

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"linkplan/appliance/sheetcsv"
)

func TestParseNumber(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"-22.9519", -22.9519, true},
		{"-22,9519", -22.9519, true},
		{" 1.234,5 ", 1234.5, true},
		{"1,234.5", 1234.5, true},
		{"1,2,3", 0, false},
		{"NaN", 0, false},
		{"-Inf", 0, false},
		{"", 0, false},
		{"abc", 0, false},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, ok := sheetcsv.ParseNumber(tc.in)
			if ok != tc.ok || ok && got != tc.want {
				t.Errorf("ParseNumber(%q) = %g, %v; want %g, %v", tc.in, got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestNormHeader(t *testing.T) {
	for in, want := range map[string]string{"Frequência (MHz)": "frequenciamhz", "FREQUENCIA MHZ": "frequenciamhz", "LATITUDE": "latitude", "cell_Lat": "celllat"} {
		if got := sheetcsv.NormHeader(in); got != want {
			t.Errorf("NormHeader(%q) = %q, want %q", in, got, want)
		}
	}
}

// readAll opens text with Open (sniff bytes, read one byte at a time so
// that every buffer boundary is crossed) and with OpenBytes, and returns
// the records of both.
func readAll(t *testing.T, text []byte, sniff int) ([][]string, sheetcsv.Format, [][]string, sheetcsv.Format) {
	t.Helper()
	cr, f, err := sheetcsv.Open(iotest.OneByteReader(bytes.NewReader(text)), sniff)
	if err != nil {
		t.Fatal(err)
	}
	a, err := cr.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	cr2, f2 := sheetcsv.OpenBytes(text)
	b, err := cr2.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return a, f, b, f2
}

func TestOpen(t *testing.T) {
	latin := append([]byte("Nome;Frequência;Lat\r\n"), []byte("S\xe3o Jo\xe3o \x80;1800;-22,95\r\n")...)
	latin = bytes.Replace(latin, []byte("ê"), []byte{0xea}, 1)
	for _, tc := range []struct {
		name  string
		text  []byte
		sep   rune
		enc   string
		first []string // the first data record
	}{
		{"utf-8 with BOM, commas", []byte("\xef\xbb\xbflat,lon\n-22.9,-43.2\n"), ',', "UTF-8", []string{"-22.9", "-43.2"}},
		{"windows-1252, semicolons, CRLF", latin, ';', "Windows-1252", []string{"São João €", "1800", "-22,95"}},
		{"tabs", []byte("lat\tlon\n-22,9\t-43,2\n"), '\t', "UTF-8", []string{"-22,9", "-43,2"}},
		{"quoted separators do not count", []byte("\"a;b;c\",lon\n1,2\n"), ',', "UTF-8", []string{"1", "2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, f, b, f2 := readAll(t, tc.text, 4096)
			for i, got := range [][][]string{a, b} {
				ff := []sheetcsv.Format{f, f2}[i]
				if ff.Separator != tc.sep || ff.Encoding != tc.enc {
					t.Errorf("reader %d: format %+v", i, ff)
				}
				if len(got) != 2 || strings.Join(got[1], "|") != strings.Join(tc.first, "|") {
					t.Errorf("reader %d: records %q", i, got)
				}
			}
		})
	}
}

// TestOpenSniff: the encoding is decided on the sniff bytes; a UTF-8
// sequence cut at the end of the sniff is not mistaken for Windows-1252.
func TestOpenSniff(t *testing.T) {
	text := []byte("lat,lon,nome\n" + strings.Repeat("-22.9,-43.2,ação\n", 1000))
	for sniff := 4096; sniff < 4096+8; sniff++ {
		a, f, _, _ := readAll(t, text, sniff)
		if f.Encoding != "UTF-8" || len(a) != 1001 || a[1000][2] != "ação" {
			t.Fatalf("sniff %d: %+v, %d records", sniff, f, len(a))
		}
	}
}

func TestOpenReadError(t *testing.T) {
	boom := errors.New("boom")
	_, _, err := sheetcsv.Open(io.MultiReader(strings.NewReader("lat,lon\n"), iotest.ErrReader(boom)), 4096)
	if !errors.Is(err, boom) {
		t.Errorf("err %v", err)
	}
}

// FuzzOpen: any bytes read through Open and OpenBytes give the same
// records when the file fits in the sniff, and never panic.
func FuzzOpen(f *testing.F) {
	f.Add([]byte("lat;lon\n-22,9;-43,2\n"))
	f.Add([]byte("\xef\xbb\xbfa,b\n\"x,y\",\xe3\n"))
	f.Add([]byte("\x80\x81\x9f;\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		cr, _, err := sheetcsv.Open(bytes.NewReader(b), 1<<16)
		if err != nil {
			t.Fatal(err)
		}
		a, errA := cr.ReadAll()
		cr2, _ := sheetcsv.OpenBytes(b)
		c, errC := cr2.ReadAll()
		if (errA == nil) != (errC == nil) || len(a) != len(c) {
			t.Fatalf("Open %d records (%v), OpenBytes %d (%v)", len(a), errA, len(c), errC)
		}
		for i := range a {
			if strings.Join(a[i], "\x00") != strings.Join(c[i], "\x00") {
				t.Fatalf("record %d: %q vs %q", i, a[i], c[i])
			}
		}
	})
}
