package buildings_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"testing"

	"linkplan/appliance/buildings"
)

// Builders of small PBF files (protobuf written by hand, field numbers of
// osmformat.proto and fileformat.proto).

func zz(v int64) uint64 { return uint64(v<<1) ^ uint64(v>>63) }

func packedV(vs ...uint64) []byte {
	var b []byte
	for _, v := range vs {
		b = binary.AppendUvarint(b, v)
	}
	return b
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// rawData frames a PrimitiveBlock as a raw OSMData blob.
func rawData(block []byte) []byte { return pbfBlock("OSMData", protoBytes(nil, 1, block)) }

// minimalHeader is an OSMHeader block requiring OsmSchema-V0.6 and
// DenseNodes, as osmium writes it.
func minimalHeader() []byte {
	return pbfBlock("OSMHeader", protoBytes(nil, 1, protoBytes(protoBytes(nil, 4, []byte("OsmSchema-V0.6")), 4, []byte("DenseNodes"))))
}

// strTable is a PrimitiveBlock's stringtable field.
func strTable(strs ...string) []byte {
	var t []byte
	for _, s := range strs {
		t = protoBytes(t, 1, []byte(s))
	}
	return protoBytes(nil, 1, t)
}

// group is a PrimitiveBlock's primitivegroup field holding elements
// (each already a group field: 1 node, 2 dense, 3 way, 4 relation).
func group(elems ...[]byte) []byte { return protoBytes(nil, 2, cat(elems...)) }

// wayMsg is a Way with keys and vals and the closed refs 1 2 3 1.
func wayMsg(keys, vals []uint64) []byte {
	return cat(protoVarint(nil, 1, 1), protoBytes(nil, 2, packedV(keys...)), protoBytes(nil, 3, packedV(vals...)), protoBytes(nil, 8, packedV(zz(1), zz(1), zz(1), zz(-2))))
}

// reviewPBFs are the four ~100-byte files of the issue 24 review that
// stopped the process through osmpbf's goroutines (the pre-check let
// them through), rebuilt as the review built them, and the refusal each
// gets now; the last makes a building of plain Nodes, which osmpbf
// refused by panicking.
func reviewPBFs() []struct {
	name, want string
	data       []byte
} {
	node := func(id, lat, lon int64) []byte {
		return protoBytes(nil, 1, cat(protoVarint(nil, 1, zz(id)), protoVarint(nil, 8, zz(lat)), protoVarint(nil, 9, zz(lon))))
	}
	// a 22 m square at UFLA: granularity 100 nanodegrees, so 2000 units
	// are 0.0002°
	lat, lon := int64(-212300000), int64(-449800000)
	square := group(node(1, lat, lon), node(2, lat, lon+2000), node(3, lat+2000, lon+2000), node(4, lat+2000, lon),
		protoBytes(nil, 3, cat(protoVarint(nil, 1, 7), protoBytes(nil, 2, packedV(1, 3)), protoBytes(nil, 3, packedV(2, 4)),
			protoBytes(nil, 8, packedV(zz(1), zz(1), zz(1), zz(1), zz(-3))))))
	return []struct {
		name, want string
		data       []byte
	}{
		{"plain node", "holds no usable building polygon",
			cat(minimalHeader(), rawData(cat(strTable("", "building", "yes"), group(node(-1, 1, 1)))))},
		{"two string tables", "the block has two string tables",
			cat(minimalHeader(), rawData(cat(strTable("", "building", "yes", "a", "b"), strTable(""), group(protoBytes(nil, 3, wayMsg([]uint64{1}, []uint64{2})))))),
		},
		{"string with the varint wire type", "string table entry (field 1) has wire type varint, not length-delimited",
			cat(minimalHeader(), rawData(cat(protoBytes(nil, 1, cat(protoBytes(protoBytes(nil, 1, nil), 1, []byte("building")), protoVarint(nil, 1, 7), protoVarint(nil, 1, 7))),
				group(protoBytes(nil, 3, wayMsg([]uint64{1}, []uint64{3})))))),
		},
		{"way keys as a varint", "way keys (field 2) has wire type varint, not length-delimited",
			cat(minimalHeader(), rawData(cat(strTable("", "building", "yes"),
				group(protoBytes(nil, 3, cat(protoVarint(nil, 1, 1), protoVarint(nil, 2, 2), []byte{0x78, 0x05}, protoBytes(nil, 3, packedV(2, 2)), protoBytes(nil, 8, packedV(zz(1), zz(1), zz(1), zz(-2))))))))),
		},
		{"plain nodes make a building", "",
			cat(minimalHeader(), rawData(cat(strTable("", "building", "yes", "building:levels", "2"), square)))},
	}
}

// TestIssue24_PBFReviewInputs: the review's four inputs and its raw_size
// file are refused with a reason (or, for plain nodes, decoded), in the
// caller's goroutine: before, each stopped the test binary.
func TestIssue24_PBFReviewInputs(t *testing.T) {
	for _, c := range reviewPBFs() {
		t.Run(c.name, func(t *testing.T) {
			im, err := buildings.Parse(context.Background(), c.data, buildings.Options{})
			if c.want != "" {
				wantFileError(t, err, c.want)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(im.Buildings) != 1 || im.Buildings[0].ID != "way/7" || im.Buildings[0].HeightM != 6 || im.Format != "osm-pbf" {
				t.Fatalf("%+v", im)
			}
			t.Logf("%d bytes: %s, %d vertices, %g m high", len(c.data), im.Buildings[0].ID, len(im.Buildings[0].Footprints[0].Outer), im.Buildings[0].HeightM)
		})
	}
	_, err := buildings.Parse(context.Background(), read(t, "testdata/rawsize.osm.pbf"), buildings.Options{})
	wantFileError(t, err, "raw_size 2000000000")
}

// TestPBFDecoderRefusals: each malformed structure is refused, naming it.
func TestPBFDecoderRefusals(t *testing.T) {
	hdr := minimalHeader()
	st := strTable("", "building", "yes", "outer")
	way := func(fields ...[]byte) []byte {
		return cat(hdr, rawData(cat(st, group(protoBytes(nil, 3, cat(fields...))))))
	}
	rel := func(fields ...[]byte) []byte {
		return cat(hdr, rawData(cat(st, group(protoBytes(nil, 4, cat(fields...))))))
	}
	dense := func(fields ...[]byte) []byte {
		return cat(hdr, rawData(cat(st, group(protoBytes(nil, 2, cat(fields...))))))
	}
	id := protoVarint(nil, 1, 9)
	refs := protoBytes(nil, 8, packedV(zz(1), zz(1), zz(1), zz(-2)))
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"group wire type", way(id, []byte{5<<3 | 3}, []byte{5<<3 | 4}), "field 5 has wire type 3"},
		{"wire type 7", way(id, []byte{5<<3 | 7}), "field 5 has wire type 7"},
		{"way without id", way(refs), "a way without id"},
		{"way id as bytes", way(protoBytes(nil, 1, []byte{1})), "way id (field 1) has wire type length-delimited, not varint"},
		{"truncated ref", way(id, protoBytes(nil, 8, []byte{0x80})), "way refs (field 8) ends inside a varint"},
		{"overlong ref", way(id, protoBytes(nil, 8, append(bytes.Repeat([]byte{0xff}, 10), 1))), "truncated varint"},
		{"keys without values", way(id, protoBytes(nil, 2, packedV(1)), refs), "keys and values have different lengths (1, 0)"},
		{"value outside the table", way(id, protoBytes(nil, 2, packedV(1)), protoBytes(nil, 3, packedV(4)), refs), "value 4 outside the string table of 4"},
		{"locations shorter than refs", way(id, refs, protoBytes(nil, 9, packedV(0)), protoBytes(nil, 10, packedV(0))), "refs, lats and lons have different lengths (4, 1, 1)"},
		{"relation keys twice", rel(id, protoBytes(nil, 2, nil), protoBytes(nil, 2, nil)), "relation keys (field 2) appears twice"},
		{"member type", rel(id, protoBytes(nil, 8, packedV(3)), protoBytes(nil, 9, packedV(zz(5))), protoBytes(nil, 10, packedV(7))), "member type 7"},
		{"role outside the table", rel(id, protoBytes(nil, 8, packedV(9)), protoBytes(nil, 9, packedV(zz(5))), protoBytes(nil, 10, packedV(1))), "role 9 outside the string table of 4"},
		{"negative role", rel(id, protoBytes(nil, 8, packedV(1<<64-1)), protoBytes(nil, 9, packedV(zz(5))), protoBytes(nil, 10, packedV(1))), "role -1 outside"},
		{"members of different lengths", rel(id, protoBytes(nil, 8, packedV(3, 3)), protoBytes(nil, 9, packedV(zz(5))), protoBytes(nil, 10, packedV(1))), "roles, member ids and types have different lengths (2, 1, 1)"},
		{"dense lengths", dense(protoBytes(nil, 1, packedV(2, 2)), protoBytes(nil, 8, packedV(0)), protoBytes(nil, 9, packedV(0, 0))), "dense ids, lats and lons have different lengths (2, 1, 2)"},
		{"dense tags unterminated", dense(protoBytes(nil, 1, packedV(2)), protoBytes(nil, 8, packedV(0)), protoBytes(nil, 9, packedV(0)), protoBytes(nil, 10, packedV(1, 2))), "dense keys_vals end after 0 of 1 nodes"},
		{"dense key without value", dense(protoBytes(nil, 1, packedV(2)), protoBytes(nil, 8, packedV(0)), protoBytes(nil, 9, packedV(0)), protoBytes(nil, 10, packedV(1))), "between a key and its value"},
		{"dense tags of too many nodes", dense(protoBytes(nil, 1, packedV(2)), protoBytes(nil, 8, packedV(0)), protoBytes(nil, 9, packedV(0)), protoBytes(nil, 10, packedV(0, 0))), "more than the tags of 1 nodes"},
		{"dense key outside the table", dense(protoBytes(nil, 1, packedV(2)), protoBytes(nil, 8, packedV(0)), protoBytes(nil, 9, packedV(0)), protoBytes(nil, 10, packedV(8, 1, 0))), "dense key 8 outside"},
		{"node without lat", cat(hdr, rawData(cat(st, group(protoBytes(nil, 1, cat(protoVarint(nil, 1, 2), protoVarint(nil, 9, 0))))))), "a node without id, lat or lon"},
		{"string table too long", cat(hdr, rawData(protoBytes(nil, 1, bytes.Repeat([]byte{1<<3 | 2, 0}, 1<<20+1)))), "a string table of 1048577 strings; at most 1048576"},
		{"granularity 0", cat(hdr, rawData(cat(st, protoVarint(nil, 17, 0)))), "granularity 0; it must be positive"},
		{"no header first", cat(rawData(strTable("OSMHeader")), hdr), `the first block is "OSMData"`},
		{"unknown required feature", cat(pbfBlock("OSMHeader", protoBytes(nil, 1, protoBytes(nil, 4, []byte("Sort.Type_then_ID_and_more")))), rawData(st)), `requires the feature "Sort.Type_then_ID_and_more"`},
		{"zstd", cat(hdr, pbfBlock("OSMData", protoBytes(protoVarint(nil, 2, 1), 7, []byte("x")))), "compression zstd is not supported"},
		{"raw and zlib", cat(hdr, pbfBlock("OSMData", protoBytes(protoBytes(nil, 1, []byte("x")), 3, []byte("x")))), "both raw and zlib data"},
		{"raw_size lies about raw", cat(hdr, pbfBlock("OSMData", protoVarint(protoBytes(nil, 1, []byte("x")), 2, 5))), "raw_size 5 but 1 raw bytes"},
		{"truncated block length", cat(hdr, []byte{0, 0}), "a block starts with a 4-byte length; 2 bytes remain"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := buildings.Parse(context.Background(), c.data, buildings.Options{})
			wantFileError(t, err, c.want)
		})
	}
}

// TestPBFCounts: the element bounds are checked on the counts before the
// arrays are allocated (a few MiB of zero bytes ask for millions of
// elements).
func TestPBFCounts(t *testing.T) {
	hdr := minimalHeader()
	st := strTable("", "building")
	zeros := func(n int) []byte { return make([]byte, n) }
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"nodes", cat(hdr, rawData(cat(st, group(protoBytes(nil, 2, cat(protoBytes(nil, 1, zeros(buildings.MaxOSMNodes+1)), protoBytes(nil, 8, zeros(buildings.MaxOSMNodes+1)), protoBytes(nil, 9, zeros(buildings.MaxOSMNodes+1)))))))), "more than 4194304 OpenStreetMap nodes"},
		{"way refs", cat(hdr, rawData(cat(st, group(protoBytes(nil, 3, cat(protoVarint(nil, 1, 1), protoBytes(nil, 8, zeros(buildings.MaxOSMWayNodes+1)))))))), "more than 4194304 OpenStreetMap node references in ways"},
		{"members", cat(hdr, rawData(cat(st, group(protoBytes(nil, 4, cat(protoVarint(nil, 1, 1), protoBytes(nil, 8, zeros(buildings.MaxOSMMembers+1)), protoBytes(nil, 9, zeros(buildings.MaxOSMMembers+1)), protoBytes(nil, 10, zeros(buildings.MaxOSMMembers+1)))))))), "more than 1048576 OpenStreetMap relation members"},
		{"tags", cat(hdr, rawData(cat(st, group(protoBytes(nil, 3, cat(protoVarint(nil, 1, 1), protoBytes(nil, 2, zeros(buildings.MaxOSMTags+1)), protoBytes(nil, 3, zeros(buildings.MaxOSMTags+1)))))))), "more than 4194304 OpenStreetMap tags"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := buildings.Parse(context.Background(), c.data, buildings.Options{})
			wantFileError(t, err, c.want)
		})
	}
}
