package appliance

import "math"

// The size bounds of one building layer, shared by the importer
// (appliance/buildings, which refuses a larger layer with a 422) and the
// raytrace engine's scene (engines/raytrace.NewScene, which asserts them):
// a scene's memory grows with the walls' scattering tiles, its walls and
// edges with the vertices, and its grids with the square of the extent.
const (
	// RaytraceScatterTileM is the largest side of a wall's scattering
	// tile, metres: a wall of length l and height h is cut into
	// ⌈l/3⌉ × ⌈h/3⌉ tiles.
	RaytraceScatterTileM = 3.0
	// BuildingLayerMaxWallTiles bounds a layer's scattering tiles
	// (BuildingLayerSize.WallTiles): 32 Mi tiles, about 5 bytes each in
	// the scene (the tile's wall and the tile grid; a request keeps what
	// it needs of the tiles around its ends only); a dense district of
	// 20 000 buildings of 20 m × 20 m × 30 m has 5.6 M.
	BuildingLayerMaxWallTiles = 32 << 20
	// BuildingLayerMaxVertices bounds a layer's ring vertices, all
	// rings of all buildings (each is one wall, one roof edge and at most
	// one vertical edge of the scene): 1 Mi.
	BuildingLayerMaxVertices = 1 << 20
	// BuildingLayerMaxHalfDiagonalM bounds half the diagonal of a layer's
	// bounds, metres: the scene's frame is centred on the bounds and
	// traces no farther than RaytraceMaxFrameM from its origin.
	BuildingLayerMaxHalfDiagonalM = RaytraceMaxFrameM
)

// BuildingLayerSize is what the layer bounds measure.
type BuildingLayerSize struct {
	Vertices   int     // ring vertices, all rings (the walls)
	WallTiles  int     // scattering tiles of the walls
	WallAreaM2 float64 // Σ wall length × wall height, square metres
	// HalfDiagonalM is half the diagonal of the outer rings' bounds about
	// the origin given, metres (the largest distance of a bounds corner
	// from it).
	HalfDiagonalM float64
}

// MeasureBuildingLayer measures bs in the local frame about origin (a
// layer's scene uses the centre of its bounds): every ring's edges are
// walls of the building's height less its min height, cut into tiles of
// RaytraceScatterTileM. The figures are computed from the buildings as
// given, so the importer and the scene agree on them.
func MeasureBuildingLayer(bs []Building, origin LatLon) BuildingLayerSize {
	var out BuildingLayerSize
	tiles := 0.0 // Σ tiles, float64 until the end
	f := NewLocalFrame(origin)
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	ring := func(r []LatLon, h float64, outer bool) {
		out.Vertices += len(r)
		nv := 0.0
		if h > 0 {
			nv = math.Ceil(h / RaytraceScatterTileM)
		}
		var x0, y0 float64
		for i, p := range r {
			x, y := f.ToLocal(p)
			if i == 0 {
				x0, y0 = x, y
			}
			if outer {
				minX, minY, maxX, maxY = min(minX, x), min(minY, y), max(maxX, x), max(maxY, y)
			}
			q := r[(i+1)%len(r)]
			x1, y1 := x0, y0
			if i+1 < len(r) {
				x1, y1 = f.ToLocal(q)
			}
			l := math.Hypot(x1-x, y1-y)
			if l > 0 && nv > 0 {
				tiles += math.Ceil(l/RaytraceScatterTileM) * nv
				out.WallAreaM2 += l * h
			}
		}
	}
	for _, b := range bs {
		h := b.HeightM - b.MinHeightM
		if math.IsNaN(h) || math.IsInf(h, 0) {
			h = 0 // refused by the importer and the scene on their own
		}
		for _, fp := range b.Footprints {
			ring(fp.Outer, h, true)
			for _, hole := range fp.Holes {
				ring(hole, h, false)
			}
		}
	}
	// counted in float64 and saturated: absurd heights or lengths give the
	// largest count, which every bound refuses, never a wrapped one
	out.WallTiles = math.MaxInt
	if tiles < float64(math.MaxInt32) {
		out.WallTiles = int(tiles)
	}
	if !math.IsInf(minX, 1) {
		out.HalfDiagonalM = math.Max(math.Hypot(minX, minY), math.Max(math.Hypot(minX, maxY), math.Max(math.Hypot(maxX, minY), math.Hypot(maxX, maxY))))
	}
	return out
}

// BuildingLayerCentre is the centre of bs's outer rings' bounds (WGS84
// degrees), the origin of the layer's scene; the zero LatLon when bs has
// no vertex.
func BuildingLayerCentre(bs []Building) LatLon {
	minLat, minLon, maxLat, maxLon := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, b := range bs {
		for _, fp := range b.Footprints {
			for _, p := range fp.Outer {
				minLat, maxLat = min(minLat, p.Lat), max(maxLat, p.Lat)
				minLon, maxLon = min(minLon, p.Lon), max(maxLon, p.Lon)
			}
		}
	}
	if math.IsInf(minLat, 1) {
		return LatLon{}
	}
	return LatLon{Lat: (minLat + maxLat) / 2, Lon: (minLon + maxLon) / 2}
}
