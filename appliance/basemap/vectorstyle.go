package basemap

import (
	"image/color"
	"math"
	"strconv"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geojson"
)

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
