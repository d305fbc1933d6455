package geoexport

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"time"

	"linkplan/appliance"
)

// PRJWGS84 is the .prj of every Shapefile written here: the ESRI WKT of
// geographic WGS 84 (EPSG:4326), degrees, as ArcGIS and GDAL write it.
const PRJWGS84 = `GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]`

// CPGUTF8 is the .cpg of every Shapefile written here: the .dbf strings are UTF-8.
const CPGUTF8 = "UTF-8"

// Shapefile shape types (ESRI Shapefile Technical Description, 1998, p. 4).
const (
	shpPoint    = 1
	shpPolyLine = 3
)

const (
	shpFileCode   = 9994
	shpVersion    = 1000
	shpHeaderLen  = 100 // bytes, .shp and .shx
	shpRecHdrLen  = 8   // bytes: record number and content length
	shxRecLen     = 8   // bytes: offset and content length
	maxShpFileLen = math.MaxInt32 * 2
)

// ShapefileSet names the five writers of one Shapefile set. Every one is
// required; each receives its file from first to last byte, in one pass.
type ShapefileSet struct {
	SHP, SHX, DBF, PRJ, CPG io.Writer
}

// ShapefileOptions tunes WriteShapefile.
type ShapefileOptions struct {
	// Updated is the "last update" date in the .dbf header (UTC date only);
	// the zero time writes FixedDate so that output is reproducible.
	Updated time.Time
}

// FixedDate returns the date written where a format wants one and the
// caller gave none (the .dbf last update, KMZ entry times), so that output
// is reproducible: 2000-01-01 00:00 UTC.
func FixedDate() time.Time { return time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC) }

// shpContentLen returns the length of the record content of g, bytes.
func shpContentLen(g Geometry) int {
	if g.Kind == KindPoint {
		return 4 + 16 // shape type, X, Y
	}
	if g.Kind == KindMultiPolygon {
		return shpPolygonContentLen(g)
	}
	// shape type, box, NumParts, NumPoints, Parts[1], Points
	return 4 + 32 + 4 + 4 + 4 + 16*len(g.Coords)
}

type bbox struct{ minX, minY, maxX, maxY float64 }

func (b *bbox) add(p appliance.LatLon) {
	b.minX, b.maxX = min(b.minX, p.Lon), max(b.maxX, p.Lon)
	b.minY, b.maxY = min(b.minY, p.Lat), max(b.maxY, p.Lat)
}

func emptyBox() bbox { return bbox{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)} }

// orZero returns b, or the zero box when nothing was added (an empty
// Shapefile has an all-zero bounding box, as GDAL writes it).
func (b bbox) orZero() bbox {
	if b.minX > b.maxX {
		return bbox{}
	}
	return b
}

// WriteShapefile writes the features of src as an ESRI Shapefile set: point
// (type 1), polyline (type 3) or polygon (type 5; an empty multipolygon is
// a null shape) shapes by s.Geometry, attributes in a
// dBase III table with the ShortNames of s, WGS84 .prj and UTF-8 .cpg
// (FORMATS.md). It ranges over src twice: a first pass checks every
// feature and sums the counts, lengths and bounding box that the headers
// need, the second writes. Memory is bounded by one feature and the
// buffers, whatever the feature count. On error the writers hold a partial
// set, to be discarded.
func WriteShapefile(set ShapefileSet, s Schema, src Source, opt ShapefileOptions) error {
	if set.SHP == nil || set.SHX == nil || set.DBF == nil || set.PRJ == nil || set.CPG == nil {
		return fmt.Errorf("write shapefile: a writer of the set is nil: %w", appliance.ErrInvalid)
	}
	if err := s.Validate(); err != nil {
		return fmt.Errorf("write shapefile: %w", err)
	}
	if s.Geometry == KindMixed {
		return fmt.Errorf("write shapefile: a Shapefile holds one shape type, the schema is mixed (WriteShapefileZip splits it): %w", appliance.ErrInvalid)
	}
	updated := opt.Updated
	if updated.IsZero() {
		updated = FixedDate()
	}
	updated = updated.UTC()
	if y := updated.Year(); y < 1900 || y > 1900+255 {
		return fmt.Errorf("write shapefile: dbf date year %d outside 1900..2155: %w", y, appliance.ErrInvalid)
	}

	// Pass 1: check, count, measure.
	count, shpWords := 0, shpHeaderLen/2
	box := emptyBox()
	var err error
	for f := range src {
		if err = s.check(count, f); err != nil {
			break
		}
		eachPosition(f.Geometry, box.add)
		shpWords += (shpRecHdrLen + shpContentLen(f.Geometry)) / 2
		count++
		if 2*int64(shpWords) > maxShpFileLen {
			err = fmt.Errorf("shapefile larger than %d bytes: %w", int64(maxShpFileLen), appliance.ErrInvalid)
			break
		}
	}
	if err != nil {
		return fmt.Errorf("write shapefile: %w", err)
	}
	box = box.orZero()
	shxWords := (shpHeaderLen + shxRecLen*count) / 2
	shapeType := int32(shpPoint)
	switch s.Geometry {
	case KindLineString:
		shapeType = shpPolyLine
	case KindMultiPolygon:
		shapeType = shpPolygon
	}

	// Pass 2: write.
	shp := bufio.NewWriterSize(set.SHP, 64<<10)
	shx := bufio.NewWriterSize(set.SHX, 16<<10)
	dbfBuf := bufio.NewWriterSize(set.DBF, 64<<10)
	if err := writeShpHeader(shp, shpWords, shapeType, box); err != nil {
		return fmt.Errorf("write shapefile .shp header: %w", err)
	}
	if err := writeShpHeader(shx, shxWords, shapeType, box); err != nil {
		return fmt.Errorf("write shapefile .shx header: %w", err)
	}
	dbf, err := newDBFWriter(dbfBuf, s, count, updated)
	if err != nil {
		return fmt.Errorf("write shapefile: %w", err)
	}
	n, offset := 0, shpHeaderLen/2 // offset in 16-bit words
	var rec []byte
	for f := range src {
		if n == count {
			err = fmt.Errorf("source yielded more than the %d features of its first pass: %w", count, appliance.ErrInvalid)
			break
		}
		if err = s.check(n, f); err != nil { // the source could have changed
			break
		}
		rec = appendShpRecord(rec[:0], n+1, f.Geometry)
		if _, err = shp.Write(rec); err != nil {
			err = fmt.Errorf("write .shp record %d: %w", n+1, err)
			break
		}
		contentWords := (len(rec) - shpRecHdrLen) / 2
		var x [shxRecLen]byte
		binary.BigEndian.PutUint32(x[0:], uint32(offset))
		binary.BigEndian.PutUint32(x[4:], uint32(contentWords))
		if _, err = shx.Write(x[:]); err != nil {
			err = fmt.Errorf("write .shx record %d: %w", n+1, err)
			break
		}
		if err = dbf.write(n, f); err != nil {
			break
		}
		offset += len(rec) / 2
		n++
	}
	if err == nil && n != count {
		err = fmt.Errorf("source yielded %d features, its first pass %d: %w", n, count, appliance.ErrInvalid)
	}
	if err != nil {
		return fmt.Errorf("write shapefile: %w", err)
	}
	if err := dbf.close(); err != nil {
		return fmt.Errorf("write shapefile: %w", err)
	}
	for _, fl := range []struct {
		name string
		w    *bufio.Writer
	}{{".shp", shp}, {".shx", shx}, {".dbf", dbfBuf}} {
		if err := fl.w.Flush(); err != nil {
			return fmt.Errorf("write shapefile %s: %w", fl.name, err)
		}
	}
	if _, err := io.WriteString(set.PRJ, PRJWGS84); err != nil {
		return fmt.Errorf("write shapefile .prj: %w", err)
	}
	if _, err := io.WriteString(set.CPG, CPGUTF8); err != nil {
		return fmt.Errorf("write shapefile .cpg: %w", err)
	}
	return nil
}

// writeShpHeader writes the 100-byte header shared by .shp and .shx:
// big-endian file code and length (16-bit words), little-endian version,
// shape type and bounding box; Z and M ranges are zero.
func writeShpHeader(w io.Writer, words int, shapeType int32, b bbox) error {
	var h [shpHeaderLen]byte
	binary.BigEndian.PutUint32(h[0:], shpFileCode)
	binary.BigEndian.PutUint32(h[24:], uint32(words))
	binary.LittleEndian.PutUint32(h[28:], shpVersion)
	binary.LittleEndian.PutUint32(h[32:], uint32(shapeType))
	binary.LittleEndian.PutUint64(h[36:], math.Float64bits(b.minX))
	binary.LittleEndian.PutUint64(h[44:], math.Float64bits(b.minY))
	binary.LittleEndian.PutUint64(h[52:], math.Float64bits(b.maxX))
	binary.LittleEndian.PutUint64(h[60:], math.Float64bits(b.maxY))
	_, err := w.Write(h[:])
	return err
}

// appendShpRecord appends the .shp record number recNo (1-based) holding g:
// big-endian record header, little-endian content.
func appendShpRecord(b []byte, recNo int, g Geometry) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(recNo))
	b = binary.BigEndian.AppendUint32(b, uint32(shpContentLen(g)/2))
	le := binary.LittleEndian
	f64 := func(b []byte, v float64) []byte { return le.AppendUint64(b, math.Float64bits(v)) }
	if g.Kind == KindPoint {
		b = le.AppendUint32(b, shpPoint)
		b = f64(b, g.Coords[0].Lon)
		return f64(b, g.Coords[0].Lat)
	}
	if g.Kind == KindMultiPolygon {
		return appendShpPolygon(b, g)
	}
	box := emptyBox()
	for _, c := range g.Coords {
		box.add(c)
	}
	b = le.AppendUint32(b, shpPolyLine)
	b = f64(b, box.minX)
	b = f64(b, box.minY)
	b = f64(b, box.maxX)
	b = f64(b, box.maxY)
	b = le.AppendUint32(b, 1) // NumParts
	b = le.AppendUint32(b, uint32(len(g.Coords)))
	b = le.AppendUint32(b, 0) // Parts[0]
	for _, c := range g.Coords {
		b = f64(b, c.Lon)
		b = f64(b, c.Lat)
	}
	return b
}
