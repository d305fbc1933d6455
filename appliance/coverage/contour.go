package coverage

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"linkplan/appliance"
	"linkplan/appliance/geoexport"
)

// Limits of the contour thresholds.
const (
	MaxContourThresholds = 10
	MinContourDBm        = -200.0
	MaxContourDBm        = 100.0
)

// ContourSchema returns the schema of the features of Contours: one
// multipolygon per threshold with its threshold (dBm), the area at or above
// it (km²) and its pixel count, then the caveats of the map (package doc,
// "Caveats"): the engine, the EIRP of the first transmitter (dBm), whether
// an EIRP was assumed, the warning codes (';'-separated; a .dbf holds
// 254 bytes of them, the eight the ray tracer itself can give a map, and
// cuts a longer list, with a tower's or a layer's caveats, between codes,
// ending ";+N more") and the warnings as
// "code: message" separated by " | " (cut to 254 bytes in a .dbf), and for a map traced on a building layer (raytrace) the layer's
// id, its scene's hash and the options as compact JSON (TracedScene;
// null otherwise; a Shapefile's .dbf keeps the first 254 bytes of the
// options, about 270 for the defaults: the zip's
// geoexport.FullTextSuffix file, the GeoJSON, the KML, the GeoTIFF's
// RAYTRACE_OPTIONS and the KMZ legend hold them whole, as the zip's text
// file holds every warning list or message the .dbf cuts). In a Shapefile the .dbf names are the
// geoexport.ShortNames: threshold_, area_km2, pixels, engine, eirp_dbm,
// eirp_assum, warnings, warning_me, layer_id, scene_hash, rt_options.
func ContourSchema() geoexport.Schema {
	return geoexport.Schema{Geometry: geoexport.KindMultiPolygon, Fields: []geoexport.Field{
		{Name: "threshold_dbm", Type: geoexport.TypeFloat, Width: 10, Decimals: 2},
		{Name: "area_km2", Type: geoexport.TypeFloat, Width: 18, Decimals: 6},
		{Name: "pixels", Type: geoexport.TypeInt, Width: 10},
		{Name: "engine", Type: geoexport.TypeString, Width: 32},
		{Name: "eirp_dbm", Type: geoexport.TypeFloat, Width: 10, Decimals: 3},
		{Name: "eirp_assumed", Type: geoexport.TypeBool},
		{Name: "warnings", Type: geoexport.TypeString, Width: geoexport.MaxDBFStringWidth, ListSep: ";"},
		{Name: "warning_messages", Type: geoexport.TypeString, Width: geoexport.MaxDBFStringWidth},
		{Name: "layer_id", Type: geoexport.TypeString, Width: 64},
		{Name: "scene_hash", Type: geoexport.TypeString, Width: 64},
		{Name: "rt_options", Type: geoexport.TypeString, Width: geoexport.MaxDBFStringWidth},
	}}
}

// ContourKMLOptions returns the KML options of contour exports.
func ContourKMLOptions() geoexport.KMLOptions {
	return geoexport.KMLOptions{DocumentName: "Coverage contours"}
}

// ValidateThresholds checks contour thresholds: 1..MaxContourThresholds
// finite values within MinContourDBm..MaxContourDBm. The error is an
// *appliance.ValidationError naming the field "thresholds".
func ValidateThresholds(thresholdsDBm []float64) error {
	v := &appliance.ValidationError{}
	if n := len(thresholdsDBm); n < 1 || n > MaxContourThresholds {
		v.Add("thresholds", "must hold 1..%d values, got %d", MaxContourThresholds, n)
		return v
	}
	for _, t := range thresholdsDBm {
		if math.IsNaN(t) || math.IsInf(t, 0) || t < MinContourDBm || t > MaxContourDBm {
			v.Add("thresholds", "must be finite values of %g..%g dBm, got %g", MinContourDBm, MaxContourDBm, t)
			break
		}
	}
	return v.Err()
}

// ParseThresholds parses a comma-separated list of thresholds in dBm
// ("-75,-85,-95", spaces allowed) and validates it as ValidateThresholds
// does; the error is an *appliance.ValidationError naming "thresholds".
func ParseThresholds(s string) ([]float64, error) {
	var out []float64
	if strings.TrimSpace(s) != "" {
		for _, part := range strings.Split(s, ",") {
			v, err := strconv.ParseFloat(strings.TrimSpace(part), 64)
			if err != nil {
				ve := &appliance.ValidationError{}
				ve.Add("thresholds", "must be a comma-separated list of numbers (dBm), got %q", s)
				return nil, ve
			}
			out = append(out, v)
		}
	}
	if err := ValidateThresholds(out); err != nil {
		return nil, err
	}
	return out, nil
}

// Contours returns one feature of ContourSchema per threshold, in the
// order given: the area of the pixels of r whose value is at or above the
// threshold (NaN, no data, never is), as a multipolygon.
//
// The polygons are pixel-exact, without smoothing or simplification
// beyond dropping collinear vertices: every edge is a pixel edge, on the
// raster's grid. Each polygon is one 4-connected set of qualifying pixels
// (pixels touching only at a corner are separate polygons that touch at
// that point), with its exterior ring and one hole per enclosed area of
// other pixels; rings are simple (a ring that would touch itself at a
// corner is split there, so a hole may touch its exterior or another hole
// at one point), which makes them valid OGC polygons. Polygons are in
// row-major order of their first pixel, holes in the order they are
// traced. area_km2 is the sum of the pixel areas (Raster.PixelAreaKm2),
// pixels the count. A threshold that no pixel reaches has an empty
// multipolygon, area 0 and 0 pixels. Every feature carries the caveats of
// the map's summary sum (nulls when sum is nil).
func Contours(r *Raster, thresholdsDBm []float64, sum *Summary) ([]geoexport.Feature, error) {
	if err := ValidateThresholds(thresholdsDBm); err != nil {
		return nil, err
	}
	if r == nil || r.Width < 0 || r.Height < 0 || len(r.DBm) != r.Width*r.Height {
		return nil, fmt.Errorf("contours: raster pixels do not match its size: %w", appliance.ErrInvalid)
	}
	out := make([]geoexport.Feature, 0, len(thresholdsDBm))
	for _, t := range thresholdsDBm {
		polys, pixels, area := contour(r, t)
		out = append(out, geoexport.Feature{
			Geometry:   geoexport.MultiPolygon(polys...),
			Properties: append([]geoexport.Value{geoexport.Float(t), geoexport.Float(area), geoexport.Int(int64(pixels))}, caveatValues(sum)...),
		})
	}
	return out, nil
}

// Directions of boundary edges on the vertex grid (x = column, y = row,
// y growing southwards); left of d is (d+1)%4 in geographic orientation.
const (
	dirE = iota
	dirN
	dirW
	dirS
)

var dirDX = [4]int{1, 0, -1, 0}
var dirDY = [4]int{0, -1, 0, 1}

// contour traces the area of the pixels of r at or above t.
//
// Boundary edges are directed with the qualifying pixel on their left (in
// geographic orientation, north up), so exterior rings run
// counter-clockwise and holes clockwise. At a vertex where two qualifying
// pixels touch diagonally (two edges in, two out), each incoming edge goes
// on by a left turn, around the same pixel: qualifying pixels are
// 4-connected. The cycles so defined are split where they pass a vertex
// twice, and each simple ring is given to the 4-connected component of the
// pixel on the left of its first edge.
func contour(r *Raster, t float64) (polys [][][]appliance.LatLon, pixels int, areaKm2 float64) {
	w, h := r.Width, r.Height
	if w <= 0 || h <= 0 {
		return nil, 0, 0
	}
	in := make([]bool, w*h)
	for row := range h {
		rowArea := r.PixelAreaKm2(row)
		for col := range w {
			v := r.DBm[row*w+col]
			if v == v && float64(v) >= t {
				in[row*w+col] = true
				pixels++
				areaKm2 += rowArea
			}
		}
	}
	if pixels == 0 {
		return nil, 0, 0
	}
	fg := func(row, col int) bool { return row >= 0 && row < h && col >= 0 && col < w && in[row*w+col] }

	// Components (4-connected), numbered in row-major order of their first pixel.
	label := make([]int32, w*h)
	var stack []int
	comps := 0
	for i := range in {
		if !in[i] || label[i] != 0 {
			continue
		}
		comps++
		label[i] = int32(comps)
		stack = append(stack[:0], i)
		for len(stack) > 0 {
			p := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			row, col := p/w, p%w
			for d := range 4 {
				nr, nc := row+dirDY[d], col+dirDX[d]
				if fg(nr, nc) && label[nr*w+nc] == 0 {
					label[nr*w+nc] = int32(comps)
					stack = append(stack, nr*w+nc)
				}
			}
		}
	}

	// Boundary edges: bit d of edges[y*vw+x] is the edge leaving vertex (x, y) in direction d.
	vw := w + 1
	edges := make([]uint8, vw*(h+1))
	for row := range h {
		for col := range w {
			if !in[row*w+col] {
				continue
			}
			if !fg(row+1, col) { // bottom, eastwards
				edges[(row+1)*vw+col] |= 1 << dirE
			}
			if !fg(row, col+1) { // right, northwards
				edges[(row+1)*vw+col+1] |= 1 << dirN
			}
			if !fg(row-1, col) { // top, westwards
				edges[row*vw+col+1] |= 1 << dirW
			}
			if !fg(row, col-1) { // left, southwards
				edges[row*vw+col] |= 1 << dirS
			}
		}
	}
	// leftPixel is the component of the qualifying pixel left of the edge
	// leaving vertex v in direction d.
	leftPixel := func(v, d int) int32 {
		x, y := v%vw, v/vw
		var row, col int
		switch d {
		case dirE:
			row, col = y-1, x
		case dirN:
			row, col = y-1, x-1
		case dirW:
			row, col = y, x-1
		default:
			row, col = y, x
		}
		return label[row*w+col]
	}

	exterior := make([][]appliance.LatLon, comps+1)
	holes := make([][][]appliance.LatLon, comps+1)
	var extras [][]appliance.LatLon // a second exterior of one component (not expected)
	emit := func(loop []contourStep) {
		ring, area := ringOf(r, loop, vw)
		c := leftPixel(loop[0].v, loop[0].d)
		switch {
		case area < 0:
			holes[c] = append(holes[c], ring)
		case exterior[c] == nil:
			exterior[c] = ring
		default:
			extras = append(extras, ring)
		}
	}
	visited := make([]uint8, len(edges))
	at := make([]int32, len(edges)) // vertex → 1 + its index in walk, 0 when not in it
	var walk []contourStep
	for v0, bits := range edges {
		for d0 := range 4 {
			if bits&(1<<d0) == 0 || visited[v0]&(1<<d0) != 0 {
				continue
			}
			// Follow the cycle of edge (v0, d0), splitting it at repeated vertices.
			walk = walk[:0]
			v, d := v0, d0
			for {
				if i := int(at[v]) - 1; i >= 0 {
					emit(walk[i:])
					for _, s := range walk[i:] {
						at[s.v] = 0
					}
					walk = walk[:i]
				}
				at[v] = int32(len(walk) + 1)
				walk = append(walk, contourStep{v, d})
				visited[v] |= 1 << d
				v += dirDX[d] + dirDY[d]*vw
				d = nextDir(edges, v, d)
				if v == v0 && d == d0 {
					break
				}
			}
			emit(walk)
			for _, s := range walk {
				at[s.v] = 0
			}
		}
	}
	for c := 1; c <= comps; c++ {
		if exterior[c] == nil {
			continue // unreachable: every component has an exterior
		}
		polys = append(polys, append([][]appliance.LatLon{exterior[c]}, holes[c]...))
	}
	for _, e := range extras {
		polys = append(polys, [][]appliance.LatLon{e})
	}
	return polys, pixels, areaKm2
}

// contourStep is one boundary edge: its start vertex and direction.
type contourStep struct{ v, d int }

// nextDir returns the direction of the boundary edge that continues the
// one arriving at vertex v in direction d: a left turn, straight on or a
// right turn, the first that is a boundary edge (two qualifying pixels
// touching at a corner only are separate).
func nextDir(edges []uint8, v, d int) int {
	for _, nd := range [3]int{(d + 1) % 4, d, (d + 3) % 4} {
		if edges[v]&(1<<nd) != 0 {
			return nd
		}
	}
	panic("coverage: contour boundary edges do not form cycles")
}

// ringOf returns the closed ring of loop in WGS84 degrees, collinear
// vertices dropped, and its signed area in pixel units (positive
// counter-clockwise, north up).
func ringOf(r *Raster, loop []contourStep, vw int) ([]appliance.LatLon, float64) {
	ring := make([]appliance.LatLon, 0, 8)
	n := len(loop)
	twice := 0
	for i, s := range loop {
		prev := loop[(i+n-1)%n].d
		x, y := s.v%vw, s.v/vw
		nx, ny := x+dirDX[s.d], y+dirDY[s.d]
		twice += x*(-ny) - nx*(-y)
		if prev == s.d {
			continue // collinear
		}
		ring = append(ring, appliance.LatLon{Lat: r.North - float64(y)*r.PixelLatDeg, Lon: r.West + float64(x)*r.PixelLonDeg})
	}
	ring = append(ring, ring[0])
	return ring, float64(twice) / 2
}
