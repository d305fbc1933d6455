package buildings

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geojson"
	"github.com/paulmach/osm/osmgeojson"

	"linkplan/appliance"
)

// Height rules of an import (see the package doc).
const (
	// DefaultStoreyHeightM is the height of one storey, metres:
	// building:levels × 3 m (the figure of most OpenStreetMap 3D renderers
	// and of the README of the staged campus data).
	DefaultStoreyHeightM = 3.0
	// DefaultHeightM is the height assumed when a building gives neither a
	// height nor a storey count, metres: three storeys. Buildings with it
	// carry appliance.HeightDefault and every answer they shape says so.
	DefaultHeightM = 9.0
	// MaxHeightM is the tallest plausible building, metres; a taller
	// tagged height is refused.
	MaxHeightM = 1000.0
	// MaxRingVertices bounds one ring; larger rings are refused.
	MaxRingVertices = 4000
	// MaxFootprintSpanM bounds a footprint's extent, metres.
	MaxFootprintSpanM = 3000.0
	// MinFootprintAreaM2 is the smallest footprint kept, square metres.
	MinFootprintAreaM2 = 1.0
	// MaxBuildings bounds one layer.
	MaxBuildings = 200000
	// MaxExpansion bounds how much a gzip, zip or PBF may expand: the
	// decompressed bytes, all layers together (a gzipped zip counts
	// both), may be at most MaxExpansion × the uploaded size and at most
	// the caller's MaxBytes × MaxExpansion, but always MinExpansionBytes.
	MaxExpansion = 20
)

// Options configure an import. The zero value uses the defaults above.
type Options struct {
	StoreyHeightM  float64 // metres; 0: DefaultStoreyHeightM
	DefaultHeightM float64 // metres; 0: DefaultHeightM
	// MaxBytes bounds the uploaded file, bytes (the tier's cap); 0 means
	// 64 MiB.
	MaxBytes int64
}

func (o Options) withDefaults() Options {
	if o.StoreyHeightM == 0 {
		o.StoreyHeightM = DefaultStoreyHeightM
	}
	if o.DefaultHeightM == 0 {
		o.DefaultHeightM = DefaultHeightM
	}
	if o.MaxBytes == 0 {
		o.MaxBytes = 64 << 20
	}
	return o
}

// Import is the result of reading one file.
type Import struct {
	Format     string // "geojson", "shapefile", "osm-xml", "osm-pbf"
	Compressed bool   // the file was gzip-wrapped
	Buildings  []appliance.Building
	Refused    int
	Refusals   []appliance.FeatureRefusal // the first MaxRefusalsListed
	Warnings   []appliance.Warning
	// Counts by height source.
	Tagged, Levels, Assumed int

	run        *importRun  // while parsing
	heightTags heightTally // height tags that could not be used
}

// ErrFormat matches a file that is no supported format or is malformed as
// a whole (a bad feature is refused alone, never the file).
var ErrFormat = errors.New("unsupported or malformed building file")

// Parse reads a building file: GeoJSON (FeatureCollection, Feature or
// geometry), a zipped Shapefile (.shp, .dbf and optionally .prj and
// .shx), OpenStreetMap XML or PBF, each optionally gzip-compressed. It
// keeps every polygon or multipolygon feature it can use and refuses the
// others one by one with a reason. It fails (matching appliance.ErrInvalid
// and ErrFormat) only when the file as a whole cannot be read.
func Parse(ctx context.Context, data []byte, opts Options) (im *Import, err error) {
	defer func() {
		if p := recover(); p != nil { // a decoder's panic refuses the file, never stops the process
			im, err = nil, invalid("file", "could not be decoded (%v)", p)
		}
	}()
	return parse(ctx, data, opts)
}

func parse(ctx context.Context, data []byte, opts Options) (*Import, error) {
	opts = opts.withDefaults()
	if int64(len(data)) > opts.MaxBytes {
		return nil, invalid("file", "is %d bytes; the limit is %d", len(data), opts.MaxBytes)
	}
	im := &Import{run: newRun(ctx, int64(len(data)), opts)}
	defer func() { im.run = nil }()
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		un, err := gunzip(data, im.run)
		if err != nil {
			return nil, err
		}
		data, im.Compressed = un, true
	}
	var err error
	switch detect(data) {
	case "zip":
		im.Format = "shapefile"
		err = parseShapefileZip(data, opts, im)
	case "geojson":
		im.Format = "geojson"
		err = parseGeoJSON(data, opts, im)
	case "osm-xml":
		im.Format = "osm-xml"
		err = parseOSM(ctx, data, false, opts, im)
	case "osm-pbf":
		im.Format = "osm-pbf"
		err = parseOSM(ctx, data, true, opts, im)
	default:
		return nil, invalid("file", "is not GeoJSON, a zipped Shapefile, or OpenStreetMap XML/PBF (gzip allowed)")
	}
	if err == nil {
		err = im.run.err
	}
	if err != nil {
		return nil, err
	}
	if err := checkLayer(im.Buildings); err != nil {
		return nil, err
	}
	for _, b := range im.Buildings {
		switch b.HeightSource {
		case appliance.HeightTagged:
			im.Tagged++
		case appliance.HeightLevels:
			im.Levels++
		default:
			im.Assumed++
		}
	}
	if im.Assumed > 0 {
		im.Warnings = append(im.Warnings, appliance.Warning{Code: "buildings_assumed_heights",
			Message: fmt.Sprintf("%d of %d buildings give neither a height nor a storey count; %g m was assumed for them.", im.Assumed, len(im.Buildings), opts.DefaultHeightM)})
	}
	if w, ok := im.heightTags.warning(); ok {
		im.Warnings = append(im.Warnings, w)
	}
	if len(im.Buildings) == 0 {
		return nil, invalid("file", "holds no usable building polygon (%d features refused)", im.Refused)
	}
	return im, nil
}

func invalid(field, format string, args ...any) error {
	return fmt.Errorf("%w: %w", appliance.Invalid(field, format, args...), ErrFormat)
}

// gunzip decompresses data within the run's budget.
func gunzip(data []byte, run *importRun) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, invalid("file", "is not a valid gzip stream: %s", plain(err))
	}
	out, err := io.ReadAll(io.LimitReader(zr, run.budget+1))
	if err != nil {
		return nil, invalid("file", "gzip stream is damaged: %s", plain(err))
	}
	if !run.spend(int64(len(out))) {
		return nil, run.tooLarge("gzip stream")
	}
	return out, nil
}

// detect names the format of (decompressed) data.
func detect(data []byte) string {
	if bytes.HasPrefix(data, []byte("PK\x03\x04")) {
		return "zip"
	}
	head := data
	if len(head) > 512 {
		head = head[:512]
	}
	if bytes.Contains(head, []byte("OSMHeader")) {
		return "osm-pbf"
	}
	t := bytes.TrimLeft(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), " \t\r\n")
	switch {
	case bytes.HasPrefix(t, []byte("{")):
		return "geojson"
	case bytes.HasPrefix(t, []byte("<")):
		return "osm-xml"
	}
	return ""
}

// collector turns features into buildings.
type collector struct {
	opts Options
	im   *Import
}

func (c *collector) refuse(id, format string, args ...any) {
	c.im.Refused++
	if len(c.im.Refusals) < appliance.MaxRefusalsListed {
		c.im.Refusals = append(c.im.Refusals, appliance.FeatureRefusal{Feature: id, Reason: fmt.Sprintf(format, args...)})
	}
}

// add validates one feature and keeps it as a building.
func (c *collector) add(id string, g orb.Geometry, tags map[string]string) {
	if len(c.im.Buildings) >= MaxBuildings {
		c.refuse(id, "the layer already holds %d buildings, the most one layer may hold", MaxBuildings)
		return
	}
	var polys []orb.Polygon
	switch v := g.(type) {
	case orb.Polygon:
		polys = []orb.Polygon{v}
	case orb.MultiPolygon:
		polys = v
	case nil:
		c.refuse(id, "has no geometry")
		return
	default:
		c.refuse(id, "is a %s, not a polygon or multipolygon", g.GeoJSONType())
		return
	}
	n, reason := featureVertices(polys)
	if reason != "" {
		c.refuse(id, "%s", reason)
		return
	}
	if !c.im.run.admit(n) {
		return
	}
	b := appliance.Building{ID: id}
	for pi, p := range polys {
		fp, reason := footprint(p)
		if reason != "" {
			if len(polys) > 1 {
				reason = fmt.Sprintf("part %d %s", pi+1, reason)
			}
			c.refuse(id, "%s", reason)
			return
		}
		b.Footprints = append(b.Footprints, fp)
	}
	if len(b.Footprints) == 0 {
		c.refuse(id, "has an empty geometry")
		return
	}
	if reason := footprintsReason(b.Footprints); reason != "" {
		c.refuse(id, "%s", reason)
		return
	}
	if reason := c.heights(&b, tags); reason != "" {
		c.refuse(id, "%s", reason)
		return
	}
	b.Class = tagValue(tags, "building", "building:part", "BUILDING", "type")
	if b.Class == "yes" {
		b.Class = ""
	}
	b.Material = materialOf(tagValue(tags, "building:material", "material", "MATERIAL", "building_m"))
	c.im.Buildings = append(c.im.Buildings, b)
}

func tagValue(tags map[string]string, keys ...string) string {
	for _, k := range keys {
		if v := strings.TrimSpace(tags[k]); v != "" {
			return v
		}
	}
	return ""
}

// parseNumber reads the first number of an OpenStreetMap value ("3",
// "3.5", "2;3").
func parseNumber(v string) (float64, bool) {
	v = strings.TrimSpace(strings.SplitN(v, ";", 2)[0])
	v = strings.ReplaceAll(v, ",", ".")
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// materialOf maps a building:material value to a P.2040 material name
// ("" when it names none of them).
func materialOf(v string) string {
	switch strings.ToLower(v) {
	case "concrete", "reinforced_concrete", "cement_block", "plaster", "stone", "sandstone", "limestone":
		return "concrete"
	case "brick", "bricks", "masonry", "clay":
		return "brick"
	case "glass", "mirror":
		return "glass"
	case "wood", "timber", "timber_framing", "bamboo":
		return "wood"
	case "metal", "steel", "aluminium", "aluminum", "metal_plates", "iron", "copper", "tin":
		return "metal"
	}
	return ""
}

// footprint validates a polygon and converts it; the reason is "" when it
// is usable.
func footprint(p orb.Polygon) (appliance.Footprint, string) {
	var fp appliance.Footprint
	if len(p) == 0 {
		return fp, "has a polygon without rings"
	}
	var rings [][]appliance.LatLon
	for ri, r := range p {
		ring, reason := cleanRing(r)
		if reason != "" {
			if ri == 0 {
				return fp, "outer ring " + reason
			}
			return fp, fmt.Sprintf("hole %d %s", ri, reason)
		}
		rings = append(rings, ring)
	}
	frame := localFrame(rings[0][0])
	outer := frame.ring(rings[0])
	if span := bboxSpan(outer); span > MaxFootprintSpanM {
		return fp, fmt.Sprintf("spans %.0f m, more than the %g m a building footprint may span", span, MaxFootprintSpanM)
	}
	local := [][]xy{outer}
	for _, h := range rings[1:] {
		local = append(local, frame.ring(h))
	}
	if reason := ringsReason(local); reason != "" {
		return fp, reason
	}
	if a := math.Abs(area(outer)); a < MinFootprintAreaM2 {
		return fp, fmt.Sprintf("has an area of %.2f m², below %g m²", a, MinFootprintAreaM2)
	}
	fp.Outer = rings[0]
	fp.Holes = rings[1:]
	if len(fp.Holes) == 0 {
		fp.Holes = nil
	}
	return fp, ""
}

// cleanRing checks coordinates and drops repeated vertices and the
// closing repeat.
func cleanRing(r orb.Ring) ([]appliance.LatLon, string) {
	if len(r) > MaxRingVertices {
		return nil, fmt.Sprintf("has %d vertices, more than %d", len(r), MaxRingVertices)
	}
	out := make([]appliance.LatLon, 0, len(r))
	for i, pt := range r {
		p := appliance.LatLon{Lat: pt[1], Lon: pt[0]}
		if !p.Valid() || math.IsInf(p.Lat, 0) || math.IsInf(p.Lon, 0) {
			return nil, fmt.Sprintf("has an invalid position at vertex %d (%g, %g)", i+1, pt[0], pt[1])
		}
		if n := len(out); n > 0 && out[n-1] == p {
			continue
		}
		out = append(out, p)
	}
	for len(out) > 1 && out[0] == out[len(out)-1] {
		out = out[:len(out)-1]
	}
	if len(out) < 3 {
		return nil, fmt.Sprintf("has %d distinct vertices; a ring needs at least 3", len(out))
	}
	return out, ""
}

type xy struct{ x, y float64 }

type frame struct{ lat0, lon0, cos float64 }

func localFrame(p appliance.LatLon) frame {
	return frame{lat0: p.Lat, lon0: p.Lon, cos: math.Cos(p.Lat * math.Pi / 180)}
}

func (f frame) ring(r []appliance.LatLon) []xy {
	const m = math.Pi / 180 * 6371008.8
	out := make([]xy, len(r))
	for i, p := range r {
		out[i] = xy{(p.Lon - f.lon0) * m * f.cos, (p.Lat - f.lat0) * m}
	}
	return out
}

func bboxSpan(r []xy) float64 {
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, p := range r {
		x0, y0, x1, y1 = math.Min(x0, p.x), math.Min(y0, p.y), math.Max(x1, p.x), math.Max(y1, p.y)
	}
	return math.Hypot(x1-x0, y1-y0)
}

func area(r []xy) float64 {
	a := 0.0
	for i, p := range r {
		q := r[(i+1)%len(r)]
		a += p.x*q.y - q.x*p.y
	}
	return a / 2
}

func cross(o, a, b xy) float64 { return (a.x-o.x)*(b.y-o.y) - (a.y-o.y)*(b.x-o.x) }

// segsCross reports whether segments ab and cd share a point other than
// a shared end vertex (touching counts).
func segsCross(a, b, c, d xy) bool {
	d1, d2 := cross(c, d, a), cross(c, d, b)
	d3, d4 := cross(a, b, c), cross(a, b, d)
	if ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0)) {
		return true
	}
	on := func(p, q, r xy, v float64) bool {
		return v == 0 && math.Min(p.x, q.x) <= r.x && r.x <= math.Max(p.x, q.x) && math.Min(p.y, q.y) <= r.y && r.y <= math.Max(p.y, q.y)
	}
	return on(c, d, a, d1) || on(c, d, b, d2) || on(a, b, c, d3) || on(a, b, d, d4)
}

func pointInRing(p xy, r []xy) bool {
	in := false
	j := len(r) - 1
	for i := range r {
		if (r[i].y > p.y) != (r[j].y > p.y) && p.x < (r[j].x-r[i].x)*(p.y-r[i].y)/(r[j].y-r[i].y)+r[i].x {
			in = !in
		}
		j = i
	}
	return in
}

// parseGeoJSON reads a FeatureCollection, a Feature or a bare geometry;
// each feature is decoded on its own so that one bad feature is refused
// alone.
func parseGeoJSON(data []byte, opts Options, im *Import) error {
	var top struct {
		Type     string            `json:"type"`
		Features []json.RawMessage `json:"features"`
	}
	if err := json.Unmarshal(data, &top); err != nil {
		return invalid("file", "is not valid JSON: %s", plain(err))
	}
	c := &collector{opts: opts, im: im}
	switch top.Type {
	case "FeatureCollection":
		for i, raw := range top.Features {
			c.geoJSONFeature(i, raw)
		}
	case "Feature":
		c.geoJSONFeature(0, data)
	case "Polygon", "MultiPolygon":
		g, err := geojson.UnmarshalGeometry(data)
		if err != nil {
			return invalid("file", "geometry is malformed: %s", plain(err))
		}
		c.add("feature/0", g.Geometry(), nil)
	default:
		return invalid("file", "is GeoJSON of type %q; a FeatureCollection, Feature, Polygon or MultiPolygon is needed", top.Type)
	}
	return nil
}

func (c *collector) geoJSONFeature(i int, raw json.RawMessage) {
	id := fmt.Sprintf("feature/%d", i)
	f, err := geojson.UnmarshalFeature(raw)
	if err != nil {
		c.refuse(id, "is malformed GeoJSON: %s", plain(err))
		return
	}
	switch v := f.ID.(type) {
	case string:
		if v != "" && len(v) <= 64 {
			id = v
		}
	case float64:
		id = strconv.FormatFloat(v, 'f', -1, 64)
	}
	if t, ok := f.Properties["osm_type"].(string); ok {
		if n, ok := f.Properties["osm_id"].(float64); ok {
			id = fmt.Sprintf("%s/%.0f", t, n)
		}
	}
	tags := map[string]string{}
	for k, v := range f.Properties {
		switch x := v.(type) {
		case string:
			tags[k] = x
		case float64:
			tags[k] = strconv.FormatFloat(x, 'f', -1, 64)
		}
	}
	if f.Geometry == nil {
		c.refuse(id, "has no geometry")
		return
	}
	c.add(id, f.Geometry, tags)
}

// parseOSM reads OpenStreetMap XML or PBF and keeps the closed ways and
// multipolygon relations tagged building or building:part.
func parseOSM(ctx context.Context, data []byte, pbf bool, opts Options, im *Import) error {
	o, err := readOSM(ctx, data, pbf, im.run)
	if err != nil {
		return err
	}
	fc, err := osmgeojson.Convert(o, osmgeojson.NoMeta(true), osmgeojson.NoRelationMembership(true))
	if err != nil {
		return invalid("file", "OpenStreetMap data could not be assembled: %s", plain(err))
	}
	c := &collector{opts: opts, im: im}
	var feats []*geojson.Feature
	for _, f := range fc.Features {
		tags, _ := f.Properties["tags"].(map[string]string)
		if tags["building"] == "" && tags["building:part"] == "" {
			continue
		}
		if tags["building"] == "no" {
			continue
		}
		feats = append(feats, f)
	}
	sort.SliceStable(feats, func(i, j int) bool { return osmID(feats[i]) < osmID(feats[j]) })
	if in, out, rels := droppedRings(o, feats); len(rels) > 0 {
		im.Warnings = append(im.Warnings, droppedRingsWarning(in, out, rels))
	}
	feats, merged := mergeOuterWays(o, feats)
	if merged > 0 {
		im.Warnings = append(im.Warnings, outerWaysWarning(merged))
	}
	seen := map[string]bool{}
	parts := map[string]bool{}
	for _, f := range feats {
		tags, _ := f.Properties["tags"].(map[string]string)
		id := osmID(f)
		seen[id] = true
		if t, _ := f.Properties["tainted"].(bool); t {
			c.refuse(id, "is a multipolygon with members missing from the file")
			continue
		}
		g := f.Geometry
		if ls, ok := g.(orb.LineString); ok {
			c.refuse(id, "is a way tagged as a building that is not closed (%d nodes)", len(ls))
			continue
		}
		if v := indoorPart(tags); v != "" {
			c.refuse(id, "is indoor mapping (building:part=%s with indoor=%s), not a part of the building's outer shape", tags["building:part"], v)
			continue
		}
		if isPart(tags) {
			parts[id] = true
		}
		c.add(id, g, tags)
	}
	c.refuseLostRelations(o, seen)
	if n, m := replaceOutlinesByParts(im, o, parts); n > 0 {
		im.Warnings = append(im.Warnings, outlinesWarning(n, m))
	}
	return nil
}

func osmID(f *geojson.Feature) string {
	t, _ := f.Properties["type"].(string)
	id, _ := f.Properties["id"].(int)
	return fmt.Sprintf("%s/%d", t, id)
}

// zipEntries reads the entries of a zip within the run's decompression
// budget.
func zipEntries(data []byte, run *importRun) (map[string][]byte, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, invalid("file", "is not a valid zip archive: %s", plain(err))
	}
	if len(zr.File) > 64 {
		return nil, invalid("file", "zip holds %d entries; a Shapefile needs at most 8", len(zr.File))
	}
	out := map[string][]byte{}
	for _, f := range zr.File {
		name := strings.ToLower(f.Name)
		if i := strings.LastIndexAny(name, "/\\"); i >= 0 {
			name = name[i+1:]
		}
		ext := name
		if i := strings.LastIndex(name, "."); i >= 0 {
			ext = name[i:]
		}
		switch ext {
		case ".shp", ".dbf", ".prj", ".shx", ".cpg":
		default:
			continue
		}
		if _, dup := out[ext]; dup {
			return nil, invalid("file", "zip holds more than one %s file; upload one layer per zip", ext)
		}
		rc, err := f.Open()
		if err != nil {
			return nil, invalid("file", "zip entry %q cannot be read: %s", f.Name, plain(err))
		}
		b, err := io.ReadAll(io.LimitReader(rc, run.budget+1))
		rc.Close()
		if err != nil {
			return nil, invalid("file", "zip entry %q is damaged: %s", f.Name, plain(err))
		}
		if !run.spend(int64(len(b))) {
			return nil, run.tooLarge("zip")
		}
		out[ext] = b
	}
	return out, nil
}
