package geoexport

import (
	"fmt"
	"iter"
	"math"

	"linkplan/appliance"
)

// GeometryKind says which geometry a Feature carries.
type GeometryKind uint8

const (
	// KindPoint is a single position (Shapefile shape type 1).
	KindPoint GeometryKind = iota + 1
	// KindLineString is an open path of two or more positions (Shapefile
	// shape type 3, one part).
	KindLineString
	// KindMixed is a schema whose features are points or line strings,
	// each its own (GeoJSON and KML). A Shapefile holds one shape type:
	// WriteShapefile refuses it, WriteShapefileZip splits it by kind.
	KindMixed
	// KindMultiPolygon is zero or more polygons, each an exterior ring and
	// zero or more holes (GeoJSON MultiPolygon, Shapefile shape type 5
	// Polygon with one part per ring, KML MultiGeometry of Polygons). Zero
	// polygons is the empty geometry: an empty GeoJSON MultiPolygon, a
	// Shapefile null shape, a KML placemark without geometry.
	KindMultiPolygon
)

func (k GeometryKind) String() string {
	switch k {
	case KindPoint:
		return "Point"
	case KindLineString:
		return "LineString"
	case KindMixed:
		return "Mixed"
	case KindMultiPolygon:
		return "MultiPolygon"
	}
	return fmt.Sprintf("GeometryKind(%d)", uint8(k))
}

// Geometry is a point, a line string or a multipolygon in WGS84 degrees.
type Geometry struct {
	Kind GeometryKind
	// Coords holds one position for a point, two or more for a line
	// string; nothing for a multipolygon.
	Coords []appliance.LatLon
	// Polygons holds the polygons of a multipolygon: each is its exterior
	// ring followed by its holes; each ring is closed (first position equal
	// to the last) with at least 4 positions. Ring orientation is free:
	// every writer orients the rings as its format wants (polygon.go).
	Polygons [][][]appliance.LatLon
}

// Point returns a point geometry at p.
func Point(p appliance.LatLon) Geometry {
	return Geometry{Kind: KindPoint, Coords: []appliance.LatLon{p}}
}

// LineString returns a line string geometry through pts (not copied).
func LineString(pts ...appliance.LatLon) Geometry {
	return Geometry{Kind: KindLineString, Coords: pts}
}

// MultiPolygon returns a multipolygon geometry of polys (not copied): each
// polygon is its exterior ring followed by its holes, rings closed.
func MultiPolygon(polys ...[][]appliance.LatLon) Geometry {
	return Geometry{Kind: KindMultiPolygon, Polygons: polys}
}

// FieldType is the type of an attribute.
type FieldType uint8

const (
	// TypeString is UTF-8 text (dBase C).
	TypeString FieldType = iota + 1
	// TypeInt is a signed 64-bit integer (dBase N, 0 decimals).
	TypeInt
	// TypeFloat is a float64 (dBase N with Decimals decimals).
	TypeFloat
	// TypeBool is true or false (dBase L).
	TypeBool
)

func (t FieldType) String() string {
	switch t {
	case TypeString:
		return "string"
	case TypeInt:
		return "int"
	case TypeFloat:
		return "float"
	case TypeBool:
		return "bool"
	}
	return fmt.Sprintf("FieldType(%d)", uint8(t))
}

// Field describes one attribute of a Schema.
type Field struct {
	Name string    // long name, used as is by GeoJSON and KML
	Type FieldType // attribute type
	// Width is the dBase field width in bytes; 0 picks the default of the
	// type (FORMATS.md). Strings longer than Width bytes are cut at a UTF-8
	// character boundary in the .dbf only.
	Width int
	// Decimals is the number of decimals of a TypeFloat in the .dbf; 0
	// picks DefaultDecimals. GeoJSON and KML keep the full float64.
	Decimals int
	// ListSep, when set, says a TypeString is a list of items joined by
	// it (warning codes, ";"): cut in the .dbf, it keeps whole items and
	// ends with ListSep and "+N more", N the items left out, instead of
	// ending mid-item.
	ListSep string
}

// Schema is the ordered list of attributes shared by every feature of one
// export, and the geometry kind they all have (a Shapefile holds one shape
// type).
type Schema struct {
	Geometry GeometryKind
	Fields   []Field
}

// Value is one typed attribute value; the zero Value is null.
type Value struct {
	typ FieldType // 0 for null
	s   string
	i   int64
	f   float64
	b   bool
}

// String returns a string value.
func String(s string) Value { return Value{typ: TypeString, s: s} }

// Int returns an integer value.
func Int(i int64) Value { return Value{typ: TypeInt, i: i} }

// Float returns a float value; NaN and ±Inf are written as null by every
// writer (JSON, KML and dBase have no spelling for them).
func Float(f float64) Value { return Value{typ: TypeFloat, f: f} }

// Bool returns a boolean value.
func Bool(b bool) Value { return Value{typ: TypeBool, b: b} }

// Null returns the null value (JSON null, an empty KML value, blanks in dBase).
func Null() Value { return Value{} }

// IsNull reports whether v is null or a non-finite float.
func (v Value) IsNull() bool {
	return v.typ == 0 || (v.typ == TypeFloat && (math.IsNaN(v.f) || math.IsInf(v.f, 0)))
}

// Type returns the type of v; 0 for null.
func (v Value) Type() FieldType { return v.typ }

// Str returns the string of a TypeString value.
func (v Value) Str() string { return v.s }

// Int64 returns the integer of a TypeInt value.
func (v Value) Int64() int64 { return v.i }

// Float64 returns the float of a TypeFloat value.
func (v Value) Float64() float64 { return v.f }

// Bool returns the boolean of a TypeBool value.
func (v Value) Bool() bool { return v.b }

// Feature is one geometry with its attributes, in the order of the Schema
// fields (Properties[i] is the value of Schema.Fields[i]).
type Feature struct {
	Geometry   Geometry
	Properties []Value
}

// Source yields the features of one export. The Shapefile writer ranges
// over it twice (once for the counts and bounding box of the headers, once
// to write), so it must yield the same features each time it is called;
// this keeps memory bounded by one feature whatever the count.
type Source = iter.Seq[Feature]

// Slice returns a Source over fs.
func Slice(fs []Feature) Source {
	return func(yield func(Feature) bool) {
		for _, f := range fs {
			if !yield(f) {
				return
			}
		}
	}
}

// Validate checks the schema: a known geometry kind, at least one field,
// unique non-empty names, known types, and widths within the dBase limits.
func (s Schema) Validate() error {
	if s.Geometry != KindPoint && s.Geometry != KindLineString && s.Geometry != KindMixed && s.Geometry != KindMultiPolygon {
		return fmt.Errorf("schema geometry %v: %w", s.Geometry, appliance.ErrInvalid)
	}
	if len(s.Fields) == 0 {
		return fmt.Errorf("schema has no fields: %w", appliance.ErrInvalid)
	}
	if len(s.Fields) > MaxDBFFields {
		return fmt.Errorf("schema has %d fields, dBase allows %d: %w", len(s.Fields), MaxDBFFields, appliance.ErrInvalid)
	}
	seen := make(map[string]bool, len(s.Fields))
	for i, f := range s.Fields {
		if f.Name == "" {
			return fmt.Errorf("schema field %d has no name: %w", i, appliance.ErrInvalid)
		}
		if seen[f.Name] {
			return fmt.Errorf("schema field %q twice: %w", f.Name, appliance.ErrInvalid)
		}
		seen[f.Name] = true
		if f.Type < TypeString || f.Type > TypeBool {
			return fmt.Errorf("schema field %q type %v: %w", f.Name, f.Type, appliance.ErrInvalid)
		}
		if _, _, err := dbfSize(f); err != nil {
			return err
		}
	}
	return nil
}

// check verifies that f matches the schema: geometry kind, coordinate
// count and ranges, and one value of the field's type (or null) per field.
func (s Schema) check(n int, f Feature) error {
	g := f.Geometry
	if g.Kind != s.Geometry && (s.Geometry != KindMixed || (g.Kind != KindPoint && g.Kind != KindLineString)) {
		return fmt.Errorf("feature %d geometry %v, schema wants %v: %w", n, g.Kind, s.Geometry, appliance.ErrInvalid)
	}
	switch {
	case g.Kind == KindPoint && len(g.Coords) != 1:
		return fmt.Errorf("feature %d point has %d positions: %w", n, len(g.Coords), appliance.ErrInvalid)
	case g.Kind == KindLineString && len(g.Coords) < 2:
		return fmt.Errorf("feature %d line string has %d positions, needs 2: %w", n, len(g.Coords), appliance.ErrInvalid)
	case g.Kind == KindMultiPolygon:
		if err := checkPolygons(n, g); err != nil {
			return err
		}
	}
	for _, c := range g.Coords {
		if !c.Valid() {
			return fmt.Errorf("feature %d position %v: %w", n, c, appliance.ErrInvalid)
		}
	}
	if len(f.Properties) != len(s.Fields) {
		return fmt.Errorf("feature %d has %d properties, schema has %d fields: %w", n, len(f.Properties), len(s.Fields), appliance.ErrInvalid)
	}
	for i, v := range f.Properties {
		if v.typ != 0 && v.typ != s.Fields[i].Type {
			return fmt.Errorf("feature %d field %q is %v, schema wants %v: %w", n, s.Fields[i].Name, v.typ, s.Fields[i].Type, appliance.ErrInvalid)
		}
	}
	return nil
}
