package geoexport

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"linkplan/appliance"
)

// Values of the "feature" field of LinkLineSchema.
const (
	FeatureReceiver = "receiver" // the receiver point
	FeatureLink     = "link"     // a line receiver → tower
)

// LinkLineSchema returns the schema of the features of one link analysis
// (LinkLines): the receiver as a point and each returned tower as a line
// from the receiver to the tower, in one mixed schema. Fields that do not
// apply to a feature are null (the receiver has no tower, a link no
// ground height).
func LinkLineSchema() Schema {
	return Schema{Geometry: KindMixed, Fields: []Field{
		{Name: "feature", Type: TypeString, Width: 8},
		{Name: "name", Type: TypeString, Width: 64},
		{Name: "rank", Type: TypeInt, Width: 4},
		{Name: "tower_id", Type: TypeString, Width: 64},
		{Name: "operator", Type: TypeString, Width: 32},
		{Name: "distance_km", Type: TypeFloat, Width: 10, Decimals: 3},
		{Name: "azimuth_deg", Type: TypeFloat, Width: 7, Decimals: 2},
		{Name: "margin_db", Type: TypeFloat, Width: 9, Decimals: 2},
		{Name: "rx_power_dbm", Type: TypeFloat, Width: 9, Decimals: 2},
		{Name: "engine", Type: TypeString, Width: 32},
		{Name: "status", Type: TypeString, Width: 16},
		{Name: "los_clear", Type: TypeBool},
		{Name: "fresnel_ok", Type: TypeBool},
		{Name: "eirp_assumed", Type: TypeBool},
		{Name: "synthetic", Type: TypeBool},
		{Name: "height_m", Type: TypeFloat, Width: 8, Decimals: 2},
		{Name: "ground_m", Type: TypeFloat, Width: 8, Decimals: 1},
		{Name: "warnings", Type: TypeString, Width: 200, ListSep: ";"},
		{Name: "position_uncertainty_m", Type: TypeFloat, Width: 10, Decimals: 1},
	}}
}

// LinkLinesKMLOptions returns the KML options of LinkLines: placemarks
// named by the "name" field and styled by status like LinkStyles.
func LinkLinesKMLOptions() KMLOptions {
	return KMLOptions{DocumentName: "Link analysis", NameField: "name", StyleField: "status", Styles: LinkStyles()}
}

// candidateStatus is StatusOK or StatusLowMargin by the margin of c.
func candidateStatus(c *appliance.LinkCandidate) string {
	if c.LinkMarginDB < 0 {
		return StatusLowMargin
	}
	return StatusOK
}

// LinkLines returns the features of analysis a (LinkLineSchema): first the
// receiver point, named "receiver", whose status is that of the best
// tower (StatusNoTower when there is none), height above ground and
// ground height (metres AMSL; null when NaN) and the analysis's warning
// codes (';'-separated); then one line per returned tower, receiver →
// tower, the best first (rank 1) and the alternatives in the planner's
// order (rank 2, 3, ...), named by tower id, with its own warning codes
// and the tower's position uncertainty (metres; null when unknown). A
// candidate without a Tower is skipped (the planner never returns one).
func LinkLines(a *appliance.LinkAnalysis) []Feature {
	str := func(s string) Value {
		if s == "" {
			return Null()
		}
		return String(s)
	}
	rx := a.Request.Receiver
	status, engine := StatusNoTower, string(a.Engine)
	if a.Best != nil {
		status, engine = candidateStatus(a.Best), string(a.Best.Prediction.Engine)
	}
	out := make([]Feature, 0, 2+len(a.Alternatives))
	out = append(out, Feature{Geometry: Point(rx), Properties: []Value{
		String(FeatureReceiver), String("receiver"), Null(), Null(), Null(), Null(), Null(), Null(), Null(),
		str(engine), String(status), Null(), Null(), Null(), Null(),
		Float(a.Request.RxHeightM), Float(a.ReceiverGroundM),
		str(strings.Join(appliance.WarningCodes(a.Warnings), ";")), Null(),
	}})
	add := func(rank int, c *appliance.LinkCandidate) {
		t := c.Tower
		if t == nil {
			return
		}
		out = append(out, Feature{Geometry: LineString(rx, t.Pos()), Properties: []Value{
			String(FeatureLink), String(t.ID), Int(int64(rank)), String(t.ID), str(t.Operator),
			Float(c.DistanceKm), Float(c.AzimuthDeg), Float(c.LinkMarginDB), Float(c.RxPowerDBm),
			str(string(c.Prediction.Engine)), String(candidateStatus(c)),
			Bool(c.Prediction.LOSClear), Bool(c.Prediction.FresnelOK), Bool(c.EIRPAssumed), Bool(t.Synthetic),
			Float(t.HeightM), Float(c.TowerGroundM),
			str(strings.Join(appliance.WarningCodes(c.Warnings), ";")), uncertainty(t),
		}})
	}
	if a.Best != nil {
		add(1, a.Best)
	}
	for i := range a.Alternatives {
		add(i+2, &a.Alternatives[i])
	}
	return out
}

// uncertainty is the position uncertainty of t, metres; null when its
// source gives none.
func uncertainty(t *appliance.Tower) Value {
	if t.UncertaintyM > 0 {
		return Float(t.UncertaintyM)
	}
	return Null()
}

// Format is a geo export format, the value of the format parameter of the
// /exports routes.
type Format string

// Export formats.
const (
	FormatGeoJSON   Format = "geojson"
	FormatKML       Format = "kml"
	FormatKMZ       Format = "kmz"
	FormatShapefile Format = "shapefile" // a zip of .shp, .shx, .dbf, .prj, .cpg sets
)

// Formats lists the export formats in documentation order.
func Formats() []Format { return []Format{FormatGeoJSON, FormatKML, FormatKMZ, FormatShapefile} }

// ParseFormat returns the format named s (case-insensitive), or false.
func ParseFormat(s string) (Format, bool) {
	for _, f := range Formats() {
		if strings.EqualFold(s, string(f)) {
			return f, true
		}
	}
	return "", false
}

// ContentType is the media type of a file of format f.
func (f Format) ContentType() string {
	switch f {
	case FormatGeoJSON:
		return "application/geo+json"
	case FormatKML:
		return "application/vnd.google-earth.kml+xml"
	case FormatKMZ:
		return "application/vnd.google-earth.kmz"
	case FormatShapefile:
		return "application/zip"
	}
	return "application/octet-stream"
}

// Extension is the file name extension of format f, with its dot.
func (f Format) Extension() string {
	switch f {
	case FormatGeoJSON:
		return ".geojson"
	case FormatKML:
		return ".kml"
	case FormatKMZ:
		return ".kmz"
	case FormatShapefile:
		return ".zip"
	}
	return ""
}

// Export writes the features of src in format f. base names the files of
// a Shapefile zip (WriteShapefileZip); modified dates the zip entries and
// the .dbf (FixedDate when zero).
func Export(w io.Writer, f Format, base string, s Schema, src Source, kml KMLOptions, modified time.Time) error {
	switch f {
	case FormatGeoJSON:
		return WriteGeoJSON(w, s, src)
	case FormatKML:
		return WriteKML(w, s, src, kml)
	case FormatKMZ:
		kml.Modified = modified
		return WriteKMZ(w, s, src, kml)
	case FormatShapefile:
		return WriteShapefileZip(w, base, s, src, modified)
	}
	return fmt.Errorf("export format %q: %w", f, appliance.ErrInvalid)
}

// WriteLinkAnalysis writes the LinkLines of a in format f; Shapefile sets
// are named "link_receiver" and "link_towers".
func WriteLinkAnalysis(w io.Writer, f Format, a *appliance.LinkAnalysis, modified time.Time) error {
	return Export(w, f, "link", LinkLineSchema(), Slice(LinkLines(a)), LinkLinesKMLOptions(), modified)
}

// FullTextSuffix ends the name of the text file a Shapefile zip holds
// beside a set whose .dbf cut a text value (a .dbf string holds at most
// MaxDBFStringWidth bytes): <set>_full_text.txt, one block per cut value
// (the feature's 1-based number, the field, the whole value), so that
// warnings and options cut in the .dbf still travel whole with the file.
const FullTextSuffix = "_full_text.txt"

// cutText returns the text file of the string values of src that the
// .dbf of schema s cuts (FullTextSuffix); empty when none is cut.
func cutText(s Schema, src Source) *bytes.Buffer {
	var b bytes.Buffer
	n := 0
	for f := range src {
		n++
		for i, fd := range s.Fields {
			if fd.Type != TypeString || i >= len(f.Properties) || f.Properties[i].Type() != TypeString {
				continue
			}
			w, _, err := dbfSize(fd)
			if v := f.Properties[i].Str(); err == nil && len(v) > w {
				if b.Len() == 0 {
					b.WriteString("Text values cut in the .dbf (at most " + strconv.Itoa(w) + " bytes a field), whole:\n")
				}
				fmt.Fprintf(&b, "\nfeature %d, %s:\n%s\n", n, fd.Name, v)
			}
		}
	}
	return &b
}

// WriteShapefileZip writes the features of src as Shapefile sets in one zip
// archive: base.shp, .shx, .dbf, .prj and .cpg for a point or line schema;
// for a KindMixed schema two sets, base_receiver.* with the points and
// base_towers.* with the line strings (each possibly empty), as a Shapefile
// holds one shape type. A set whose .dbf cuts a text value also gets its
// FullTextSuffix file with the whole values. Entries are deflated and dated modified (FixedDate
// when zero). Each set is built in memory before it is zipped.
func WriteShapefileZip(w io.Writer, base string, s Schema, src Source, modified time.Time) error {
	if modified.IsZero() {
		modified = FixedDate()
	}
	type set struct {
		name string
		kind GeometryKind
	}
	sets := []set{{base, s.Geometry}}
	if s.Geometry == KindMixed {
		sets = []set{{base + "_receiver", KindPoint}, {base + "_towers", KindLineString}}
	}
	zw := zip.NewWriter(w)
	for _, st := range sets {
		sub := Schema{Geometry: st.kind, Fields: s.Fields}
		only := func(yield func(Feature) bool) {
			for f := range src {
				if f.Geometry.Kind == st.kind && !yield(f) {
					return
				}
			}
		}
		var shp, shx, dbf, prj, cpg bytes.Buffer
		if err := WriteShapefile(ShapefileSet{&shp, &shx, &dbf, &prj, &cpg}, sub, only, ShapefileOptions{Updated: modified}); err != nil {
			return fmt.Errorf("write shapefile zip %s: %w", st.name, err)
		}
		entries := []struct {
			ext string
			b   *bytes.Buffer
		}{{".shp", &shp}, {".shx", &shx}, {".dbf", &dbf}, {".prj", &prj}, {".cpg", &cpg}}
		if full := cutText(sub, only); full.Len() > 0 {
			entries = append(entries, struct {
				ext string
				b   *bytes.Buffer
			}{FullTextSuffix, full})
		}
		for _, e := range entries {
			fw, err := zw.CreateHeader(&zip.FileHeader{Name: st.name + e.ext, Method: zip.Deflate, Modified: modified.UTC()})
			if err != nil {
				return fmt.Errorf("write shapefile zip: %w", err)
			}
			if _, err := fw.Write(e.b.Bytes()); err != nil {
				return fmt.Errorf("write shapefile zip %s%s: %w", st.name, e.ext, err)
			}
		}
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("write shapefile zip: %w", err)
	}
	return nil
}
