package geoexport

import (
	"archive/zip"
	"bufio"
	"encoding/xml"
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/twpayne/go-kml/v3"

	"linkplan/appliance"
)

// KMLSchemaID is the id of the KML <Schema> that types the ExtendedData of
// every placemark.
const KMLSchemaID = "attributes"

// StatusStyle is the look of the placemarks whose style field has Value.
type StatusStyle struct {
	Value string     // value of KMLOptions.StyleField
	Color color.RGBA // icon and line colour
}

// KMLOptions tunes WriteKML and WriteKMZ.
type KMLOptions struct {
	// DocumentName is the <Document><name>.
	DocumentName string
	// NameField names the TypeString field whose value is the placemark
	// <name>; empty for none.
	NameField string
	// StyleField names the TypeString field that selects the shared style
	// of a placemark ("status" for link results); empty for no styles.
	StyleField string
	// Styles are the shared styles, one per value of StyleField, in
	// document order; a placemark whose value has no style gets the
	// "other" style. Style ids are "status-<index>", by position here.
	Styles []StatusStyle
	// Modified is the time of doc.kml inside a KMZ; zero writes FixedDate.
	Modified time.Time
}

// otherColor is the colour of the style of values without a StatusStyle.
func otherColor() color.RGBA { return color.RGBA{R: 0x80, G: 0x80, B: 0x80, A: 0xff} }

func styleID(i int) string { return "status-" + strconv.Itoa(i) }

func kmlFieldType(t FieldType) string {
	switch t {
	case TypeInt:
		return "int"
	case TypeFloat:
		return "double"
	case TypeBool:
		return "bool"
	}
	return "string"
}

// kmlValue is the SimpleData text of v: Go's shortest float64 form, 1 or 0
// for booleans (the KML xsd:boolean spelling GDAL reads back).
func kmlValue(v Value) string {
	switch v.typ {
	case TypeString:
		return v.s
	case TypeInt:
		return strconv.FormatInt(v.i, 10)
	case TypeFloat:
		return strconv.FormatFloat(v.f, 'g', -1, 64)
	case TypeBool:
		if v.b {
			return "1"
		}
		return "0"
	}
	return ""
}

func fieldIndex(s Schema, name string) (int, error) {
	if name == "" {
		return -1, nil
	}
	for i, f := range s.Fields {
		if f.Name == name {
			if f.Type != TypeString {
				return 0, fmt.Errorf("field %q is %v, want string: %w", name, f.Type, appliance.ErrInvalid)
			}
			return i, nil
		}
	}
	return 0, fmt.Errorf("no field %q: %w", name, appliance.ErrInvalid)
}

// WriteKML writes the features of src as a KML 2.2 document: one shared
// style per StatusStyle (and "other"), a <Schema> typing the attributes,
// and one Placemark per feature with its attributes as
// ExtendedData/SchemaData/SimpleData (null values are left out) and its
// geometry as a Point, a LineString or a MultiGeometry of Polygons (none
// for an empty multipolygon), positions rounded to CoordDecimals.
// Placemarks are encoded one at a time by go-kml, so memory is bounded.
func WriteKML(w io.Writer, s Schema, src Source, opt KMLOptions) error {
	if err := s.Validate(); err != nil {
		return fmt.Errorf("write kml: %w", err)
	}
	nameIdx, err := fieldIndex(s, opt.NameField)
	if err != nil {
		return fmt.Errorf("write kml name field: %w", err)
	}
	styleIdx, err := fieldIndex(s, opt.StyleField)
	if err != nil {
		return fmt.Errorf("write kml style field: %w", err)
	}
	styleOf := make(map[string]string, len(opt.Styles))
	for i, st := range opt.Styles {
		if _, dup := styleOf[st.Value]; dup {
			return fmt.Errorf("write kml: style for %q twice: %w", st.Value, appliance.ErrInvalid)
		}
		styleOf[st.Value] = styleID(i)
	}

	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString(xml.Header)
	enc := xml.NewEncoder(bw)
	kmlStart := xml.StartElement{Name: xml.Name{Local: "kml"}, Attr: []xml.Attr{{Name: xml.Name{Local: "xmlns"}, Value: kml.Namespace}}}
	docStart := xml.StartElement{Name: xml.Name{Local: "Document"}}
	if err := enc.EncodeToken(kmlStart); err != nil {
		return fmt.Errorf("write kml: %w", err)
	}
	if err := enc.EncodeToken(docStart); err != nil {
		return fmt.Errorf("write kml: %w", err)
	}
	head := []kml.Element{kml.Name(opt.DocumentName)}
	if styleIdx >= 0 {
		for i, st := range opt.Styles {
			head = append(head, sharedStyle(styleID(i), st.Color))
		}
		head = append(head, sharedStyle("status-other", otherColor()))
	}
	schema := kml.Schema(KMLSchemaID)
	for _, f := range s.Fields {
		schema.Append(kml.SimpleField(f.Name, kmlFieldType(f.Type)))
	}
	head = append(head, schema)
	for _, e := range head {
		if err := enc.Encode(e); err != nil {
			return fmt.Errorf("write kml document head: %w", err)
		}
	}
	if err := enc.Flush(); err != nil {
		return fmt.Errorf("write kml document head: %w", err)
	}
	bw.WriteByte('\n')

	n := 0
	children := make([]kml.Element, 0, 4)
	data := make([]kml.Element, 0, len(s.Fields))
	coords := make([]kml.Coordinate, 0, 2)
	for f := range src {
		if err := s.check(n, f); err != nil {
			return fmt.Errorf("write kml: %w", err)
		}
		children = children[:0]
		if nameIdx >= 0 {
			children = append(children, kml.Name(f.Properties[nameIdx].s))
		}
		if styleIdx >= 0 {
			id, ok := styleOf[f.Properties[styleIdx].s]
			if !ok {
				id = "status-other"
			}
			children = append(children, kml.StyleURL("#"+id))
		}
		data = data[:0]
		for i, v := range f.Properties {
			if !v.IsNull() {
				data = append(data, kml.SimpleData(s.Fields[i].Name, kmlValue(v)))
			}
		}
		children = append(children, kml.ExtendedData(kml.SchemaData("#"+KMLSchemaID, data...)))
		coords = coords[:0]
		for _, c := range f.Geometry.Coords {
			coords = append(coords, kml.Coordinate{Lon: roundCoord(c.Lon), Lat: roundCoord(c.Lat)})
		}
		switch f.Geometry.Kind {
		case KindPoint:
			children = append(children, kml.Point(kml.Coordinates(coords...)))
		case KindMultiPolygon:
			if mg := kmlMultiPolygon(f.Geometry); mg != nil {
				children = append(children, mg)
			}
		default:
			children = append(children, kml.LineString(kml.Coordinates(coords...)))
		}
		if err := enc.Encode(kml.Placemark(children...)); err != nil {
			return fmt.Errorf("write kml placemark %d: %w", n, err)
		}
		if err := enc.Flush(); err != nil {
			return fmt.Errorf("write kml placemark %d: %w", n, err)
		}
		bw.WriteByte('\n') // one placemark per line
		n++
	}
	if err := enc.EncodeToken(docStart.End()); err != nil {
		return fmt.Errorf("write kml: %w", err)
	}
	if err := enc.EncodeToken(kmlStart.End()); err != nil {
		return fmt.Errorf("write kml: %w", err)
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("write kml: %w", err)
	}
	bw.WriteByte('\n')
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write kml: %w", err)
	}
	return nil
}

func sharedStyle(id string, c color.RGBA) kml.Element {
	return kml.SharedStyle(id,
		kml.IconStyle(kml.Color(c), kml.Scale(1)),
		kml.LineStyle(kml.Color(c), kml.Width(3)),
	)
}

// roundCoord rounds degrees to CoordDecimals, as orb.Round does for GeoJSON.
func roundCoord(d float64) float64 { return math.Round(d*coordFactor) / coordFactor }

func nan() float64 { return math.NaN() }

// WriteKMZ writes the KML of WriteKML as a KMZ: a zip archive holding one
// deflated entry, doc.kml, dated opt.Modified (FixedDate when zero).
func WriteKMZ(w io.Writer, s Schema, src Source, opt KMLOptions) error {
	mod := opt.Modified
	if mod.IsZero() {
		mod = FixedDate()
	}
	zw := zip.NewWriter(w)
	entry, err := zw.CreateHeader(&zip.FileHeader{Name: "doc.kml", Method: zip.Deflate, Modified: mod.UTC()})
	if err != nil {
		return fmt.Errorf("write kmz: %w", err)
	}
	if err := WriteKML(entry, s, src, opt); err != nil {
		return fmt.Errorf("write kmz: %w", err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("write kmz: %w", err)
	}
	return nil
}
