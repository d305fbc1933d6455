package buildings

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/paulmach/orb"
)

// parseShapefileZip reads a zipped Shapefile of polygons (shape types 5,
// 15, 25) with its dBase attributes, written from the ESRI Shapefile
// Technical Description (1998): no Go library for reading Shapefiles is
// reachable from this project's module proxy. Coordinates must be WGS84
// longitude/latitude (or SIRGAS 2000 longitude/latitude, read as WGS84
// with a warning): a .prj naming another system is refused (reproject
// with ogr2ogr -t_srs EPSG:4326).
func parseShapefileZip(data []byte, opts Options, im *Import) error {
	ents, err := zipEntries(data, im.run)
	if err != nil {
		return err
	}
	shp, ok := ents[".shp"]
	if !ok {
		return invalid("file", "zip holds no .shp file")
	}
	if prj, ok := ents[".prj"]; ok {
		note, err := prjCRS(prj)
		if err != nil {
			return err
		}
		if note != nil {
			im.Warnings = append(im.Warnings, *note)
		}
	}
	shapes, err := readShp(shp)
	if err != nil {
		return err
	}
	var rows []map[string]string
	if dbf, ok := ents[".dbf"]; ok {
		if rows, err = readDbf(dbf, ents[".cpg"]); err != nil {
			return err
		}
	}
	c := &collector{opts: opts, im: im}
	for i, s := range shapes {
		id := fmt.Sprintf("record/%d", i+1)
		var tags map[string]string
		if i < len(rows) {
			tags = rows[i]
		}
		if s.reason != "" {
			c.refuse(id, "%s", s.reason)
			continue
		}
		if s.null {
			c.refuse(id, "has a null shape")
			continue
		}
		c.add(id, assemble(s.rings), tags)
	}
	return nil
}

type shape struct {
	rings  []orb.Ring
	null   bool
	reason string
}

// readShp reads the main file. A malformed header fails the file; a
// malformed record stops the reading with the records before it kept and
// the rest refused as one.
func readShp(b []byte) ([]shape, error) {
	if len(b) < 100 || binary.BigEndian.Uint32(b[0:4]) != 9994 {
		return nil, invalid("file", ".shp has no Shapefile header (file code 9994)")
	}
	st := binary.LittleEndian.Uint32(b[32:36])
	switch st {
	case 5, 15, 25:
	default:
		return nil, invalid("file", ".shp holds shape type %d; building footprints must be polygons (5, 15 or 25)", st)
	}
	var out []shape
	off := 100
	for off+8 <= len(b) {
		clen := int(binary.BigEndian.Uint32(b[off+4:off+8])) * 2
		off += 8
		if clen < 4 || off+clen > len(b) {
			out = append(out, shape{reason: fmt.Sprintf("record at byte %d has a length (%d bytes) beyond the file", off-8, clen)})
			break
		}
		rec := b[off : off+clen]
		off += clen
		t := binary.LittleEndian.Uint32(rec[0:4])
		if t == 0 {
			out = append(out, shape{null: true})
			continue
		}
		if t != st {
			out = append(out, shape{reason: fmt.Sprintf("has shape type %d in a file of type %d", t, st)})
			continue
		}
		if len(rec) < 44 {
			out = append(out, shape{reason: "polygon record is too short"})
			continue
		}
		np := int(binary.LittleEndian.Uint32(rec[36:40]))
		npt := int(binary.LittleEndian.Uint32(rec[40:44]))
		if np < 1 || npt < 1 || np > 1<<16 || npt > 1<<22 || 44+4*np+16*npt > len(rec) {
			out = append(out, shape{reason: fmt.Sprintf("polygon record declares %d parts and %d points beyond its length", np, npt)})
			continue
		}
		parts := make([]int, np+1)
		for k := 0; k < np; k++ {
			parts[k] = int(binary.LittleEndian.Uint32(rec[44+4*k:]))
		}
		parts[np] = npt
		pts := rec[44+4*np:]
		var s shape
		for k := 0; k < np; k++ {
			if parts[k] < 0 || parts[k] >= parts[k+1] || parts[k+1] > npt {
				s.reason = fmt.Sprintf("part %d has invalid point indices", k+1)
				break
			}
			r := make(orb.Ring, 0, parts[k+1]-parts[k])
			for q := parts[k]; q < parts[k+1]; q++ {
				x := math.Float64frombits(binary.LittleEndian.Uint64(pts[16*q:]))
				y := math.Float64frombits(binary.LittleEndian.Uint64(pts[16*q+8:]))
				r = append(r, orb.Point{x, y})
			}
			s.rings = append(s.rings, r)
		}
		out = append(out, s)
	}
	return out, nil
}

// assemble turns Shapefile rings into polygons: a clockwise ring starts a
// polygon, a counter-clockwise ring is a hole of the clockwise ring that
// holds it (ESRI convention).
func assemble(rings []orb.Ring) orb.Geometry {
	var polys []orb.Polygon
	var holes []orb.Ring
	for _, r := range rings {
		if r.Orientation() == orb.CW {
			polys = append(polys, orb.Polygon{r})
		} else {
			holes = append(holes, r)
		}
	}
	if len(polys) == 0 { // counter-clockwise outer rings: read as outers
		for _, r := range holes {
			polys = append(polys, orb.Polygon{r})
		}
		holes = nil
	}
	for _, h := range holes {
		placed := false
		for i := range polys {
			if len(h) > 0 && ringContains(polys[i][0], h[0]) {
				polys[i] = append(polys[i], h)
				placed = true
				break
			}
		}
		if !placed { // a hole outside every outer ring: keep it as a ring so validation names it
			polys[0] = append(polys[0], h)
		}
	}
	if len(polys) == 1 {
		return polys[0]
	}
	return orb.MultiPolygon(polys)
}

func ringContains(r orb.Ring, p orb.Point) bool {
	in := false
	j := len(r) - 1
	for i := range r {
		if (r[i][1] > p[1]) != (r[j][1] > p[1]) && p[0] < (r[j][0]-r[i][0])*(p[1]-r[i][1])/(r[j][1]-r[i][1])+r[i][0] {
			in = !in
		}
		j = i
	}
	return in
}

// readDbf reads dBase III records as UTF-8 text, keyed by field name,
// decoded by the .cpg or the language driver id (dbfEncoding).
func readDbf(b []byte, cpg []byte) ([]map[string]string, error) {
	if len(b) < 32 {
		return nil, invalid("file", ".dbf is too short for a dBase header")
	}
	n := int(binary.LittleEndian.Uint32(b[4:8]))
	hlen := int(binary.LittleEndian.Uint16(b[8:10]))
	rlen := int(binary.LittleEndian.Uint16(b[10:12]))
	if hlen < 33 || hlen > len(b) || rlen < 1 {
		return nil, invalid("file", ".dbf header is malformed")
	}
	enc := dbfEncoding(cpg, b[29])
	type field struct {
		name     string
		off, len int
	}
	var fields []field
	off := 1 // the deletion flag
	for p := 32; p+32 <= hlen && b[p] != 0x0d; p += 32 {
		name := enc.text(bytes.TrimRight(b[p:p+11], "\x00 "))
		fl := int(b[p+16])
		fields = append(fields, field{name, off, fl})
		off += fl
	}
	if off > rlen {
		return nil, invalid("file", ".dbf fields are longer than its records")
	}
	if n > (len(b)-hlen)/rlen {
		n = (len(b) - hlen) / rlen
	}
	rows := make([]map[string]string, n)
	for i := 0; i < n; i++ {
		rec := b[hlen+i*rlen : hlen+(i+1)*rlen]
		m := make(map[string]string, len(fields))
		for _, f := range fields {
			m[f.name] = strings.TrimSpace(enc.text(rec[f.off : f.off+f.len]))
			if lower := strings.ToLower(f.name); lower != f.name {
				if _, ok := m[lower]; !ok {
					m[lower] = m[f.name]
				}
			}
		}
		rows[i] = m
	}
	return rows, nil
}
