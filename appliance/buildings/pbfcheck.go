package buildings

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/paulmach/protoscan"
)

// PBF framing bounds of the OpenStreetMap PBF format
// (wiki.openstreetmap.org/wiki/PBF_Format): a BlobHeader is at most
// 64 KiB and a Blob, compressed or raw, at most 32 MiB.
const (
	pbfMaxHeader = 64 << 10
	pbfMaxBlob   = 32 << 20
)

// checkPBF walks a PBF file's framing and decompresses every blob within
// the run's budget before github.com/paulmach/osm/osmpbf sees the bytes:
// osmpbf decodes in goroutines of its own, where a panic (a raw_size that
// overflows its buffer arithmetic, a string-table index out of range)
// would stop the process beyond Parse's recover. Here a bad file is a
// refusal: each BlobHeader's length within 64 KiB, its datasize within
// 32 MiB and within the file, each Blob raw or zlib with raw_size in
// 0..32 MiB that the data decompresses to exactly, and every OSMData
// block's string-table references and parallel arrays consistent.
func checkPBF(data []byte, run *importRun) error {
	bad := func(off int, format string, args ...any) error {
		return invalid("file", "OpenStreetMap PBF is malformed at byte %d: %s", off, fmt.Sprintf(format, args...))
	}
	for off := 0; off < len(data); {
		if len(data)-off < 4 {
			return bad(off, "a block starts with a 4-byte length; %d bytes remain", len(data)-off)
		}
		hl := binary.BigEndian.Uint32(data[off:])
		if hl >= pbfMaxHeader {
			return bad(off, "blob header of %d bytes; at most %d", hl, pbfMaxHeader-1)
		}
		if int64(len(data)-off-4) < int64(hl) {
			return bad(off, "blob header of %d bytes runs past the end of the file", hl)
		}
		typ, size, err := pbfBlobHeader(data[off+4 : off+4+int(hl)])
		if err != nil {
			return bad(off, "blob header: %v", err)
		}
		start := off + 4 + int(hl)
		if size < 0 || size >= pbfMaxBlob {
			return bad(off, "blob datasize %d; at most %d", size, pbfMaxBlob-1)
		}
		if int64(len(data)-start) < size {
			return bad(off, "blob datasize %d runs past the end of the file (%d bytes remain)", size, len(data)-start)
		}
		raw, err := pbfBlob(data[start:start+int(size)], run)
		if err != nil {
			if errors.Is(err, ErrFormat) {
				return err // the budget's error, already a refusal
			}
			return bad(start, "%s blob: %v", typ, err)
		}
		if typ == "OSMData" {
			if err := checkPrimitiveBlock(raw); err != nil {
				return bad(start, "OSMData block: %v", err)
			}
		}
		off = start + int(size)
	}
	return nil
}

// pbfBlobHeader reads a BlobHeader: type (1) and datasize (3).
func pbfBlobHeader(b []byte) (typ string, size int64, err error) {
	m := protoscan.New(b)
	found := false
	for m.Next() {
		switch m.FieldNumber() {
		case 1:
			typ, err = m.String()
		case 3:
			var v int32
			v, err = m.Int32()
			size, found = int64(v), true
		default:
			m.Skip()
		}
		if err != nil {
			return "", 0, err
		}
	}
	if err := m.Err(); err != nil {
		return "", 0, err
	}
	if typ == "" || !found {
		return "", 0, errors.New("no type or datasize")
	}
	return typ, size, nil
}

// pbfBlob returns a Blob's decompressed bytes: raw (1) or zlib_data (3)
// with raw_size (2); the other compressions are refused (osmpbf reads
// none of them).
func pbfBlob(b []byte, run *importRun) ([]byte, error) {
	m := protoscan.New(b)
	var raw, zdata []byte
	rawSize, hasSize := int64(-1), false
	for m.Next() {
		var err error
		switch f := m.FieldNumber(); f {
		case 1:
			raw, err = m.Bytes()
		case 2:
			var v int32
			v, err = m.Int32()
			rawSize, hasSize = int64(v), true
		case 3:
			zdata, err = m.Bytes()
		case 4, 5, 6, 7:
			return nil, fmt.Errorf("compression %s is not supported; use zlib", map[int]string{4: "lzma", 5: "bzip2", 6: "lz4", 7: "zstd"}[f])
		default:
			m.Skip()
		}
		if err != nil {
			return nil, err
		}
	}
	if err := m.Err(); err != nil {
		return nil, err
	}
	if hasSize && (rawSize < 0 || rawSize > pbfMaxBlob) {
		return nil, fmt.Errorf("raw_size %d; it must be within 0..%d", rawSize, pbfMaxBlob)
	}
	switch {
	case raw != nil:
		if hasSize && rawSize != int64(len(raw)) {
			return nil, fmt.Errorf("raw_size %d but %d raw bytes", rawSize, len(raw))
		}
		return raw, nil
	case zdata != nil:
		if !hasSize {
			return nil, errors.New("zlib data without raw_size")
		}
		if !run.spend(rawSize) {
			return nil, run.tooLarge("PBF")
		}
		zr, err := zlib.NewReader(bytes.NewReader(zdata))
		if err != nil {
			return nil, err
		}
		out, err := io.ReadAll(io.LimitReader(zr, rawSize+1))
		if err != nil {
			return nil, err
		}
		if int64(len(out)) != rawSize {
			return nil, fmt.Errorf("zlib data decompresses to %s bytes, raw_size says %d", atLeast(len(out), rawSize), rawSize)
		}
		return out, nil
	}
	return nil, errors.New("neither raw nor zlib data")
}

func atLeast(n int, limit int64) string {
	if int64(n) > limit {
		return fmt.Sprintf("more than %d", limit)
	}
	return fmt.Sprint(n)
}

// checkPrimitiveBlock checks what osmpbf indexes without checking: the
// string-table references (tags, user names, member roles) and the
// lengths of parallel arrays (a way's refs, lats and lons; a relation's
// roles, member ids and types; dense nodes' ids, lats, lons and info).
func checkPrimitiveBlock(b []byte) error {
	m := protoscan.New(b)
	var groups [][]byte
	st := int64(0)
	for m.Next() {
		var err error
		switch m.FieldNumber() {
		case 1: // stringtable
			var t []byte
			if t, err = m.MessageData(); err == nil {
				tm := protoscan.New(t)
				for tm.Next() {
					if tm.FieldNumber() == 1 {
						st++
					}
					tm.Skip()
				}
				err = tm.Err()
			}
		case 2: // primitivegroup
			var g []byte
			g, err = m.MessageData()
			groups = append(groups, g)
		default:
			m.Skip()
		}
		if err != nil {
			return err
		}
	}
	if err := m.Err(); err != nil {
		return err
	}
	for _, g := range groups {
		gm := protoscan.New(g)
		for gm.Next() {
			var err error
			var d []byte
			switch f := gm.FieldNumber(); f {
			case 1, 2, 3, 4: // nodes, dense, ways, relations
				if d, err = gm.MessageData(); err == nil {
					err = checkElement(f, d, st)
				}
			default:
				gm.Skip()
			}
			if err != nil {
				return err
			}
		}
		if err := gm.Err(); err != nil {
			return err
		}
	}
	return nil
}

// packed reads a packed repeated varint field (sint when zigzag) into
// int64 values.
func packed(m *protoscan.Message, zigzag bool) ([]int64, error) {
	it, err := m.Iterator(nil)
	if err != nil {
		return nil, err
	}
	var out []int64
	for it.HasNext() {
		var v int64
		if zigzag {
			v, err = it.Sint64()
		} else {
			v, err = it.Int64()
		}
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// checkElement checks one Node (1), DenseNodes (2), Way (3) or
// Relation (4) against a string table of st strings.
func checkElement(kind int, b []byte, st int64) error {
	inTable := func(what string, vs []int64) error {
		for _, v := range vs {
			if v < 0 || v >= st {
				return fmt.Errorf("%s %d outside the string table of %d", what, v, st)
			}
		}
		return nil
	}
	m := protoscan.New(b)
	arrays := map[int][]int64{}
	var info []byte
	for m.Next() {
		f := m.FieldNumber()
		var err error
		switch {
		case m.WireType() == protoscan.WireTypeLengthDelimited && (kind == 2 && f == 5 || kind != 2 && f == 4):
			info, err = m.MessageData()
		case m.WireType() == protoscan.WireTypeLengthDelimited:
			// osmpbf sizes an array from the first field it meets and
			// fills it from the others: a repeated field could overflow it.
			if _, dup := arrays[f]; dup {
				return fmt.Errorf("field %d appears twice in one element", f)
			}
			zig := kind == 2 && (f == 1 || f == 8 || f == 9) || kind == 3 && f >= 8 || kind == 4 && f == 9
			arrays[f], err = packed(m, zig)
		default:
			m.Skip()
		}
		if err != nil {
			return err
		}
	}
	if err := m.Err(); err != nil {
		return err
	}
	same := func(what string, fields ...int) error {
		n := -1
		for _, f := range fields {
			if vs, ok := arrays[f]; ok {
				if n >= 0 && len(vs) != n {
					return fmt.Errorf("%s have different lengths", what)
				}
				n = len(vs)
			}
		}
		return nil
	}
	switch kind {
	case 1, 3, 4: // keys (2), vals (3)
		if err := same("keys and values", 2, 3); err != nil {
			return err
		}
		if err := inTable("key", arrays[2]); err != nil {
			return err
		}
		if err := inTable("value", arrays[3]); err != nil {
			return err
		}
	}
	switch kind {
	case 2: // dense: ids (1), lat (8), lon (9), keys_vals (10)
		if err := same("dense ids, lats and lons", 1, 8, 9); err != nil {
			return err
		}
		if err := inTable("key or value", arrays[10]); err != nil {
			return err
		}
	case 3: // refs (8), lat (9), lon (10)
		if err := same("way refs, lats and lons", 8, 9, 10); err != nil {
			return err
		}
	case 4: // roles_sid (8), memids (9), types (10)
		if len(arrays[8]) != len(arrays[9]) || len(arrays[8]) != len(arrays[10]) {
			return errors.New("relation roles, member ids and types have different lengths")
		}
		if err := inTable("role", arrays[8]); err != nil {
			return err
		}
	}
	if info == nil {
		return nil
	}
	im := protoscan.New(info)
	var sids []int64
	for im.Next() {
		var err error
		switch {
		case im.FieldNumber() == 5 && kind == 2 && im.WireType() == protoscan.WireTypeLengthDelimited:
			// delta-coded sint32 summed in int32, as osmpbf reads them
			var it *protoscan.Iterator
			if it, err = im.Iterator(nil); err == nil {
				var s int32
				n := 0
				for it.HasNext() && err == nil {
					var v int32
					if v, err = it.Sint32(); err == nil {
						s += v
						sids = append(sids, int64(s))
						n++
					}
				}
				if err == nil && n != len(arrays[1]) {
					err = errors.New("dense user names and ids have different lengths")
				}
			}
		case im.FieldNumber() == 5 && kind != 2 && im.WireType() == protoscan.WireTypeVarint:
			var v int64
			v, err = im.Int64()
			sids = append(sids, v)
		case kind == 2 && im.WireType() == protoscan.WireTypeLengthDelimited:
			var d []int64
			if d, err = packed(im, false); err == nil && len(d) != len(arrays[1]) {
				err = errors.New("dense info and ids have different lengths")
			}
		default:
			im.Skip()
		}
		if err != nil {
			return err
		}
	}
	if err := im.Err(); err != nil {
		return err
	}
	return inTable("user name", sids)
}
