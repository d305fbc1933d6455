package geoexport

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
)

// This file is an independent reader of the Shapefile set, written from the
// ESRI Shapefile Technical Description (1998) and the dBase III layout
// without reusing any writer code, so that the writer is checked against a
// second reading of the specification (ogrinfo is the third).

type shpShape struct {
	typ    int32
	points [][2]float64 // x (lon), y (lat)
}

type dbfField struct {
	name     string
	typ      byte
	width    int
	decimals int
}

type shapefileData struct {
	shapeType int32
	box       [4]float64 // xmin ymin xmax ymax
	shapes    []shpShape
	fields    []dbfField
	records   [][]string // raw cell text, trailing/leading blanks kept
}

var errShp = errors.New("bad shapefile")

func shpErr(format string, args ...any) error {
	return fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), errShp)
}

func readShpHeader(b []byte, what string) (fileLenBytes int, shapeType int32, box [4]float64, err error) {
	if len(b) < 100 {
		return 0, 0, box, shpErr("%s shorter than its 100-byte header", what)
	}
	if c := binary.BigEndian.Uint32(b[0:]); c != 9994 {
		return 0, 0, box, shpErr("%s file code %d", what, c)
	}
	for i := 4; i < 24; i++ {
		if b[i] != 0 {
			return 0, 0, box, shpErr("%s unused header byte %d is %d", what, i, b[i])
		}
	}
	fileLenBytes = int(binary.BigEndian.Uint32(b[24:])) * 2
	if v := binary.LittleEndian.Uint32(b[28:]); v != 1000 {
		return 0, 0, box, shpErr("%s version %d", what, v)
	}
	shapeType = int32(binary.LittleEndian.Uint32(b[32:]))
	for i := range box {
		box[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[36+8*i:]))
	}
	for i := 68; i < 100; i++ {
		if b[i] != 0 {
			return 0, 0, box, shpErr("%s Z/M range byte %d is %d", what, i, b[i])
		}
	}
	if fileLenBytes != len(b) {
		return 0, 0, box, shpErr("%s header length %d bytes, file %d", what, fileLenBytes, len(b))
	}
	return fileLenBytes, shapeType, box, nil
}

// readShapefile parses and cross-checks the three files of a set.
func readShapefile(shp, shx, dbf []byte) (*shapefileData, error) {
	_, st, box, err := readShpHeader(shp, ".shp")
	if err != nil {
		return nil, err
	}
	_, st2, box2, err := readShpHeader(shx, ".shx")
	if err != nil {
		return nil, err
	}
	if st != st2 || box != box2 {
		return nil, shpErr(".shp and .shx headers differ")
	}
	if (len(shx)-100)%8 != 0 {
		return nil, shpErr(".shx body %d bytes, not records of 8", len(shx)-100)
	}
	d := &shapefileData{shapeType: st, box: box}
	n := (len(shx) - 100) / 8
	next := 100
	for i := 0; i < n; i++ {
		off := int(binary.BigEndian.Uint32(shx[100+8*i:])) * 2
		clen := int(binary.BigEndian.Uint32(shx[104+8*i:])) * 2
		if off != next {
			return nil, shpErr("record %d at byte %d, expected %d", i+1, off, next)
		}
		if off+8+clen > len(shp) {
			return nil, shpErr("record %d runs past the end", i+1)
		}
		if rn := binary.BigEndian.Uint32(shp[off:]); rn != uint32(i+1) {
			return nil, shpErr("record %d numbered %d", i+1, rn)
		}
		if cl := int(binary.BigEndian.Uint32(shp[off+4:])) * 2; cl != clen {
			return nil, shpErr("record %d content %d bytes, .shx says %d", i+1, cl, clen)
		}
		c := shp[off+8 : off+8+clen]
		s, err := readShape(c, st, box)
		if err != nil {
			return nil, fmt.Errorf("record %d: %w", i+1, err)
		}
		d.shapes = append(d.shapes, s)
		next = off + 8 + clen
	}
	if next != len(shp) {
		return nil, shpErr(".shp has %d trailing bytes", len(shp)-next)
	}
	if err := readDBF(dbf, d); err != nil {
		return nil, err
	}
	if len(d.records) != len(d.shapes) {
		return nil, shpErr("%d dbf records for %d shapes", len(d.records), len(d.shapes))
	}
	return d, nil
}

func readShape(c []byte, fileType int32, box [4]float64) (shpShape, error) {
	le := binary.LittleEndian
	f := func(o int) float64 { return math.Float64frombits(le.Uint64(c[o:])) }
	if len(c) < 4 {
		return shpShape{}, shpErr("content shorter than its shape type")
	}
	s := shpShape{typ: int32(le.Uint32(c))}
	if s.typ != fileType {
		return s, shpErr("shape type %d in a file of type %d", s.typ, fileType)
	}
	in := func(x, y float64) bool { return x >= box[0] && x <= box[2] && y >= box[1] && y <= box[3] }
	switch s.typ {
	case 1:
		if len(c) != 20 {
			return s, shpErr("point content %d bytes", len(c))
		}
		s.points = [][2]float64{{f(4), f(12)}}
	case 3:
		if len(c) < 44 {
			return s, shpErr("polyline content %d bytes", len(c))
		}
		parts, npts := int(le.Uint32(c[36:])), int(le.Uint32(c[40:]))
		if parts < 1 || npts < 2 || len(c) != 44+4*parts+16*npts {
			return s, shpErr("polyline of %d parts, %d points in %d bytes", parts, npts, len(c))
		}
		rb := [4]float64{f(4), f(12), f(20), f(28)}
		for i := 0; i < npts; i++ {
			o := 44 + 4*parts + 16*i
			x, y := f(o), f(o+8)
			if x < rb[0] || x > rb[2] || y < rb[1] || y > rb[3] {
				return s, shpErr("point %d outside its record box", i)
			}
			s.points = append(s.points, [2]float64{x, y})
		}
	default:
		return s, shpErr("shape type %d", s.typ)
	}
	for _, p := range s.points {
		if !in(p[0], p[1]) {
			return s, shpErr("point %v outside the file box %v", p, box)
		}
	}
	return s, nil
}

// readDBF parses a dBase III table into d.fields and d.records.
func readDBF(b []byte, d *shapefileData) error {
	if len(b) < 33 {
		return shpErr(".dbf shorter than a header")
	}
	if b[0] != 0x03 {
		return shpErr(".dbf version byte %#x", b[0])
	}
	count := int(binary.LittleEndian.Uint32(b[4:]))
	hdrLen := int(binary.LittleEndian.Uint16(b[8:]))
	recLen := int(binary.LittleEndian.Uint16(b[10:]))
	if hdrLen < 33 || (hdrLen-33)%32 != 0 || hdrLen > len(b) || b[hdrLen-1] != 0x0D {
		return shpErr(".dbf header length %d", hdrLen)
	}
	width := 1
	seen := map[string]bool{}
	for o := 32; o < hdrLen-1; o += 32 {
		fd := b[o : o+32]
		name := string(bytes.TrimRight(fd[:11], "\x00"))
		if len(name) == 0 || len(name) > 10 || strings.IndexByte(name, 0) >= 0 {
			return shpErr(".dbf field name %q", name)
		}
		if seen[strings.ToUpper(name)] {
			return shpErr(".dbf field name %q twice", name)
		}
		seen[strings.ToUpper(name)] = true
		f := dbfField{name: name, typ: fd[11], width: int(fd[16]), decimals: int(fd[17])}
		switch f.typ {
		case 'C', 'N':
		case 'L':
			if f.width != 1 {
				return shpErr(".dbf logical field %q width %d", name, f.width)
			}
		default:
			return shpErr(".dbf field %q type %q", name, f.typ)
		}
		if f.width == 0 || (f.typ == 'N' && f.decimals >= f.width) {
			return shpErr(".dbf field %q width %d decimals %d", name, f.width, f.decimals)
		}
		d.fields = append(d.fields, f)
		width += f.width
	}
	if width != recLen {
		return shpErr(".dbf record length %d, fields sum to %d", recLen, width)
	}
	if want := hdrLen + count*recLen + 1; len(b) != want || b[len(b)-1] != 0x1A {
		return shpErr(".dbf is %d bytes, expected %d ending in 0x1A", len(b), want)
	}
	for i := 0; i < count; i++ {
		r := b[hdrLen+i*recLen : hdrLen+(i+1)*recLen]
		if r[0] != ' ' {
			return shpErr(".dbf record %d deletion flag %q", i, r[0])
		}
		cells := make([]string, len(d.fields))
		o := 1
		for j, f := range d.fields {
			cell := string(r[o : o+f.width])
			o += f.width
			switch f.typ {
			case 'N':
				if t := strings.TrimSpace(cell); t != "" && strings.TrimLeft(cell, " ") != t {
					return shpErr(".dbf record %d field %q %q is not right-aligned", i, f.name, cell)
				}
			case 'L':
				if !strings.Contains("TF?", cell) {
					return shpErr(".dbf record %d logical %q", i, cell)
				}
			}
			cells[j] = cell
		}
		d.records = append(d.records, cells)
	}
	return nil
}
