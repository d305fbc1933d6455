package buildings

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/paulmach/osm"
	"google.golang.org/protobuf/encoding/protowire"
)

// Our own OpenStreetMap PBF decoder (wiki.openstreetmap.org/wiki/PBF_Format,
// fileformat.proto and osmformat.proto). It runs in the caller's goroutine,
// so Parse's recover covers it, and every allocation is bounded by a count
// checked first (see the package doc for why osmpbf is not used and what
// is checked). Reading is done with protowire's strict primitives; the
// field walk, the wire-type checks and the PBF semantics are ours.

// PBF framing bounds of the format: a BlobHeader is at most 64 KiB and a
// Blob, compressed or raw, at most 32 MiB.
const (
	pbfMaxHeader = 64 << 10
	pbfMaxBlob   = 32 << 20
	// pbfMaxStrings bounds one block's string table (16 bytes a string
	// header; osmium's blocks of 8000 elements hold a few thousand).
	pbfMaxStrings = 1 << 20
)

// pbfFeatures are the required_features of an OSMHeader the decoder
// reads; a file requiring another is refused.
var pbfFeatures = map[string]bool{
	"OsmSchema-V0.6":        true,
	"DenseNodes":            true,
	"HistoricalInformation": true, // every version is read as an element; metadata is not used
	"LocationsOnWays":       true, // ways' lat/lon are read into their nodes
}

// decodePBF decodes a whole PBF file into c: framing, blobs (raw or zlib,
// within the run's decompression budget), the OSMHeader's required
// features and every OSMData block. Blobs of other types are skipped, as
// the format says.
func decodePBF(ctx context.Context, data []byte, run *importRun, c *osmCollect) error {
	bad := func(off int, format string, args ...any) error {
		return invalid("file", "OpenStreetMap PBF is malformed at byte %d: %s", off, fmt.Sprintf(format, args...))
	}
	first := true
	for off := 0; off < len(data); {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("import building layer: %w", err)
		}
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
			return bad(off, "blob header: %s", plain(err))
		}
		start := off + 4 + int(hl)
		if size < 0 || size >= pbfMaxBlob {
			return bad(off, "blob datasize %d; at most %d", size, pbfMaxBlob-1)
		}
		if int64(len(data)-start) < size {
			return bad(off, "blob datasize %d runs past the end of the file (%d bytes remain)", size, len(data)-start)
		}
		if first && typ != "OSMHeader" {
			return bad(off, "the first block is %q; a PBF file starts with an OSMHeader block", typ)
		}
		first = false
		if typ == "OSMHeader" || typ == "OSMData" {
			raw, err := pbfBlob(data[start:start+int(size)], run)
			if err != nil {
				if errors.Is(err, ErrFormat) {
					return err // the budget's error, already a refusal
				}
				return bad(start, "%s blob: %s", typ, plain(err))
			}
			if typ == "OSMHeader" {
				err = pbfHeader(raw)
			} else {
				err = (&pbfBlock{c: c}).decode(raw)
			}
			if err != nil {
				if errors.Is(err, ErrFormat) {
					return err // a cap on the elements, already a refusal
				}
				return bad(start, "%s block: %s", typ, plain(err))
			}
		}
		off = start + int(size)
	}
	if first {
		return bad(0, "no blocks")
	}
	return nil
}

// pbfField is one field of a protobuf message.
type pbfField struct {
	num protowire.Number
	typ protowire.Type
	v   uint64 // a varint, fixed32 or fixed64 value
	b   []byte // a length-delimited value (a slice of the message)
}

var pbfWireNames = map[protowire.Type]string{
	protowire.VarintType: "varint", protowire.Fixed32Type: "fixed32",
	protowire.Fixed64Type: "fixed64", protowire.BytesType: "length-delimited",
}

// pbfFields walks the fields of a message in order. Group wire types
// (unused by the format; protowire would recurse into them) and the
// invalid wire types 6 and 7 are refused.
func pbfFields(b []byte, fn func(f pbfField) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return fmt.Errorf("field tag: %w", protowire.ParseError(n))
		}
		b = b[n:]
		f := pbfField{num: num, typ: typ}
		switch typ {
		case protowire.VarintType:
			f.v, n = protowire.ConsumeVarint(b)
		case protowire.Fixed32Type:
			var v uint32
			v, n = protowire.ConsumeFixed32(b)
			f.v = uint64(v)
		case protowire.Fixed64Type:
			f.v, n = protowire.ConsumeFixed64(b)
		case protowire.BytesType:
			f.b, n = protowire.ConsumeBytes(b)
		default:
			return fmt.Errorf("field %d has wire type %d, which the format does not use", num, typ)
		}
		if n < 0 {
			return fmt.Errorf("field %d: %w", num, protowire.ParseError(n))
		}
		b = b[n:]
		if err := fn(f); err != nil {
			return err
		}
	}
	return nil
}

func (f pbfField) wrongType(what string, want protowire.Type) error {
	return fmt.Errorf("%s (field %d) has wire type %s, not %s", what, f.num, pbfWireNames[f.typ], pbfWireNames[want])
}

// varint returns a varint field's value.
func (f pbfField) varint(what string) (uint64, error) {
	if f.typ != protowire.VarintType {
		return 0, f.wrongType(what, protowire.VarintType)
	}
	return f.v, nil
}

// bytes returns a length-delimited field's value.
func (f pbfField) bytes(what string) ([]byte, error) {
	if f.typ != protowire.BytesType {
		return nil, f.wrongType(what, protowire.BytesType)
	}
	return f.b, nil
}

// packed returns a packed repeated field's bytes, once per message: a
// second occurrence (which protobuf would concatenate) is refused, as is
// the unpacked encoding (no PBF writer uses either). seen marks the field
// numbers met (all below 32).
func (f pbfField) packed(what string, seen *uint32) ([]byte, error) {
	b, err := f.bytes(what)
	if err != nil {
		return nil, err
	}
	if len(b) > 0 && b[len(b)-1] >= 0x80 {
		return nil, fmt.Errorf("%s (field %d) ends inside a varint", what, f.num)
	}
	if *seen&(1<<f.num) != 0 {
		return nil, fmt.Errorf("%s (field %d) appears twice", what, f.num)
	}
	*seen |= 1 << f.num
	return b, nil
}

// varintCount is the number of varints in packed bytes whose last byte
// ends a varint (packed checks it); a varint over 10 bytes fails when it
// is read.
func varintCount(b []byte) int {
	n := 0
	for _, c := range b {
		if c < 0x80 {
			n++
		}
	}
	return n
}

// varints reads packed varints.
type varints struct {
	b   []byte
	err error
}

func (v *varints) next() uint64 {
	x, n := protowire.ConsumeVarint(v.b)
	if n < 0 {
		if v.err == nil {
			v.err = protowire.ParseError(n)
		}
		v.b = nil
		return 0
	}
	v.b = v.b[n:]
	return x
}

func (v *varints) sint() int64 { return protowire.DecodeZigZag(v.next()) }

// pbfBlobHeader reads a BlobHeader: type (1) and datasize (3), both
// required.
func pbfBlobHeader(b []byte) (typ string, size int64, err error) {
	hasType, hasSize := false, false
	err = pbfFields(b, func(f pbfField) error {
		switch f.num {
		case 1:
			s, err := f.bytes("type")
			typ, hasType = string(s), true
			return err
		case 3:
			v, err := f.varint("datasize")
			size, hasSize = int64(int32(v)), true
			return err
		}
		return nil
	})
	if err != nil {
		return "", 0, err
	}
	if !hasType || !hasSize {
		return "", 0, errors.New("no type or no datasize")
	}
	return typ, size, nil
}

// pbfBlob returns a Blob's decompressed bytes: raw (1) or zlib_data (3)
// with raw_size (2); the other compressions are refused.
func pbfBlob(b []byte, run *importRun) ([]byte, error) {
	var raw, zdata []byte
	hasRaw, hasZlib := false, false
	rawSize, hasSize := int64(-1), false
	err := pbfFields(b, func(f pbfField) error {
		var err error
		switch f.num {
		case 1:
			raw, err = f.bytes("raw")
			hasRaw = true
		case 2:
			var v uint64
			v, err = f.varint("raw_size")
			rawSize, hasSize = int64(int32(v)), true
		case 3:
			zdata, err = f.bytes("zlib_data")
			hasZlib = true
		case 4, 5, 6, 7:
			name := map[protowire.Number]string{4: "lzma", 5: "bzip2", 6: "lz4", 7: "zstd"}[f.num]
			return fmt.Errorf("compression %s is not supported; write the file with zlib or no compression (osmium cat -f pbf,pbf_compression=zlib)", name)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if hasSize && (rawSize < 0 || rawSize > pbfMaxBlob) {
		return nil, fmt.Errorf("raw_size %d; it must be within 0..%d", rawSize, pbfMaxBlob)
	}
	switch {
	case hasRaw && hasZlib:
		return nil, errors.New("both raw and zlib data")
	case hasRaw:
		if hasSize && rawSize != int64(len(raw)) {
			return nil, fmt.Errorf("raw_size %d but %d raw bytes", rawSize, len(raw))
		}
		return raw, nil
	case hasZlib:
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
		out := bytes.NewBuffer(make([]byte, 0, rawSize+1))
		if _, err := io.Copy(out, io.LimitReader(zr, rawSize+1)); err != nil {
			return nil, err
		}
		if int64(out.Len()) != rawSize {
			return nil, fmt.Errorf("zlib data decompresses to %s bytes, raw_size says %d", atLeast(out.Len(), rawSize), rawSize)
		}
		return out.Bytes(), nil
	}
	return nil, errors.New("neither raw nor zlib data")
}

func atLeast(n int, limit int64) string {
	if int64(n) > limit {
		return fmt.Sprintf("more than %d", limit)
	}
	return fmt.Sprint(n)
}

// pbfHeader checks a HeaderBlock's required_features (4).
func pbfHeader(b []byte) error {
	return pbfFields(b, func(f pbfField) error {
		if f.num != 4 {
			return nil
		}
		s, err := f.bytes("required_features")
		if err != nil {
			return err
		}
		if !pbfFeatures[string(s)] {
			return fmt.Errorf("the file requires the feature %q, which this importer does not read", s)
		}
		return nil
	})
}

// pbfBlock decodes one PrimitiveBlock into c.
type pbfBlock struct {
	c                   *osmCollect
	st                  []string // the string table
	granularity         int64    // nanodegrees
	latOffset, lonOffst int64    // nanodegrees
}

// decode reads the block's string table (1), granularity (17) and
// offsets (19, 20) first (protobuf fixes no field order), then, in a
// second pass, its primitive groups (2); date_granularity and unknown
// fields are skipped.
func (d *pbfBlock) decode(b []byte) error {
	d.granularity = 100
	hasTable := false
	err := pbfFields(b, func(f pbfField) error {
		switch f.num {
		case 1:
			t, err := f.bytes("stringtable")
			if err != nil {
				return err
			}
			if hasTable {
				return errors.New("the block has two string tables")
			}
			hasTable = true
			return d.stringTable(t)
		case 2:
			_, err := f.bytes("primitivegroup")
			return err
		case 17:
			v, err := f.varint("granularity")
			d.granularity = int64(int32(v))
			return err
		case 19:
			v, err := f.varint("lat_offset")
			d.latOffset = int64(v)
			return err
		case 20:
			v, err := f.varint("lon_offset")
			d.lonOffst = int64(v)
			return err
		}
		return nil
	})
	if err != nil {
		return err
	}
	if d.granularity <= 0 {
		return fmt.Errorf("granularity %d; it must be positive", d.granularity)
	}
	return pbfFields(b, func(f pbfField) error {
		if f.num != 2 {
			return nil
		}
		return d.group(f.b)
	})
}

// stringTable reads the strings (1) of a StringTable: counted first, at
// most pbfMaxStrings, then kept as Go strings (their bytes bounded by the
// block's); an invalid UTF-8 sequence becomes U+FFFD.
func (d *pbfBlock) stringTable(b []byte) error {
	n := 0
	err := pbfFields(b, func(f pbfField) error {
		if f.num != 1 {
			return nil
		}
		if _, err := f.bytes("string table entry"); err != nil {
			return err
		}
		n++
		return nil
	})
	if err != nil {
		return err
	}
	if n > pbfMaxStrings {
		return fmt.Errorf("a string table of %d strings; at most %d", n, pbfMaxStrings)
	}
	d.st = make([]string, 0, n)
	return pbfFields(b, func(f pbfField) error {
		if f.num == 1 {
			str := string(f.b)
			if !utf8.ValidString(str) {
				str = strings.ToValidUTF8(str, "\uFFFD")
			}
			d.st = append(d.st, str)
		}
		return nil
	})
}

// str returns string-table entry i.
func (d *pbfBlock) str(what string, i uint64) (string, error) {
	if i >= uint64(len(d.st)) {
		return "", fmt.Errorf("%s %d outside the string table of %d", what, int64(i), len(d.st))
	}
	return d.st[i], nil
}

func (d *pbfBlock) lat(v int64) float64 { return 1e-9 * float64(d.latOffset+d.granularity*v) }
func (d *pbfBlock) lon(v int64) float64 { return 1e-9 * float64(d.lonOffst+d.granularity*v) }

// group reads a PrimitiveGroup: nodes (1), dense nodes (2), ways (3),
// relations (4); change sets (5) are skipped.
func (d *pbfBlock) group(b []byte) error {
	return pbfFields(b, func(f pbfField) error {
		var err error
		var m []byte
		switch f.num {
		case 1:
			if m, err = f.bytes("node"); err == nil {
				err = d.node(m)
			}
		case 2:
			if m, err = f.bytes("dense"); err == nil {
				err = d.dense(m)
			}
		case 3:
			if m, err = f.bytes("way"); err == nil {
				err = d.way(m)
			}
		case 4:
			if m, err = f.bytes("relation"); err == nil {
				err = d.relation(m)
			}
		}
		return err
	})
}

// elemName names an element in a message.
func elemName(kind string, id int64) string {
	if kind == "node" {
		return kind
	}
	return fmt.Sprintf("%s %d", kind, id)
}

// tags checks packed keys and vals (string-table indices, the same
// count) of the element kind id and returns them as tags; keep false
// only checks them.
func (d *pbfBlock) tags(kind string, id int64, keys, vals []byte, keep bool) (osm.Tags, error) {
	n := varintCount(keys)
	if varintCount(vals) != n {
		return nil, fmt.Errorf("%s keys and values have different lengths (%d, %d)", elemName(kind, id), n, varintCount(vals))
	}
	if n == 0 {
		return nil, nil
	}
	var tags osm.Tags
	if keep {
		if err := d.c.take(&d.c.tags, n, MaxOSMTags, "tags on ways and relations"); err != nil {
			return nil, err
		}
		tags = make(osm.Tags, 0, n)
	}
	kr, vr := varints{b: keys}, varints{b: vals}
	for range n {
		k, v := kr.next(), vr.next()
		if k >= uint64(len(d.st)) || v >= uint64(len(d.st)) {
			if _, err := d.str(elemName(kind, id)+" key", k); err != nil {
				return nil, err
			}
			return nil, fmt.Errorf("%s value %d outside the string table of %d", elemName(kind, id), int64(v), len(d.st))
		}
		if keep {
			tags = append(tags, osm.Tag{Key: d.st[k], Value: d.st[v]})
		}
	}
	if kr.err != nil || vr.err != nil || len(kr.b) > 0 || len(vr.b) > 0 {
		return nil, fmt.Errorf("%s keys or values: truncated varint", elemName(kind, id))
	}
	return tags, nil
}

// node reads a plain Node: id (1), keys (2), vals (3), lat (8), lon (9);
// info (4) is not used. The node's tags are checked, not kept.
func (d *pbfBlock) node(b []byte) error {
	var id, lat, lon int64
	var has uint32
	var keys, vals []byte
	var seen uint32
	err := pbfFields(b, func(f pbfField) error {
		var err error
		var v uint64
		switch f.num {
		case 1, 8, 9:
			v, err = f.varint(map[protowire.Number]string{1: "node id", 8: "node lat", 9: "node lon"}[f.num])
			switch f.num {
			case 1:
				id = protowire.DecodeZigZag(v)
			case 8:
				lat = protowire.DecodeZigZag(v)
			case 9:
				lon = protowire.DecodeZigZag(v)
			}
			has |= 1 << f.num
		case 2:
			keys, err = f.packed("node keys", &seen)
		case 3:
			vals, err = f.packed("node vals", &seen)
		}
		return err
	})
	if err != nil {
		return err
	}
	if has != 1<<1|1<<8|1<<9 {
		return errors.New("a node without id, lat or lon")
	}
	if _, err := d.tags("node", id, keys, vals, false); err != nil {
		return err
	}
	return d.c.addNode(osm.NodeID(id), d.lat(lat), d.lon(lon))
}

// dense reads DenseNodes: ids (1), lats (8), lons (9), all delta-coded
// sint64 of one length, and keys_vals (10), each node's key and value
// indices then a 0 (empty when no node has tags); denseinfo (5) is not
// used.
func (d *pbfBlock) dense(b []byte) error {
	var ids, lats, lons, kv []byte
	var seen uint32
	err := pbfFields(b, func(f pbfField) error {
		var err error
		switch f.num {
		case 1:
			ids, err = f.packed("dense ids", &seen)
		case 8:
			lats, err = f.packed("dense lats", &seen)
		case 9:
			lons, err = f.packed("dense lons", &seen)
		case 10:
			kv, err = f.packed("dense keys_vals", &seen)
		}
		return err
	})
	if err != nil {
		return err
	}
	n := varintCount(ids)
	if varintCount(lats) != n || varintCount(lons) != n {
		return fmt.Errorf("dense ids, lats and lons have different lengths (%d, %d, %d)", n, varintCount(lats), varintCount(lons))
	}
	if err := d.c.reserveNodes(n); err != nil {
		return err
	}
	// The tags are checked, not kept.
	if len(kv) > 0 {
		r := varints{b: kv}
		for node := 0; node < n; node++ {
			for {
				if len(r.b) == 0 {
					return fmt.Errorf("dense keys_vals end after %d of %d nodes", node, n)
				}
				k := r.next()
				if k == 0 {
					break
				}
				if _, err := d.str("dense key", k); err != nil {
					return err
				}
				if len(r.b) == 0 {
					return errors.New("dense keys_vals end between a key and its value")
				}
				if _, err := d.str("dense value", r.next()); err != nil {
					return err
				}
			}
		}
		if r.err != nil {
			return fmt.Errorf("dense keys_vals: %w", r.err)
		}
		if len(r.b) > 0 {
			return fmt.Errorf("dense keys_vals hold more than the tags of %d nodes", n)
		}
	}
	ir, ar, or := varints{b: ids}, varints{b: lats}, varints{b: lons}
	var id, lat, lon int64
	for range n {
		id += ir.sint()
		lat += ar.sint()
		lon += or.sint()
		if ir.err != nil || ar.err != nil || or.err != nil {
			return errors.New("dense ids, lats or lons: truncated varint")
		}
		if err := d.c.addNode(osm.NodeID(id), d.lat(lat), d.lon(lon)); err != nil {
			return err
		}
	}
	return nil
}

// way reads a Way: id (1), keys (2), vals (3), refs (8, delta-coded) and,
// in files with LocationsOnWays, lat (9) and lon (10) (delta-coded, as
// long as refs); info (4) is not used.
func (d *pbfBlock) way(b []byte) error {
	var id int64
	hasID := false
	var keys, vals, refs, lats, lons []byte
	var seen uint32
	err := pbfFields(b, func(f pbfField) error {
		var err error
		switch f.num {
		case 1:
			var v uint64
			v, err = f.varint("way id")
			id, hasID = int64(v), true
		case 2:
			keys, err = f.packed("way keys", &seen)
		case 3:
			vals, err = f.packed("way vals", &seen)
		case 8:
			refs, err = f.packed("way refs", &seen)
		case 9:
			lats, err = f.packed("way lats", &seen)
		case 10:
			lons, err = f.packed("way lons", &seen)
		}
		return err
	})
	if err != nil {
		return err
	}
	if !hasID {
		return errors.New("a way without id")
	}
	if err := d.c.reserveWays(); err != nil {
		return err
	}
	n := varintCount(refs)
	locs := seen&(1<<9|1<<10) != 0
	if locs && (varintCount(lats) != n || varintCount(lons) != n) {
		return fmt.Errorf("way %d: refs, lats and lons have different lengths (%d, %d, %d)", id, n, varintCount(lats), varintCount(lons))
	}
	tags, err := d.tags("way", id, keys, vals, true)
	if err != nil {
		return err
	}
	if err := d.c.take(&d.c.wayNodes, n, MaxOSMWayNodes, "node references in ways"); err != nil {
		return err
	}
	w := &osm.Way{ID: osm.WayID(id), Visible: true, Tags: tags}
	if n > 0 {
		w.Nodes = make(osm.WayNodes, n)
	}
	rr, ar, or := varints{b: refs}, varints{b: lats}, varints{b: lons}
	var ref, lat, lon int64
	for i := range w.Nodes {
		ref += rr.sint()
		w.Nodes[i].ID = osm.NodeID(ref)
		if locs {
			lat += ar.sint()
			lon += or.sint()
			w.Nodes[i].Lat, w.Nodes[i].Lon = d.lat(lat), d.lon(lon)
		}
	}
	if rr.err != nil || ar.err != nil || or.err != nil {
		return fmt.Errorf("way %d: refs, lats or lons: truncated varint", id)
	}
	d.c.o.Ways = append(d.c.o.Ways, w)
	return nil
}

// pbfMemberTypes maps a relation member's type (0, 1, 2).
var pbfMemberTypes = [...]osm.Type{osm.TypeNode, osm.TypeWay, osm.TypeRelation}

// relation reads a Relation: id (1), keys (2), vals (3), roles_sid (8),
// memids (9, delta-coded) and types (10), the last three of one length;
// info (4) is not used.
func (d *pbfBlock) relation(b []byte) error {
	var id int64
	hasID := false
	var keys, vals, roles, memids, types []byte
	var seen uint32
	err := pbfFields(b, func(f pbfField) error {
		var err error
		switch f.num {
		case 1:
			var v uint64
			v, err = f.varint("relation id")
			id, hasID = int64(v), true
		case 2:
			keys, err = f.packed("relation keys", &seen)
		case 3:
			vals, err = f.packed("relation vals", &seen)
		case 8:
			roles, err = f.packed("relation roles_sid", &seen)
		case 9:
			memids, err = f.packed("relation memids", &seen)
		case 10:
			types, err = f.packed("relation types", &seen)
		}
		return err
	})
	if err != nil {
		return err
	}
	if !hasID {
		return errors.New("a relation without id")
	}
	if err := d.c.reserveRelations(); err != nil {
		return err
	}
	n := varintCount(memids)
	if varintCount(roles) != n || varintCount(types) != n {
		return fmt.Errorf("relation %d: roles, member ids and types have different lengths (%d, %d, %d)", id, varintCount(roles), n, varintCount(types))
	}
	tags, err := d.tags("relation", id, keys, vals, true)
	if err != nil {
		return err
	}
	if err := d.c.take(&d.c.members, n, MaxOSMMembers, "relation members"); err != nil {
		return err
	}
	r := &osm.Relation{ID: osm.RelationID(id), Visible: true, Tags: tags}
	if n > 0 {
		r.Members = make(osm.Members, n)
	}
	sr, mr, tr := varints{b: roles}, varints{b: memids}, varints{b: types}
	var ref int64
	for i := range r.Members {
		s := sr.next()
		if s >= uint64(len(d.st)) {
			return fmt.Errorf("relation %d role %d outside the string table of %d", id, int64(s), len(d.st))
		}
		role := d.st[s]
		ref += mr.sint()
		t := tr.next()
		if t >= uint64(len(pbfMemberTypes)) {
			return fmt.Errorf("relation %d: member type %d; 0 (node), 1 (way) or 2 (relation)", id, t)
		}
		r.Members[i] = osm.Member{Type: pbfMemberTypes[t], Ref: ref, Role: role}
	}
	if sr.err != nil || mr.err != nil || tr.err != nil {
		return fmt.Errorf("relation %d: roles, member ids or types: truncated varint", id)
	}
	d.c.o.Relations = append(d.c.o.Relations, r)
	return nil
}
