package basemap

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/klauspost/compress/zstd"
	"github.com/paulmach/orb"
	orbclip "github.com/paulmach/orb/clip"
	"github.com/paulmach/orb/encoding/mvt"
	"github.com/paulmach/orb/geojson"
	"github.com/paulmach/protoscan"
	"golang.org/x/image/vector"

	"linkplan/appliance/basemap/pmtiles"
)

// Bounds of the vector tile renderer (vector.go). A tile beyond one is
// not drawn: its render is an error matching ErrVectorTile.
const (
	// MaxVectorTileBytes bounds one decompressed MVT tile, bytes.
	MaxVectorTileBytes = 4 << 20
	// MaxVectorFeatures bounds the features of the drawn layers of one
	// tile (counted before anything is decoded).
	MaxVectorFeatures = 100_000
	// MaxVectorVertices bounds the vertices drawn into one tile (stroke
	// outlines and dashes included).
	MaxVectorVertices = 2_000_000
	// MaxOverzoom is how many zooms beyond the archive's largest are drawn
	// from its deepest tiles (crisp lines where a raster would be scaled).
	MaxOverzoom = 6
	// MaxTileLabels bounds the labels answered for one tile.
	MaxTileLabels = 200
)

// vectorRenderVersion names the vector renderer's output and style: it is
// part of the rendered tiles' ETag.
const vectorRenderVersion = "v2"

// ErrVectorTile marks a vector tile that cannot be drawn: not MVT, broken,
// or beyond a bound of the renderer.
var ErrVectorTile = errors.New("vector tile not drawable")

// The style (see doc.go, "Vector archives"): colours of the fills and
// lines, by paint.
var (
	LandColor     = color.NRGBA{R: 0xf2, G: 0xef, B: 0xe9, A: 0xff} // background and earth
	VectorWater   = color.NRGBA{R: 0xaa, G: 0xd3, B: 0xdf, A: 0xff} // water polygons and waterways
	ParkColor     = color.NRGBA{R: 0xc8, G: 0xfa, B: 0xcc, A: 0xff}
	ForestColor   = color.NRGBA{R: 0xad, G: 0xd1, B: 0x9e, A: 0xff}
	HighwayColor  = color.NRGBA{R: 0xe8, G: 0x92, B: 0xa2, A: 0xff} // motorways and trunks
	MajorColor    = color.NRGBA{R: 0xfc, G: 0xd6, B: 0xa4, A: 0xff} // primary to tertiary
	MinorColor    = color.NRGBA{R: 0xff, G: 0xff, B: 0xff, A: 0xff} // streets
	BuildingColor = color.NRGBA{R: 0xd9, G: 0xd0, B: 0xc9, A: 0xff}
)

// paint is one drawing rule of the style; the paints are drawn in the
// order of passes.
type paint uint8

const (
	pEarth paint = iota
	pFarmland
	pGrass
	pResidential
	pIndustrial
	pInstitution
	pBarren
	pWetland
	pForest
	pPark
	pWater
	pWaterway
	pBuilding
	pBoundaryRegion
	pBoundaryCountry
	pRail
	pPath
	pMinor
	pMajor
	pHighway
	nPaints
)

// widthStops gives a line's width, pixels of a 256-pixel tile, by zoom:
// exponential between stops, constant beyond them.
type widthStops [][2]float64

func (s widthStops) at(z int) float64 {
	zf := float64(z)
	if len(s) == 0 {
		return 0
	}
	if zf <= s[0][0] {
		return s[0][1]
	}
	for i := 1; i < len(s); i++ {
		if zf <= s[i][0] {
			a, b := s[i-1], s[i]
			return a[1] * math.Pow(b[1]/a[1], (zf-a[0])/(b[0]-a[0]))
		}
	}
	return s[len(s)-1][1]
}

type style struct {
	fill, line, casing color.NRGBA // A 0: not drawn
	width              widthStops  // lines
	casingPx           float64     // casing beyond the line on each side, pixels
	dash               [2]float64  // on, off, pixels; 0: solid
	minZoom            int
}

var styles = [nPaints]style{
	pEarth:           {fill: LandColor},
	pFarmland:        {fill: color.NRGBA{R: 0xee, G: 0xf0, B: 0xd5, A: 0xff}},
	pGrass:           {fill: color.NRGBA{R: 0xcd, G: 0xeb, B: 0xb0, A: 0xff}},
	pResidential:     {fill: color.NRGBA{R: 0xe6, G: 0xe2, B: 0xdd, A: 0xff}},
	pIndustrial:      {fill: color.NRGBA{R: 0xeb, G: 0xdb, B: 0xe8, A: 0xff}},
	pInstitution:     {fill: color.NRGBA{R: 0xf0, G: 0xe8, B: 0xd8, A: 0xff}},
	pBarren:          {fill: color.NRGBA{R: 0xf5, G: 0xe9, B: 0xc6, A: 0xff}},
	pWetland:         {fill: color.NRGBA{R: 0xd6, G: 0xe8, B: 0xe0, A: 0xff}},
	pForest:          {fill: ForestColor},
	pPark:            {fill: ParkColor},
	pWater:           {fill: VectorWater},
	pWaterway:        {line: VectorWater, width: widthStops{{8, 0.6}, {12, 1.2}, {15, 3}, {18, 6}}, minZoom: 8},
	pBuilding:        {fill: BuildingColor, minZoom: 14},
	pBoundaryRegion:  {line: color.NRGBA{R: 0xa5, G: 0x8f, B: 0xb3, A: 0xff}, width: widthStops{{4, 0.8}, {12, 1.4}}, dash: [2]float64{5, 3}},
	pBoundaryCountry: {line: color.NRGBA{R: 0x8e, G: 0x6c, B: 0x9e, A: 0xff}, width: widthStops{{2, 1}, {12, 2}}, dash: [2]float64{8, 3}},
	pRail:            {line: color.NRGBA{R: 0x99, G: 0x99, B: 0x99, A: 0xff}, width: widthStops{{10, 0.6}, {17, 2}}, minZoom: 10},
	pPath:            {line: color.NRGBA{R: 0xc8, G: 0x9a, B: 0x88, A: 0xff}, width: widthStops{{14, 0.8}, {18, 1.6}}, dash: [2]float64{3, 2}, minZoom: 14},
	pMinor:           {line: MinorColor, casing: color.NRGBA{R: 0xc8, G: 0xc0, B: 0xb6, A: 0xff}, width: widthStops{{12, 0.8}, {14, 2.5}, {17, 9}, {18, 14}}, casingPx: 0.7, minZoom: 12},
	pMajor:           {line: MajorColor, casing: color.NRGBA{R: 0xc8, G: 0xa0, B: 0x7a, A: 0xff}, width: widthStops{{7, 0.6}, {11, 1.6}, {14, 4}, {17, 11}, {18, 16}}, casingPx: 0.8, minZoom: 7},
	pHighway:         {line: HighwayColor, casing: color.NRGBA{R: 0xb8, G: 0x60, B: 0x70, A: 0xff}, width: widthStops{{4, 0.6}, {8, 1.4}, {11, 2.4}, {14, 5}, {17, 12}, {18, 18}}, casingPx: 0.9, minZoom: 4},
}

// pass is one layer of paint on the tile: the fills and lines of a paint,
// or the casings of the roads below their fills.
type pass struct {
	p      paint
	casing bool
}

var passes = func() []pass {
	var out []pass
	for p := pEarth; p <= pPath; p++ {
		out = append(out, pass{p: p})
	}
	for _, p := range []paint{pMinor, pMajor, pHighway} {
		out = append(out, pass{p: p, casing: true})
	}
	for _, p := range []paint{pMinor, pMajor, pHighway} {
		out = append(out, pass{p: p})
	}
	return out
}()

// drawnLayers are the layer names the style draws (Protomaps basemap,
// OpenMapTiles and Shortbread schemas); labelLayers those whose points
// give labels.
var (
	drawnLayers = map[string]bool{
		"earth": true, "water": true, "ocean": true, "water_polygons": true, "waterway": true, "water_lines": true,
		"landuse": true, "landcover": true, "park": true, "land": true, "natural": true,
		"roads": true, "transportation": true, "streets": true, "transit": true,
		"buildings": true, "building": true, "boundaries": true, "boundary": true,
	}
	labelLayers = map[string]bool{"places": true, "place": true, "place_labels": true}
)

// VectorLayerDrawn reports whether the style draws layer name: "drawn"
// (fills and lines), "labels" (points answered as labels) or "" (skipped).
func VectorLayerDrawn(name string) string {
	switch {
	case drawnLayers[name]:
		return "drawn"
	case labelLayers[name]:
		return "labels"
	}
	return ""
}

var landKinds = map[string]paint{
	"farmland": pFarmland, "farm": pFarmland, "farmyard": pFarmland, "orchard": pFarmland, "vineyard": pFarmland, "allotments": pFarmland, "plant_nursery": pFarmland,
	"grass": pGrass, "grassland": pGrass, "meadow": pGrass, "scrub": pGrass, "heath": pGrass, "village_green": pGrass,
	"residential": pResidential, "urban_area": pResidential, "urban": pResidential,
	"industrial": pIndustrial, "commercial": pIndustrial, "retail": pIndustrial, "railway": pIndustrial, "military": pIndustrial,
	"quarry": pIndustrial, "landfill": pIndustrial, "brownfield": pIndustrial, "construction": pIndustrial,
	"cemetery": pInstitution, "grave_yard": pInstitution, "hospital": pInstitution, "school": pInstitution, "university": pInstitution,
	"college": pInstitution, "kindergarten": pInstitution, "aerodrome": pInstitution, "airport": pInstitution, "zoo": pInstitution,
	"sand": pBarren, "beach": pBarren, "bare_rock": pBarren, "barren": pBarren, "rock": pBarren, "glacier": pBarren, "ice": pBarren,
	"wetland": pWetland, "swamp": pWetland, "marsh": pWetland, "mud": pWetland, "mangrove": pWetland, "bog": pWetland, "wet_meadow": pWetland,
	"scree": pBarren, "greenfield": pGrass, "garages": pIndustrial, "bus_station": pIndustrial, "naval_base": pIndustrial,
	"library": pInstitution, "theme_park": pPark, "suburb": pResidential, "quarter": pResidential, "neighbourhood": pResidential,
	"forest": pForest, "wood": pForest,
	"park": pPark, "garden": pPark, "recreation_ground": pPark, "national_park": pPark, "nature_reserve": pPark, "protected_area": pPark,
	"playground": pPark, "golf_course": pPark, "pitch": pPark, "dog_park": pPark, "stadium": pPark,
	"water": pWater, "basin": pWater, "reservoir": pWater,
}

var roadKinds = map[string]paint{
	"motorway": pHighway, "motorway_link": pHighway, "trunk": pHighway, "trunk_link": pHighway, "highway": pHighway,
	"primary": pMajor, "primary_link": pMajor, "secondary": pMajor, "secondary_link": pMajor, "tertiary": pMajor, "tertiary_link": pMajor, "major_road": pMajor, "medium_road": pMajor,
	"residential": pMinor, "unclassified": pMinor, "living_street": pMinor, "minor": pMinor, "minor_road": pMinor, "service": pMinor,
	"road": pMinor, "street": pMinor, "street_limited": pMinor, "busway": pMinor,
	"path": pPath, "footway": pPath, "cycleway": pPath, "pedestrian": pPath, "track": pPath, "steps": pPath, "bridleway": pPath, "other": pPath,
	"rail": pRail, "railway": pRail, "light_rail": pRail, "tram": pRail, "narrow_gauge": pRail, "transit": pRail, "monorail": pRail,
}

// prop returns property k as a string ("" when absent; numbers in
// decimal).
func prop(p geojson.Properties, k string) string {
	switch v := p[k].(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(v)
	}
	return ""
}

// kindOf is the feature's class: kind (Protomaps, Shortbread) or class
// (OpenMapTiles), then kind_detail or subclass when the first is not a
// known one.
func kindOf(p geojson.Properties, known map[string]paint) (paint, bool) {
	for _, k := range []string{"kind", "class", "kind_detail", "subclass"} {
		if pt, ok := known[prop(p, k)]; ok {
			return pt, true
		}
	}
	return 0, false
}

func isPolygon(g orb.Geometry) bool {
	switch g.(type) {
	case orb.Polygon, orb.MultiPolygon:
		return true
	}
	return false
}

func isLine(g orb.Geometry) bool {
	switch g.(type) {
	case orb.LineString, orb.MultiLineString:
		return true
	}
	return false
}

// classify returns the paint of a feature of layer at zoom z, or false
// when the style does not draw it.
func classify(layer string, p geojson.Properties, g orb.Geometry, z int) (paint, bool) {
	poly, line := isPolygon(g), isLine(g)
	var pt paint
	ok := false
	switch layer {
	case "earth":
		pt, ok = pEarth, poly
	case "water", "ocean", "water_polygons", "waterway", "water_lines":
		switch {
		case poly:
			pt, ok = pWater, true
		case line:
			pt, ok = pWaterway, true
		}
	case "landuse", "landcover", "park", "land", "natural":
		if poly {
			pt, ok = kindOf(p, landKinds)
			if !ok && layer == "park" { // OpenMapTiles' park layer: national parks, reserves
				pt, ok = pPark, true
			}
		}
	case "roads", "transportation", "streets", "transit":
		if line {
			pt, ok = kindOf(p, roadKinds)
			if layer == "transit" && ok && pt != pRail {
				ok = false
			}
		}
	case "buildings", "building":
		pt, ok = pBuilding, poly
	case "boundaries", "boundary":
		if line {
			lvl, _ := strconv.Atoi(prop(p, "admin_level"))
			switch k := prop(p, "kind"); {
			case k == "country" || lvl == 2:
				pt, ok = pBoundaryCountry, true
			case k == "region" || lvl == 3 || lvl == 4:
				pt, ok = pBoundaryRegion, true
			}
		}
	}
	if !ok || z < styles[pt].minZoom {
		return 0, false
	}
	return pt, true
}

// VectorStats count what one render drew and skipped.
type VectorStats struct {
	// Layers is the number of layers in the tile; SkippedLayers the names
	// of those the style does not draw (sorted).
	Layers        int
	SkippedLayers []string
	// Features drawn, and those of drawn layers that the style skips (an
	// unknown class, below the paint's zoom, or a point).
	Features, SkippedFeatures int
	// Vertices drawn (stroke outlines included).
	Vertices int
}

// inflate decompresses a stored tile, at most MaxVectorTileBytes.
func inflate(b []byte, c pmtiles.Compression, zdec *zstd.Decoder) ([]byte, error) {
	if (c == pmtiles.CompressionNone || c == pmtiles.CompressionUnknown) && len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b {
		c = pmtiles.CompressionGzip // stored gzipped without saying so
	}
	switch c {
	case pmtiles.CompressionNone, pmtiles.CompressionUnknown:
		if len(b) > MaxVectorTileBytes {
			return nil, fmt.Errorf("%d bytes, more than %d: %w", len(b), MaxVectorTileBytes, ErrVectorTile)
		}
		return b, nil
	case pmtiles.CompressionGzip:
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("gzip: %v: %w", err, ErrVectorTile)
		}
		out, err := io.ReadAll(io.LimitReader(zr, MaxVectorTileBytes+1))
		if err != nil {
			return nil, fmt.Errorf("gzip: %v: %w", err, ErrVectorTile)
		}
		if len(out) > MaxVectorTileBytes {
			return nil, fmt.Errorf("decompresses to more than %d bytes: %w", MaxVectorTileBytes, ErrVectorTile)
		}
		return out, nil
	case pmtiles.CompressionZstd:
		if zdec == nil {
			return nil, fmt.Errorf("zstd: no decoder: %w", ErrVectorTile)
		}
		out, err := zdec.DecodeAll(b, nil)
		if err != nil {
			return nil, fmt.Errorf("zstd: %v: %w", err, ErrVectorTile)
		}
		if len(out) > MaxVectorTileBytes {
			return nil, fmt.Errorf("decompresses to %d bytes, more than %d: %w", len(out), MaxVectorTileBytes, ErrVectorTile)
		}
		return out, nil
	}
	return nil, fmt.Errorf("tile compression %s: %w", c, ErrVectorTile)
}

// selectLayers scans the layers of an MVT tile without decoding their
// features and returns a tile of the layers keep accepts (their bytes
// copied as they are), the names of the others, and the number of
// layers; the kept layers' features are counted against
// MaxVectorFeatures.
func selectLayers(b []byte, keep func(string) bool) (sub []byte, skipped []string, layers int, err error) {
	msg := protoscan.New(b)
	inner := protoscan.New(nil)
	features := 0
	for msg.Next() {
		if msg.FieldNumber() != 3 || msg.WireType() != protoscan.WireTypeLengthDelimited {
			msg.Skip()
			continue
		}
		data, err := msg.MessageData()
		if err != nil {
			return nil, nil, 0, fmt.Errorf("layer %d: %v: %w", layers, err, ErrVectorTile)
		}
		layers++
		inner.Reset(data)
		name, n := "", 0
		for inner.Next() {
			switch {
			case inner.FieldNumber() == 1 && inner.WireType() == protoscan.WireTypeLengthDelimited:
				if name, err = inner.String(); err != nil {
					return nil, nil, 0, fmt.Errorf("layer %d name: %v: %w", layers, err, ErrVectorTile)
				}
			case inner.FieldNumber() == 2:
				n++
				inner.Skip()
			default:
				inner.Skip()
			}
		}
		if err := inner.Err(); err != nil {
			return nil, nil, 0, fmt.Errorf("layer %q: %v: %w", name, err, ErrVectorTile)
		}
		if !keep(name) {
			skipped = append(skipped, name)
			continue
		}
		if features += n; features > MaxVectorFeatures {
			return nil, nil, 0, fmt.Errorf("more than %d features: %w", MaxVectorFeatures, ErrVectorTile)
		}
		sub = append(sub, 0x1a)
		sub = appendUvarint(sub, uint64(len(data)))
		sub = append(sub, data...)
	}
	if err := msg.Err(); err != nil {
		return nil, nil, 0, fmt.Errorf("tile: %v: %w", err, ErrVectorTile)
	}
	slices.Sort(skipped)
	return sub, slices.Compact(skipped), layers, nil
}

func appendUvarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// recoverVector turns a panic of the decoders on a broken tile into an
// error matching ErrVectorTile.
func recoverVector(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("vector tile: %v: %w", r, ErrVectorTile)
	}
}

// decodeLayers decodes the selected layers with orb's MVT decoder; a panic
// of the decoder on a broken tile is an error.
func decodeLayers(sub []byte) (ls mvt.Layers, err error) {
	if len(sub) == 0 {
		return nil, nil
	}
	defer func() {
		if r := recover(); r != nil {
			ls, err = nil, fmt.Errorf("decode: %v: %w", r, ErrVectorTile)
		}
	}()
	ls, err = mvt.Unmarshal(sub)
	if err != nil {
		return nil, fmt.Errorf("decode: %v: %w", err, ErrVectorTile)
	}
	for _, l := range ls {
		if l.Extent == 0 || l.Extent > 1<<20 {
			return nil, fmt.Errorf("layer %q: extent %d: %w", l.Name, l.Extent, ErrVectorTile)
		}
	}
	return ls, nil
}

// view maps a source tile's coordinates (0..extent) to the pixels of the
// drawn tile: t is the source tile itself, or one of its descendants
// (overzoom).
type view struct {
	side       float64 // pixels of the drawn tile's side
	k          float64 // 2^(t.Z − src.Z)
	offX, offY float64 // the drawn tile's position within the source, in drawn tiles
}

func newView(src, t Tile, scale int) view {
	dz := t.Z - src.Z
	k := 1 << dz
	return view{side: float64(TileSizePx * scale), k: float64(k), offX: float64(t.X - src.X*k), offY: float64(t.Y - src.Y*k)}
}

// unit is the number of source coordinates per drawn pixel in a layer of
// extent e.
func (v view) unit(e uint32) float64 { return float64(e) / (v.k * v.side) }

func (v view) px(p orb.Point, e uint32) (float32, float32) {
	u := v.unit(e)
	return float32(p[0]/u - v.offX*v.side), float32(p[1]/u - v.offY*v.side)
}

// clipBound is the drawn tile plus a margin of m pixels, in source
// coordinates of extent e.
func (v view) clipBound(e uint32, m float64) orb.Bound {
	u := v.unit(e)
	return orb.Bound{Min: orb.Point{(v.offX*v.side - m) * u, (v.offY*v.side - m) * u},
		Max: orb.Point{(v.offX*v.side + v.side + m) * u, (v.offY*v.side + v.side + m) * u}}
}

// item is one feature to draw.
type item struct {
	g      orb.Geometry
	extent uint32
}

// canvas draws paths on the tile and counts their vertices.
type canvas struct {
	z        *vector.Rasterizer
	v        view
	vertices int
	empty    bool // no path since the last Reset
}

func (c *canvas) add(n int) error {
	if c.vertices += n; c.vertices > MaxVectorVertices {
		return fmt.Errorf("more than %d vertices: %w", MaxVectorVertices, ErrVectorTile)
	}
	c.empty = false
	return nil
}

// fillRing adds one ring (outer or hole: the rasteriser's winding rule
// leaves holes of the opposite orientation empty).
func (c *canvas) fillRing(r orb.Ring, e uint32) error {
	if len(r) < 3 {
		return nil
	}
	if err := c.add(len(r)); err != nil {
		return err
	}
	x, y := c.v.px(r[0], e)
	c.z.MoveTo(x, y)
	for _, p := range r[1:] {
		x, y := c.v.px(p, e)
		c.z.LineTo(x, y)
	}
	c.z.ClosePath()
	return nil
}

// stroke adds the outline of a line of width w pixels: a quadrilateral
// per segment and, when wide enough to show, an octagon at each vertex
// (round joins and caps). All are wound the same way, so overlaps do not
// cancel (TestStrokeNoHoles).
func (c *canvas) stroke(pts [][2]float32, w float64) error {
	hw := float32(w / 2)
	joins := w >= 1.5
	n := 4 * len(pts)
	if joins {
		n += 8 * len(pts)
	}
	if err := c.add(n); err != nil {
		return err
	}
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		dx, dy := b[0]-a[0], b[1]-a[1]
		l := float32(math.Hypot(float64(dx), float64(dy)))
		if l == 0 {
			continue
		}
		nx, ny := -dy/l*hw, dx/l*hw
		c.z.MoveTo(a[0]+nx, a[1]+ny)
		c.z.LineTo(b[0]+nx, b[1]+ny)
		c.z.LineTo(b[0]-nx, b[1]-ny)
		c.z.LineTo(a[0]-nx, a[1]-ny)
		c.z.ClosePath()
	}
	if joins {
		// The octagon circumscribes the circle of radius hw, so that its
		// flat sides leave no sliver of the casing below showing inside a
		// turn; its corners stand out by 8 % of hw.
		// It is walked with decreasing angles, the winding of the
		// segments' quadrilaterals: the other way, the two would cancel
		// where they overlap and leave a hole at every vertex.
		r := hw / float32(math.Cos(math.Pi/8))
		for _, p := range pts {
			c.z.MoveTo(p[0]+r*octagon[0][0], p[1]-r*octagon[0][1])
			for k := 1; k < 8; k++ {
				c.z.LineTo(p[0]+r*octagon[k][0], p[1]-r*octagon[k][1])
			}
			c.z.ClosePath()
		}
	}
	return nil
}

// octagon holds cos and sin of 22.5° + k·45°.
var octagon = func() (o [8][2]float32) {
	for k := range o {
		a := math.Pi/8 + float64(k)*math.Pi/4
		o[k] = [2]float32{float32(math.Cos(a)), float32(math.Sin(a))}
	}
	return o
}()

// dashes cuts a line (pixels) into its dashes of on pixels every on+off;
// false when the dashes would have more than budget points.
func dashes(pts [][2]float32, on, off float32, budget int) ([][][2]float32, bool) {
	var out [][][2]float32
	var cur [][2]float32
	total := 0
	pos, drawing := float32(0), true // position within the current dash or gap
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		dx, dy := b[0]-a[0], b[1]-a[1]
		l := float32(math.Hypot(float64(dx), float64(dy)))
		t := float32(0)
		if drawing && len(cur) == 0 {
			cur = append(cur, a)
		}
		for l > 0 && t < l {
			span := on
			if !drawing {
				span = off
			}
			step := min(span-pos, l-t)
			if step <= 0 && pos < span {
				break // rounding: the segment is done
			}
			t += step
			pos += step
			p := [2]float32{a[0] + dx*t/l, a[1] + dy*t/l}
			if drawing {
				cur = append(cur, p)
				if total++; total > budget {
					return nil, false
				}
			}
			if pos >= span {
				pos = 0
				if drawing {
					out = append(out, cur)
					cur = nil
				} else {
					cur = [][2]float32{p}
				}
				drawing = !drawing
			}
		}
	}
	if len(cur) > 1 {
		out = append(out, cur)
	}
	return out, true
}

// line adds line ls with the pass's width and dash.
func (c *canvas) line(ls orb.LineString, e uint32, w float64, dash [2]float64) error {
	if len(ls) < 2 {
		return nil
	}
	if err := c.add(len(ls)); err != nil {
		return err
	}
	pts := make([][2]float32, len(ls))
	for i, p := range ls {
		x, y := c.v.px(p, e)
		pts[i] = [2]float32{x, y}
	}
	if dash[0] <= 0 {
		return c.stroke(pts, w)
	}
	ds, ok := dashes(pts, float32(dash[0]), float32(dash[1]), MaxVectorVertices-c.vertices)
	if !ok {
		return fmt.Errorf("more than %d vertices: %w", MaxVectorVertices, ErrVectorTile)
	}
	for _, d := range ds {
		if err := c.stroke(d, w); err != nil {
			return err
		}
	}
	return nil
}

// vectorRender is one render's input.
type vectorRender struct {
	src, t Tile // the archive's tile and the drawn one (src itself or a descendant)
	scale  int  // 1: 256 pixels, 2: 512
	check  func() error
	// decodeAll decodes every layer, drawn or not (the naive baseline of
	// BenchmarkRenderVectorTileNaive).
	decodeAll bool
}

// renderVector draws the decompressed MVT tile b as an opaque RGBA image
// of the style.
func renderVector(b []byte, r vectorRender) (img *image.RGBA, st VectorStats, err error) {
	defer recoverVector(&err)
	sub, skipped, n, err := selectLayers(b, func(name string) bool { return r.decodeAll || drawnLayers[name] })
	if err != nil {
		return nil, st, err
	}
	st.Layers, st.SkippedLayers = n, skipped
	ls, err := decodeLayers(sub)
	if err != nil {
		return nil, st, err
	}
	if r.scale < 1 {
		r.scale = 1
	}
	v := newView(r.src, r.t, r.scale)
	side := TileSizePx * r.scale
	// The widest line, with its casing, sets the clipping margin.
	margin := 2.0
	widths := [nPaints]float64{}
	for p := range nPaints {
		s := styles[p]
		widths[p] = s.width.at(r.t.Z) * float64(r.scale)
		margin = max(margin, widths[p]/2+s.casingPx*float64(r.scale)+2)
	}
	var buckets [nPaints][]item
	for _, l := range ls {
		inner := v.clipBound(l.Extent, margin)
		for _, f := range l.Features {
			if f == nil || f.Geometry == nil {
				st.SkippedFeatures++
				continue
			}
			pt, ok := classify(l.Name, f.Properties, f.Geometry, r.t.Z)
			if !ok {
				st.SkippedFeatures++
				continue
			}
			g := f.Geometry
			if bd := g.Bound(); !inner.Contains(bd.Min) || !inner.Contains(bd.Max) {
				if !bd.Intersects(inner) {
					continue // wholly outside the drawn tile (an overzoomed part of the source)
				}
				if g = orbclip.Geometry(inner, g); g == nil {
					continue
				}
			}
			st.Features++
			buckets[pt] = append(buckets[pt], item{g: g, extent: l.Extent})
		}
	}
	dst := image.NewRGBA(image.Rect(0, 0, side, side))
	fillRect(dst, LandColor)
	c := &canvas{z: vector.NewRasterizer(side, side), v: v}
	for _, ps := range passes {
		items := buckets[ps.p]
		s := styles[ps.p]
		col := s.line
		if s.fill.A > 0 {
			col = s.fill
		}
		if ps.casing {
			col = s.casing
		}
		if len(items) == 0 || col.A == 0 {
			continue
		}
		if r.check != nil {
			if err := r.check(); err != nil {
				return nil, st, err
			}
		}
		c.z.Reset(side, side)
		c.empty = true
		w := widths[ps.p]
		if ps.casing {
			w += 2 * s.casingPx * float64(r.scale)
		}
		dash := [2]float64{s.dash[0] * float64(r.scale), s.dash[1] * float64(r.scale)}
		for _, it := range items {
			if err := c.geometry(it, s.fill.A > 0, w, dash); err != nil {
				return nil, st, err
			}
		}
		if !c.empty {
			c.z.Draw(dst, dst.Bounds(), image.NewUniform(col), image.Point{})
		}
	}
	st.Vertices = c.vertices
	return dst, st, nil
}

// geometry adds one feature: polygons filled (fill true), lines stroked.
func (c *canvas) geometry(it item, fill bool, w float64, dash [2]float64) error {
	switch g := it.g.(type) {
	case orb.Polygon:
		if fill {
			for _, r := range g {
				if err := c.fillRing(r, it.extent); err != nil {
					return err
				}
			}
		}
	case orb.MultiPolygon:
		if fill {
			for _, p := range g {
				for _, r := range p {
					if err := c.fillRing(r, it.extent); err != nil {
						return err
					}
				}
			}
		}
	case orb.LineString:
		if !fill {
			return c.line(g, it.extent, w, dash)
		}
	case orb.MultiLineString:
		if !fill {
			for _, ls := range g {
				if err := c.line(ls, it.extent, w, dash); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func fillRect(dst *image.RGBA, c color.NRGBA) {
	for i := 0; i < len(dst.Pix); i += 4 {
		dst.Pix[i], dst.Pix[i+1], dst.Pix[i+2], dst.Pix[i+3] = c.R, c.G, c.B, c.A
	}
}

// encodePNG writes img with enc.
func encodePNG(enc *png.Encoder, img image.Image) ([]byte, error) {
	var buf bytes.Buffer
	if err := enc.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("encode PNG: %w", err)
	}
	return buf.Bytes(), nil
}

// Label is one place name of a vector tile, for the console to place
// without collisions.
type Label struct {
	// Name is the place's name as the archive has it (its local name).
	Name string `json:"name"`
	// Lat, Lon: WGS84 degrees, rounded to 1e-6.
	Lat float64 `json:"lat"`
	Lon float64 `json:"lon"`
	// Kind is the place's class (city, town, suburb, neighbourhood, …).
	Kind string `json:"kind"`
	// Rank orders labels: lower first (more important).
	Rank int `json:"rank"`
}

// placeRanks orders place classes, most important first.
var placeRanks = map[string]int{
	"country": 0, "state": 1, "region": 1, "province": 1, "city": 2, "town": 3, "village": 4,
	"suburb": 5, "borough": 5, "macrohood": 5, "quarter": 6, "neighbourhood": 6, "island": 6, "hamlet": 7, "locality": 7, "isolated_dwelling": 8,
}

// vectorLabels returns the named points of the place layers of the
// decompressed MVT tile b that lie in drawn tile r.t (each point in one
// tile only: the source tiles' buffers are left out), most important
// first, at most MaxTileLabels.
func vectorLabels(b []byte, r vectorRender) (labels []Label, err error) {
	defer recoverVector(&err)
	sub, _, _, err := selectLayers(b, func(name string) bool { return labelLayers[name] })
	if err != nil {
		return nil, err
	}
	ls, err := decodeLayers(sub)
	if err != nil {
		return nil, err
	}
	v := newView(r.src, r.t, 1)
	n := float64(uint(1) << r.src.Z)
	out := []Label{}
	for _, l := range ls {
		e := float64(l.Extent)
		for _, f := range l.Features {
			if f == nil {
				continue
			}
			var p orb.Point
			switch g := f.Geometry.(type) {
			case orb.Point:
				p = g
			case orb.MultiPoint:
				if len(g) == 0 {
					continue
				}
				p = g[0]
			default:
				continue
			}
			name := strings.TrimSpace(prop(f.Properties, "name"))
			if name == "" || len(name) > 200 {
				continue
			}
			if mz, err := strconv.ParseFloat(prop(f.Properties, "min_zoom"), 64); err == nil && mz > float64(r.t.Z) {
				continue // Protomaps: shown from a larger zoom
			}
			x, y := v.px(p, l.Extent)
			if x < 0 || y < 0 || float64(x) >= v.side || float64(y) >= v.side || p[0] < 0 || p[1] < 0 || p[0] >= e || p[1] >= e {
				continue
			}
			kind := prop(f.Properties, "kind")
			if _, ok := placeRanks[kind]; !ok || kind == "locality" {
				for _, k := range []string{"kind_detail", "class", "place"} {
					if _, ok := placeRanks[prop(f.Properties, k)]; ok {
						kind = prop(f.Properties, k)
						break
					}
				}
			}
			rank, ok := placeRanks[kind]
			if !ok {
				rank = 9
			}
			sub := 50
			if v, err := strconv.ParseFloat(prop(f.Properties, "rank"), 64); err == nil { // OpenMapTiles: lower first
				sub = int(min(max(v, 0), 99))
			} else if v, err := strconv.ParseFloat(prop(f.Properties, "population_rank"), 64); err == nil { // Protomaps: higher first
				sub = 99 - int(min(max(v, 0), 99))
			}
			fx := (float64(r.src.X) + p[0]/e) / n
			fy := (float64(r.src.Y) + p[1]/e) / n
			out = append(out, Label{Name: name, Lat: round6(latOfY(fy)), Lon: round6(lonOfX(fx)), Kind: kind, Rank: rank*100 + sub})
		}
	}
	slices.SortFunc(out, func(a, b Label) int {
		if a.Rank != b.Rank {
			return a.Rank - b.Rank
		}
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		if a.Lat != b.Lat {
			return cmpFloat(a.Lat, b.Lat)
		}
		return cmpFloat(a.Lon, b.Lon)
	})
	if len(out) > MaxTileLabels {
		out = out[:MaxTileLabels]
	}
	return out, nil
}

func cmpFloat(a, b float64) int {
	if a < b {
		return -1
	}
	if a > b {
		return 1
	}
	return 0
}

func round6(v float64) float64 { return math.Round(v*1e6) / 1e6 }
