package geoexport

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geojson"

	"linkplan/appliance"
)

// CoordDecimals is the number of decimals kept in GeoJSON and KML
// coordinates: 1e-7 degree is at most 1.1 cm on the ground, below any
// position this appliance knows, and RFC 7946 §11.2 recommends not to
// write more.
const CoordDecimals = 7

const coordFactor = 1e7 // 10^CoordDecimals, for orb.Round

// orbGeometry returns g as an orb geometry in [lon, lat] order, rounded to
// CoordDecimals.
func orbGeometry(g Geometry) orb.Geometry {
	if g.Kind == KindPoint {
		return orb.Round(orb.Point{g.Coords[0].Lon, g.Coords[0].Lat}, coordFactor)
	}
	if g.Kind == KindMultiPolygon {
		return orb.Round(orbMultiPolygon(g), coordFactor)
	}
	ls := make(orb.LineString, len(g.Coords))
	for i, c := range g.Coords {
		ls[i] = orb.Point{c.Lon, c.Lat}
	}
	return orb.Round(ls, coordFactor)
}

// WriteGeoJSON writes the features of src as one RFC 7946 FeatureCollection:
// WGS84 [lon, lat] positions rounded to CoordDecimals, properties in schema
// order with their long names, null for null values and non-finite floats.
// One feature per line, so that the output streams in bounded memory and
// diffs well. The geometry is encoded by orb/geojson.
func WriteGeoJSON(w io.Writer, s Schema, src Source) error {
	if err := s.Validate(); err != nil {
		return fmt.Errorf("write geojson: %w", err)
	}
	keys := make([][]byte, len(s.Fields))
	for i, f := range s.Fields {
		k, err := json.Marshal(f.Name)
		if err != nil {
			return fmt.Errorf("write geojson: field name %q: %w", f.Name, err)
		}
		keys[i] = k
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString(`{"type":"FeatureCollection","features":[`)
	n := 0
	var buf []byte
	for f := range src {
		if err := s.check(n, f); err != nil {
			return fmt.Errorf("write geojson: %w", err)
		}
		geom, err := geojson.NewGeometry(orbGeometry(f.Geometry)).MarshalJSON()
		if err != nil {
			return fmt.Errorf("write geojson feature %d geometry: %w", n, err)
		}
		buf = buf[:0]
		if n > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, "\n{\"type\":\"Feature\",\"geometry\":"...)
		buf = append(buf, geom...)
		buf = append(buf, `,"properties":{`...)
		for i, v := range f.Properties {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = append(buf, keys[i]...)
			buf = append(buf, ':')
			if buf, err = appendJSONValue(buf, v); err != nil {
				return fmt.Errorf("write geojson feature %d field %q: %w", n, s.Fields[i].Name, err)
			}
		}
		buf = append(buf, "}}"...)
		if _, err := bw.Write(buf); err != nil {
			return fmt.Errorf("write geojson feature %d: %w", n, err)
		}
		n++
	}
	bw.WriteString("\n]}\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write geojson: %w", err)
	}
	return nil
}

// appendJSONValue appends v as a JSON value. Floats use the shortest
// representation that reads back to the same float64.
func appendJSONValue(b []byte, v Value) ([]byte, error) {
	if v.IsNull() {
		return append(b, "null"...), nil
	}
	switch v.typ {
	case TypeString:
		s, err := json.Marshal(v.s) // replaces invalid UTF-8 by U+FFFD
		if err != nil {
			return b, err
		}
		return append(b, s...), nil
	case TypeInt:
		return strconv.AppendInt(b, v.i, 10), nil
	case TypeFloat:
		return appendJSONFloat(b, v.f), nil
	case TypeBool:
		return strconv.AppendBool(b, v.b), nil
	}
	return b, fmt.Errorf("value type %v: %w", v.typ, appliance.ErrInvalid)
}

// appendJSONFloat appends a finite f in its shortest form, with ".0" added
// when that form is an integer ("12500.0", not "12500"). JSON has one
// number type, but GeoJSON has no schema, so readers type a property from
// its spelling: GDAL makes a column of integral spellings Integer, and a
// float field whose values happen to be whole (a distance of 12500 m)
// would change type with the data.
func appendJSONFloat(b []byte, f float64) []byte {
	start := len(b)
	b = strconv.AppendFloat(b, f, 'g', -1, 64)
	for _, c := range b[start:] {
		if c == '.' || c == 'e' || c == 'E' {
			return b
		}
	}
	return append(b, ".0"...)
}
