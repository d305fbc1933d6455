package geoexport

import (
	"bufio"
	"encoding/binary"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"linkplan/appliance"
)

// GeoTIFF constants of WriteGeoTIFF.
const (
	// GeoTIFFStripBytes is the target size of one strip, bytes (whole rows;
	// at least one row per strip).
	GeoTIFFStripBytes = 64 << 10
	// EPSGWGS84 is the EPSG code of WGS84 geographic coordinates.
	EPSGWGS84 = 4326
)

// TIFF field types and tags used by WriteGeoTIFF (TIFF 6.0, GeoTIFF 1.0,
// GDAL).
const (
	tiffASCII  = 2
	tiffShort  = 3
	tiffLong   = 4
	tiffDouble = 12

	tagImageWidth        = 256
	tagImageLength       = 257
	tagBitsPerSample     = 258
	tagCompression       = 259
	tagPhotometric       = 262
	tagStripOffsets      = 273
	tagSamplesPerPixel   = 277
	tagRowsPerStrip      = 278
	tagStripByteCounts   = 279
	tagPlanarConfig      = 284
	tagExtraSamples      = 338
	tagSampleFormat      = 339
	tagModelPixelScale   = 33550
	tagModelTiepoint     = 33922
	tagGeoKeyDirectory   = 34735
	tagGDALMetadata      = 42112
	tagGDALNoData        = 42113
	geoKeyModelType      = 1024 // GTModelTypeGeoKey
	geoKeyRasterType     = 1025 // GTRasterTypeGeoKey
	geoKeyGeographicType = 2048 // GeographicTypeGeoKey
	modelTypeGeographic  = 2
	rasterPixelIsArea    = 1
	sampleFormatIEEE     = 3
)

// MetadataItem is one dataset metadata item of a GeoTIFF (gdalinfo lists
// it as NAME=value under "Metadata").
type MetadataItem struct {
	Name  string // letters, digits and '_' (others become '_')
	Value string // one line of text (line breaks become spaces)
}

// GeoTIFFMetadata is the GDAL metadata of a GeoTIFF, written as the
// GDAL_METADATA tag (42112): an XML <GDALMetadata> document that GDAL
// reads as dataset items, the band's unit type and its description.
type GeoTIFFMetadata struct {
	Items           []MetadataItem // dataset items, in order
	BandUnit        string         // unit of band 1's values (gdalinfo "Unit Type"), e.g. "dBm"; "" for none
	BandDescription string         // band 1's description; "" for none
	// Bands gives the unit and description of each band of a multi-band
	// GeoTIFF (WriteGeoTIFFBands), in band order; when set it replaces
	// BandUnit and BandDescription.
	Bands []BandMetadata
}

// BandMetadata is the unit and description of one band.
type BandMetadata struct {
	Unit, Description string // "" for none
}

// xml returns m as GDAL writes it.
func (m *GeoTIFFMetadata) xml() string {
	var b strings.Builder
	// GDAL escapes a value for XML and then writes that text as the
	// element's content (escaped again); it reads it back the same way.
	escape := func(s string) string {
		var e strings.Builder
		_ = xml.EscapeText(&e, []byte(s))
		return e.String()
	}
	item := func(name, attrs, value string) {
		fmt.Fprintf(&b, "  <Item name=%q%s>%s</Item>\n", metadataName(name), attrs, escape(escape(strings.Join(strings.Fields(value), " "))))
	}
	b.WriteString("<GDALMetadata>\n")
	for _, it := range m.Items {
		item(it.Name, "", it.Value)
	}
	bands := m.Bands
	if bands == nil {
		bands = []BandMetadata{{Unit: m.BandUnit, Description: m.BandDescription}}
	}
	for i, bm := range bands {
		sample := fmt.Sprintf(` sample="%d"`, i)
		if bm.Unit != "" {
			item("UNITS", sample, bm.Unit)
			item("UNITTYPE", sample+` role="unittype"`, bm.Unit)
		}
		if bm.Description != "" {
			item("DESCRIPTION", sample+` role="description"`, bm.Description)
		}
	}
	b.WriteString("</GDALMetadata>")
	return b.String()
}

// metadataName keeps letters, digits and '_' of a metadata item name.
func metadataName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, s)
}

// WriteGeoTIFF writes a single-band Float32 GeoTIFF of a north-up
// EPSG:4326 raster: classic little-endian TIFF, uncompressed strips of
// whole rows (about GeoTIFFStripBytes each), GeoKeys GTModelTypeGeoKey = 2
// (geographic), GTRasterTypeGeoKey = 1 (PixelIsArea), GeographicTypeGeoKey
// = 4326, ModelTiepointTag tying pixel corner (0, 0) to (west, north) and
// ModelPixelScaleTag (pixelLonDeg, pixelLatDeg, 0), and GDAL_NODATA (tag
// 42113) as ASCII ("nan" for NaN). west and north are the outer edges of
// the north-west pixel, WGS84 degrees; pixel sizes are degrees; data is
// row-major from the north-west pixel (width·height values). Its input
// errors match appliance.ErrInvalid.
func WriteGeoTIFF(w io.Writer, west, north, pixelLonDeg, pixelLatDeg float64, width, height int, data []float32, nodata float64) error {
	return WriteGeoTIFFMeta(w, west, north, pixelLonDeg, pixelLatDeg, width, height, data, nodata, nil)
}

// WriteGeoTIFFMeta is WriteGeoTIFF with the GDAL metadata meta (nil:
// none) in the GDAL_METADATA tag (42112).
func WriteGeoTIFFMeta(w io.Writer, west, north, pixelLonDeg, pixelLatDeg float64, width, height int, data []float32, nodata float64, meta *GeoTIFFMetadata) error {
	return WriteGeoTIFFBands(w, west, north, pixelLonDeg, pixelLatDeg, width, height, [][]float32{data}, nodata, meta)
}

// MaxGeoTIFFBands is the most bands of WriteGeoTIFFBands.
const MaxGeoTIFFBands = 16

// WriteGeoTIFFBands is WriteGeoTIFFMeta with several Float32 bands of the
// same grid (1..MaxGeoTIFFBands, each width·height values), pixel
// interleaved (PlanarConfiguration 1, ExtraSamples unspecified for bands
// after the first); meta.Bands names them. One band gives the bytes of
// WriteGeoTIFFMeta.
func WriteGeoTIFFBands(w io.Writer, west, north, pixelLonDeg, pixelLatDeg float64, width, height int, bands [][]float32, nodata float64, meta *GeoTIFFMetadata) error {
	v := &appliance.ValidationError{}
	nb := len(bands)
	if nb < 1 || nb > MaxGeoTIFFBands {
		return fmt.Errorf("write geotiff: %w", appliance.Invalid("bands", "must hold 1..%d bands, got %d", MaxGeoTIFFBands, nb))
	}
	if !(west >= -180 && west <= 180) {
		v.Add("west", "must be a longitude in degrees (−180..180), got %g", west)
	}
	if !(north >= -90 && north <= 90) {
		v.Add("north", "must be a latitude in degrees (−90..90), got %g", north)
	}
	if !(pixelLonDeg > 0 && pixelLonDeg <= 360) {
		v.Add("pixel_lon_deg", "must be a width > 0 degrees, got %g", pixelLonDeg)
	}
	if !(pixelLatDeg > 0 && pixelLatDeg <= 180) {
		v.Add("pixel_lat_deg", "must be a height > 0 degrees, got %g", pixelLatDeg)
	}
	if width <= 0 || height <= 0 || width > 1<<20 || height > 1<<20 {
		v.Add("size", "must be 1..%d pixels each way, got %d×%d", 1<<20, width, height)
	} else if int64(width)*int64(height)*4*int64(nb) > math.MaxUint32-(1<<20) {
		v.Add("size", "%d×%d Float32 pixels of %d bands exceed a classic TIFF (4 GiB)", width, height, nb)
	} else {
		for _, b := range bands {
			if len(b) != width*height {
				v.Add("data", "has %d values for %d×%d pixels", len(b), width, height)
				break
			}
		}
	}
	if math.IsInf(nodata, 0) {
		v.Add("nodata", "must be finite or NaN, got %g", nodata)
	}
	if err := v.Err(); err != nil {
		return fmt.Errorf("write geotiff: %w", err)
	}

	rowBytes := 4 * width * nb
	rps := max(1, GeoTIFFStripBytes/rowBytes)
	nstrips := (height + rps - 1) / rps
	nd := "nan"
	if !math.IsNaN(nodata) {
		nd = strconv.FormatFloat(nodata, 'g', -1, 64)
	}

	type entry struct {
		tag, typ uint16
		count    uint32
		data     []byte // little-endian values
	}
	le := binary.LittleEndian
	shorts := func(vs ...uint16) []byte {
		b := make([]byte, 0, 2*len(vs))
		for _, x := range vs {
			b = le.AppendUint16(b, x)
		}
		return b
	}
	longs := func(vs ...uint32) []byte {
		b := make([]byte, 0, 4*len(vs))
		for _, x := range vs {
			b = le.AppendUint32(b, x)
		}
		return b
	}
	doubles := func(vs ...float64) []byte {
		b := make([]byte, 0, 8*len(vs))
		for _, x := range vs {
			b = le.AppendUint64(b, math.Float64bits(x))
		}
		return b
	}
	counts := make([]uint32, nstrips)
	for s := range counts {
		counts[s] = uint32(min(rps, height-s*rps) * rowBytes)
	}
	entries := []entry{
		{tagImageWidth, tiffLong, 1, longs(uint32(width))},
		{tagImageLength, tiffLong, 1, longs(uint32(height))},
		{tagBitsPerSample, tiffShort, uint32(nb), shorts(repeat16(32, nb)...)},
		{tagCompression, tiffShort, 1, shorts(1)},
		{tagPhotometric, tiffShort, 1, shorts(1)}, // BlackIsZero
		{tagStripOffsets, tiffLong, uint32(nstrips), nil},
		{tagSamplesPerPixel, tiffShort, 1, shorts(uint16(nb))},
		{tagRowsPerStrip, tiffLong, 1, longs(uint32(rps))},
		{tagStripByteCounts, tiffLong, uint32(nstrips), longs(counts...)},
		{tagPlanarConfig, tiffShort, 1, shorts(1)},
	}
	if nb > 1 {
		entries = append(entries, entry{tagExtraSamples, tiffShort, uint32(nb - 1), shorts(repeat16(0, nb-1)...)})
	}
	entries = append(entries, []entry{
		{tagSampleFormat, tiffShort, uint32(nb), shorts(repeat16(sampleFormatIEEE, nb)...)},
		{tagModelPixelScale, tiffDouble, 3, doubles(pixelLonDeg, pixelLatDeg, 0)},
		{tagModelTiepoint, tiffDouble, 6, doubles(0, 0, 0, west, north, 0)},
		{tagGeoKeyDirectory, tiffShort, 16, shorts(1, 1, 0, 3,
			geoKeyModelType, 0, 1, modelTypeGeographic,
			geoKeyRasterType, 0, 1, rasterPixelIsArea,
			geoKeyGeographicType, 0, 1, EPSGWGS84)},
	}...)
	if meta != nil {
		x := meta.xml()
		entries = append(entries, entry{tagGDALMetadata, tiffASCII, uint32(len(x) + 1), append([]byte(x), 0)})
	}
	entries = append(entries, entry{tagGDALNoData, tiffASCII, uint32(len(nd) + 1), append([]byte(nd), 0)})
	// Layout: header (8), IFD, out-of-line values (even offsets), strips.
	ifdLen := 2 + 12*len(entries) + 4
	off := uint32(8 + ifdLen)
	valueOff := make([]uint32, len(entries))
	stripIdx := 5
	entries[stripIdx].data = make([]byte, 4*nstrips) // sized now, filled below
	for i, e := range entries {
		if len(e.data) > 4 {
			valueOff[i] = off
			off += uint32(len(e.data) + len(e.data)%2)
		}
	}
	stripStart := off
	offsets := make([]uint32, nstrips)
	for s := range offsets {
		offsets[s] = stripStart + uint32(s*rps*rowBytes)
	}
	entries[stripIdx].data = longs(offsets...)

	bw := bufio.NewWriterSize(w, 1<<16)
	hdr := []byte{'I', 'I'}
	hdr = le.AppendUint16(hdr, 42)
	hdr = le.AppendUint32(hdr, 8)
	buf := le.AppendUint16(hdr, uint16(len(entries)))
	for i, e := range entries {
		buf = le.AppendUint16(buf, e.tag)
		buf = le.AppendUint16(buf, e.typ)
		buf = le.AppendUint32(buf, e.count)
		if len(e.data) > 4 {
			buf = le.AppendUint32(buf, valueOff[i])
		} else {
			var inline [4]byte
			copy(inline[:], e.data)
			buf = append(buf, inline[:]...)
		}
	}
	buf = le.AppendUint32(buf, 0) // no next IFD
	for _, e := range entries {
		if len(e.data) > 4 {
			buf = append(buf, e.data...)
			if len(e.data)%2 == 1 {
				buf = append(buf, 0)
			}
		}
	}
	if _, err := bw.Write(buf); err != nil {
		return fmt.Errorf("write geotiff: header: %w", err)
	}
	row := make([]byte, rowBytes)
	for y := range height {
		for b, band := range bands {
			for x, val := range band[y*width : (y+1)*width] {
				le.PutUint32(row[4*(x*nb+b):], math.Float32bits(val))
			}
		}
		if _, err := bw.Write(row); err != nil {
			return fmt.Errorf("write geotiff: row %d: %w", y, err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write geotiff: %w", err)
	}
	return nil
}

// repeat16 returns n copies of v.
func repeat16(v uint16, n int) []uint16 {
	out := make([]uint16, n)
	for i := range out {
		out[i] = v
	}
	return out
}
