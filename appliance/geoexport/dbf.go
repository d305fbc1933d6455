package geoexport

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"linkplan/appliance"
)

// dBase III limits and defaults; FORMATS.md explains each one.
const (
	// MaxDBFFields is the most fields a dBase III table holds.
	MaxDBFFields = 255
	// MaxDBFName is the longest dBase field name, in bytes.
	MaxDBFName = 10
	// MaxDBFStringWidth is the widest C field, in bytes.
	MaxDBFStringWidth = 254
	// DefaultStringWidth is the width of a C field whose Field.Width is 0, bytes.
	DefaultStringWidth = 80
	// DefaultIntWidth is the width of an N integer field, digits and sign.
	DefaultIntWidth = 18
	// DefaultFloatWidth is the width of an N float field, digits, sign and point.
	DefaultFloatWidth = 24
	// DefaultDecimals is the decimals of an N float field whose Field.Decimals is 0.
	DefaultDecimals = 6
	// maxDBFNumericWidth is the widest N field GDAL and shapelib accept.
	maxDBFNumericWidth = 32
)

// dbfSize returns the dBase width and decimals of f.
func dbfSize(f Field) (width, decimals int, err error) {
	width, decimals = f.Width, f.Decimals
	switch f.Type {
	case TypeString:
		if width == 0 {
			width = DefaultStringWidth
		}
		decimals = 0
		if width < 1 || width > MaxDBFStringWidth {
			return 0, 0, fmt.Errorf("field %q width %d outside 1..%d: %w", f.Name, width, MaxDBFStringWidth, appliance.ErrInvalid)
		}
	case TypeInt:
		if width == 0 {
			width = DefaultIntWidth
		}
		decimals = 0
		if width < 1 || width > maxDBFNumericWidth {
			return 0, 0, fmt.Errorf("field %q width %d outside 1..%d: %w", f.Name, width, maxDBFNumericWidth, appliance.ErrInvalid)
		}
	case TypeFloat:
		if width == 0 {
			width = DefaultFloatWidth
		}
		if decimals == 0 {
			decimals = DefaultDecimals
		}
		if width < 3 || width > maxDBFNumericWidth || decimals < 1 || decimals > width-2 {
			return 0, 0, fmt.Errorf("field %q width %d decimals %d outside 3..%d and 1..width-2: %w", f.Name, width, decimals, maxDBFNumericWidth, appliance.ErrInvalid)
		}
	case TypeBool:
		width, decimals = 1, 0
	}
	return width, decimals, nil
}

// ShortNames maps the long field names of s to dBase field names of at
// most MaxDBFName bytes, in field order. The mapping is deterministic and
// collision-free (case-insensitively, as dBase readers compare names):
//
//  1. every character outside [A-Za-z0-9_] becomes '_' (a name starting with a
//     digit gets a leading 'f'), and the result is cut to 10 bytes;
//  2. a name equal (ignoring case) to an earlier short name has its tail
//     replaced by "_2", "_3", … (cut further to stay within 10 bytes),
//     taking the first number that is free.
func ShortNames(s Schema) []string {
	out := make([]string, len(s.Fields))
	used := make(map[string]bool, len(s.Fields))
	for i, f := range s.Fields {
		base := sanitizeName(f.Name)
		name := base
		for n := 2; used[strings.ToUpper(name)]; n++ {
			suffix := "_" + strconv.Itoa(n)
			name = base[:min(len(base), MaxDBFName-len(suffix))] + suffix
		}
		used[strings.ToUpper(name)] = true
		out[i] = name
	}
	return out
}

func sanitizeName(long string) string {
	b := make([]byte, 0, MaxDBFName+1)
	for _, r := range long {
		if len(b) >= MaxDBFName {
			break
		}
		c := byte('_')
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r == '_':
			c = byte(r)
		case r >= '0' && r <= '9':
			c = byte(r)
			if len(b) == 0 {
				b = append(b, 'f')
			}
		}
		b = append(b, c)
	}
	if len(b) > MaxDBFName {
		b = b[:MaxDBFName]
	}
	if len(b) == 0 {
		b = append(b, 'f')
	}
	return string(b)
}

// dbfWriter writes a dBase III table (FORMATS.md, "The .dbf").
type dbfWriter struct {
	w      *bufio.Writer
	schema Schema
	widths []int
	decs   []int
	rec    []byte // one record, reused
}

func newDBFWriter(w *bufio.Writer, s Schema, count int, updated time.Time) (*dbfWriter, error) {
	d := &dbfWriter{w: w, schema: s, widths: make([]int, len(s.Fields)), decs: make([]int, len(s.Fields))}
	recLen := 1 // deletion flag
	for i, f := range s.Fields {
		wd, dec, err := dbfSize(f)
		if err != nil {
			return nil, err
		}
		d.widths[i], d.decs[i] = wd, dec
		recLen += wd
	}
	if recLen > 0xFFFF {
		return nil, fmt.Errorf("dbf record of %d bytes exceeds 65535: %w", recLen, appliance.ErrInvalid)
	}
	d.rec = make([]byte, recLen)
	hdrLen := 32 + 32*len(s.Fields) + 1
	var h [32]byte
	h[0] = 0x03 // dBase III without memo
	h[1] = byte(updated.Year() - 1900)
	h[2] = byte(updated.Month())
	h[3] = byte(updated.Day())
	binary.LittleEndian.PutUint32(h[4:], uint32(count))
	binary.LittleEndian.PutUint16(h[8:], uint16(hdrLen))
	binary.LittleEndian.PutUint16(h[10:], uint16(recLen))
	// h[29], the language driver id, stays 0: the code page is in the .cpg.
	if _, err := w.Write(h[:]); err != nil {
		return nil, fmt.Errorf("write dbf header: %w", err)
	}
	for i, name := range ShortNames(s) {
		var fd [32]byte
		copy(fd[:11], name)
		fd[11] = dbfType(s.Fields[i].Type)
		fd[16] = byte(d.widths[i])
		fd[17] = byte(d.decs[i])
		if _, err := w.Write(fd[:]); err != nil {
			return nil, fmt.Errorf("write dbf field descriptor: %w", err)
		}
	}
	if err := w.WriteByte(0x0D); err != nil {
		return nil, fmt.Errorf("write dbf header terminator: %w", err)
	}
	return d, nil
}

func dbfType(t FieldType) byte {
	switch t {
	case TypeString:
		return 'C'
	case TypeBool:
		return 'L'
	}
	return 'N'
}

// write writes the record of f (already checked against the schema).
func (d *dbfWriter) write(n int, f Feature) error {
	rec := d.rec
	for i := range rec {
		rec[i] = ' '
	}
	off := 1
	var num []byte
	for i, v := range f.Properties {
		w := d.widths[i]
		cell := rec[off : off+w]
		off += w
		if v.IsNull() {
			if d.schema.Fields[i].Type == TypeBool {
				cell[0] = '?'
			}
			continue
		}
		switch v.typ {
		case TypeString:
			if sep := d.schema.Fields[i].ListSep; sep != "" {
				copy(cell, truncList(SpreadsheetSafe(v.s), sep, w)) // doc.go, "Spreadsheet safety"
				continue
			}
			copy(cell, truncUTF8(SpreadsheetSafe(v.s), w))
			continue
		case TypeBool:
			cell[0] = 'F'
			if v.b {
				cell[0] = 'T'
			}
			continue
		case TypeInt:
			num = strconv.AppendInt(num[:0], v.i, 10)
		case TypeFloat:
			num = strconv.AppendFloat(num[:0], v.f, 'f', d.decs[i], 64)
		}
		if len(num) > w {
			return fmt.Errorf("feature %d field %q value %s wider than %d: %w", n, d.schema.Fields[i].Name, num, w, appliance.ErrInvalid)
		}
		copy(cell[w-len(num):], num) // numbers are right-aligned
	}
	if _, err := d.w.Write(rec); err != nil {
		return fmt.Errorf("write dbf record %d: %w", n, err)
	}
	return nil
}

func (d *dbfWriter) close() error {
	if err := d.w.WriteByte(0x1A); err != nil {
		return fmt.Errorf("write dbf end of file: %w", err)
	}
	return nil
}

// truncUTF8 returns the longest prefix of s of at most n bytes that does
// not split a UTF-8 sequence, after replacing invalid UTF-8 by U+FFFD (the
// .cpg promises UTF-8).
func truncUTF8(s string, n int) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// truncList returns s, a list of items joined by sep, cut to at most n
// bytes at an item boundary and ending with sep+"+K more" (K the items
// left out; "+K more" alone when not even the first item fits), as
// truncUTF8 does otherwise; truncUTF8 when n is too small for the marker.
func truncList(s, sep string, n int) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if len(s) <= n {
		return s
	}
	items := strings.Split(s, sep)
	for k := len(items) - 1; k >= 0; k-- {
		out := fmt.Sprintf("+%d more", len(items)-k)
		if k > 0 {
			out = strings.Join(items[:k], sep) + sep + out
		}
		if len(out) <= n {
			return out
		}
	}
	return truncUTF8(s, n)
}
