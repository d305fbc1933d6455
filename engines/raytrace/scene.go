package raytrace

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sort"

	"linkplan/appliance"
)

// SceneInput is what NewScene builds a scene from.
type SceneInput struct {
	// Buildings are the layer's buildings (appliance.Building: WGS84
	// footprints, heights above the ground).
	Buildings []appliance.Building
	// Origin of the local frame; the zero value uses the centre of the
	// buildings' bounding box.
	Origin appliance.LatLon
	// Material is the default material of walls and roofs (a P.2040 name
	// of LookupMaterial); "" is DefaultBuildingMaterial. Materials maps
	// building materials and classes (appliance.Building.Material, then
	// .Class) to materials and may add custom ones.
	Material  string
	Materials map[string]Material
	// Ground is the ground material (P.527 name); "" is DefaultGround.
	Ground string
	// GroundHeightM is the height of flat ground, metres above mean sea
	// level, used when Terrain is nil.
	GroundHeightM float64
	// Terrain, when set, gives the ground height under buildings,
	// transmitters and receivers, and obstructs paths (see doc.go).
	Terrain *Heightfield
	// FlatGround, when set (with Terrain nil), says why the ground is flat
	// although the caller wanted terrain (LayerIndex: the terrain packs
	// do not cover the layer); every answer then warns WarnFlatGround
	// with it. A caller that chose flat ground leaves it empty.
	FlatGround string
}

// Scene is an immutable, indexed scene: buildings as extruded polygons,
// their walls, roofs and diffracting edges, a bounding-volume hierarchy
// over the buildings and the ground. It is safe for concurrent use.
type Scene struct {
	frame     Frame
	buildings []building
	surfaces  []surface // surfaces[0] is the ground plane
	edges     []edge
	tileSurf  []int32 // wall of each diffuse-scattering tile (Scene.tile computes the rest)
	wallTiles []wallTiles
	mats      []Material
	ground    int32 // index of the ground material in mats
	groundZ   float64
	terrain   *Heightfield
	bvh       []bvhNode
	order     []int32 // building indices in BVH leaf order
	bounds    [4]float64
	clutterM  float64 // median building height above its base, metres (Options.ClutterBeyondExtent)
	// clutterAssumed: clutterM is the height of a building whose height
	// is assumed (HeightDefault)
	clutterAssumed bool
	edgeGrid       grid2
	tileGrid       grid2 // tile centres (ScatteringReflections)
	hash           [32]byte
	assumed        int    // buildings with HeightDefault
	groundDoc      string // how the ground was made (LayerIndex), for Stats
	flatGround     string // SceneInput.FlatGround
}

// groundDescription says what the ground is.
func (s *Scene) groundDescription() string {
	if s.groundDoc != "" {
		return s.groundDoc
	}
	if s.terrain != nil {
		return "terrain heightfield"
	}
	return fmt.Sprintf("flat ground at %g m", s.groundZ)
}

// building is one building in local coordinates.
type building struct {
	id      string
	polys   []poly2
	zb, zt  float64 // base and roof heights, metres AMSL
	mat     int32
	assumed bool
	min     vec3
	max     vec3
	// surf0 and surf1 bound the building's surfaces (walls, then roofs)
	// in Scene.surfaces: [surf0, surf1)
	surf0, surf1 int32
}

// poly2 is a polygon: rings[0] the outer ring (counter-clockwise), then
// the holes (clockwise), each without a closing repeat.
type poly2 struct{ rings [][]vec2 }

// Surface kinds.
const (
	kindGround uint8 = iota
	kindWall
	kindRoof
)

// surface is a planar reflector.
type surface struct {
	kind   uint8
	bld    int32
	poly   int32 // roofs: polygon index in the building
	n      vec3  // outward unit normal
	d      float64
	a, b   vec2 // walls: ends, building material on the left of a→b
	zb, zt float64
	mat    int32
}

// edge is a diffracting wedge: a convex vertical corner or a roof edge.
type edge struct {
	p0, p1   vec3
	e        vec3 // unit, p0 → p1
	length   float64
	t0, n0   vec3 // face 0: direction in the face away from the edge, outward normal
	nw       float64
	mat      int32
	bld      int32
	vertical bool
}

// MaxFrameM is how far from the scene's origin a transmitter or receiver
// may be, metres (appliance.RaytraceMaxFrameM).
const MaxFrameM = appliance.RaytraceMaxFrameM

// checkFrame refuses positions too far from the origin.
func (s *Scene) checkFrame(v *appliance.ValidationError, field string, p appliance.LatLon) {
	x, y := s.frame.ToLocal(p)
	if math.Hypot(x, y) > MaxFrameM {
		v.Add(field, "is %.0f m from the scene's origin %v; at most %g m is traced", math.Hypot(x, y), s.frame.Origin, MaxFrameM)
	}
}

// NewScene converts and indexes the buildings. Buildings whose footprints
// are degenerate in the local frame (fewer than three distinct vertices,
// zero area) are skipped; it fails only on a bad material or height.
func NewScene(in SceneInput) (*Scene, error) {
	s := &Scene{terrain: in.Terrain}
	if in.Terrain == nil {
		s.flatGround = in.FlatGround
	}
	origin := in.Origin
	if origin == (appliance.LatLon{}) {
		origin = centreOf(in.Buildings)
		if in.Terrain != nil && len(in.Buildings) == 0 {
			origin = in.Terrain.Origin
		}
	}
	if origin == (appliance.LatLon{}) {
		return nil, fmt.Errorf("raytrace scene: a scene without buildings or terrain needs an origin: %w", appliance.ErrInvalid)
	}
	s.frame = NewFrame(origin)
	if in.Terrain != nil && in.Terrain.Origin != origin {
		return nil, fmt.Errorf("raytrace scene: the terrain heightfield must use the scene origin %v", origin)
	}
	matIndex := map[string]int32{}
	addMat := func(m Material) (int32, error) {
		if i, ok := matIndex[m.Name]; ok {
			return i, nil
		}
		if err := m.Validate(); err != nil {
			return 0, fmt.Errorf("raytrace scene: %w", err)
		}
		s.mats = append(s.mats, m)
		matIndex[m.Name] = int32(len(s.mats) - 1)
		return matIndex[m.Name], nil
	}
	lookup := func(name string) (Material, bool) {
		if m, ok := in.Materials[name]; ok {
			if m.Name == "" {
				m.Name = name
			}
			return m, true
		}
		return LookupMaterial(name)
	}
	defName := in.Material
	if defName == "" {
		defName = DefaultBuildingMaterial
	}
	defMat, ok := lookup(defName)
	if !ok {
		return nil, fmt.Errorf("raytrace scene: unknown material %q (known: %v)", defName, MaterialNames())
	}
	defIdx, err := addMat(defMat)
	if err != nil {
		return nil, err
	}
	gName := in.Ground
	if gName == "" {
		gName = DefaultGround
	}
	gMat, ok := lookup(gName)
	if !ok {
		return nil, fmt.Errorf("raytrace scene: unknown ground %q (known: %v)", gName, MaterialNames())
	}
	if s.ground, err = addMat(gMat); err != nil {
		return nil, err
	}
	if math.IsNaN(in.GroundHeightM) || math.IsInf(in.GroundHeightM, 0) {
		return nil, fmt.Errorf("raytrace scene: ground height must be finite")
	}
	s.groundZ = in.GroundHeightM
	if in.Terrain != nil {
		s.groundZ = in.Terrain.MeanM()
	}
	s.surfaces = append(s.surfaces, surface{kind: kindGround, bld: -1, n: vec3{0, 0, 1}, d: s.groundZ, mat: s.ground})

	// The layer bounds the importer applies (appliance.BuildingLayerMax*),
	// asserted here so that no caller builds a scene whose grids or tiles
	// outgrow them.
	for _, b := range in.Buildings {
		if !(b.HeightM > 0) || math.IsInf(b.HeightM, 0) || b.MinHeightM < 0 || !(b.MinHeightM < b.HeightM) {
			return nil, fmt.Errorf("raytrace scene: building %s: height must be finite, positive and above its min height: %w", b.ID, appliance.ErrInvalid)
		}
	}
	sz := appliance.MeasureBuildingLayer(in.Buildings, origin)
	switch {
	case sz.HalfDiagonalM > appliance.BuildingLayerMaxHalfDiagonalM:
		return nil, fmt.Errorf("raytrace scene: the buildings reach %.0f m from the origin; at most %g m: %w", sz.HalfDiagonalM, appliance.BuildingLayerMaxHalfDiagonalM, appliance.ErrInvalid)
	case sz.Vertices > appliance.BuildingLayerMaxVertices:
		return nil, fmt.Errorf("raytrace scene: %d ring vertices; at most %d: %w", sz.Vertices, appliance.BuildingLayerMaxVertices, appliance.ErrInvalid)
	case sz.WallTiles > appliance.BuildingLayerMaxWallTiles:
		return nil, fmt.Errorf("raytrace scene: %d wall tiles (%.0f m² of walls); at most %d: %w", sz.WallTiles, sz.WallAreaM2, appliance.BuildingLayerMaxWallTiles, appliance.ErrInvalid)
	}
	s.tileSurf = make([]int32, 0, sz.WallTiles)
	for _, b := range in.Buildings {
		mi := defIdx
		for _, key := range []string{b.Material, b.Class} {
			if key == "" {
				continue
			}
			if m, ok := lookup(key); ok {
				if mi, err = addMat(m); err != nil {
					return nil, err
				}
				break
			}
		}
		s.addBuilding(b, mi)
	}
	s.buildBVH()
	s.buildEdgeGrid()
	s.buildTiles()
	s.buildTileGrid()
	s.computeHash(in)
	return s, nil
}

// centreOf is the centre of the buildings' bounding box.
func centreOf(bs []appliance.Building) appliance.LatLon {
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
		return appliance.LatLon{}
	}
	return appliance.LatLon{Lat: (minLat + maxLat) / 2, Lon: (minLon + maxLon) / 2}
}

func (s *Scene) addBuilding(b appliance.Building, mat int32) {
	var polys []poly2
	for _, fp := range b.Footprints {
		outer := s.ring(fp.Outer, true)
		if outer == nil {
			continue
		}
		p := poly2{rings: [][]vec2{outer}}
		for _, h := range fp.Holes {
			if r := s.ring(h, false); r != nil {
				p.rings = append(p.rings, r)
			}
		}
		polys = append(polys, p)
	}
	if len(polys) == 0 {
		return
	}
	base := s.groundZ
	if s.terrain != nil {
		base = math.Inf(1)
		for _, p := range polys {
			for _, v := range p.rings[0] {
				if z, _ := s.terrain.At(v.X, v.Y); z < base {
					base = z
				}
			}
		}
	}
	bi := int32(len(s.buildings))
	bd := building{id: b.ID, polys: polys, zb: base + b.MinHeightM, zt: base + b.HeightM, mat: mat,
		assumed: b.HeightSource == appliance.HeightDefault, surf0: int32(len(s.surfaces))}
	if bd.assumed {
		s.assumed++
	}
	bd.min = vec3{math.Inf(1), math.Inf(1), bd.zb}
	bd.max = vec3{math.Inf(-1), math.Inf(-1), bd.zt}
	for pi, p := range polys {
		for _, r := range p.rings {
			for i, a := range r {
				bd.min.X, bd.min.Y = min(bd.min.X, a.X), min(bd.min.Y, a.Y)
				bd.max.X, bd.max.Y = max(bd.max.X, a.X), max(bd.max.Y, a.Y)
				c := r[(i+1)%len(r)]
				d := c.sub(a)
				l := d.norm()
				m := vec3{d.Y / l, -d.X / l, 0} // outward: right of a→c
				s.surfaces = append(s.surfaces, surface{kind: kindWall, bld: bi, poly: int32(pi), n: m,
					d: m.X*a.X + m.Y*a.Y, a: a, b: c, zb: bd.zb, zt: bd.zt, mat: mat})
				// Roof edge along a→c: face 0 the roof (t0 = −m, n0 = +z),
				// face n the wall; exterior angle 1.5π.
				s.edges = append(s.edges, edge{p0: a.at(bd.zt), p1: c.at(bd.zt), e: vec3{d.X / l, d.Y / l, 0}, length: l,
					t0: m.scale(-1), n0: vec3{0, 0, 1}, nw: 1.5, mat: mat, bld: bi})
				// Vertical edge at c if the corner is convex (building
				// material on the left of both walls: a left turn).
				nx := r[(i+2)%len(r)]
				if d.cross(nx.sub(c)) > 0 {
					t0 := a.sub(c)
					t0 = t0.scale(1 / t0.norm())
					d2 := nx.sub(c)
					// exterior angle from face 0 (wall a→c) to face n (wall c→nx)
					phiN := math.Atan2(d2.dot(vec2{m.X, m.Y}), d2.dot(t0))
					if phiN < 0 {
						phiN += 2 * math.Pi
					}
					if nw := phiN / math.Pi; nw > 1.0001 && nw <= 2 {
						s.edges = append(s.edges, edge{p0: c.at(bd.zb), p1: c.at(bd.zt), e: vec3{0, 0, 1}, length: bd.zt - bd.zb,
							t0: t0.at(0), n0: m, nw: nw, mat: mat, bld: bi, vertical: true})
					}
				}
			}
		}
		s.surfaces = append(s.surfaces, surface{kind: kindRoof, bld: bi, poly: int32(pi), n: vec3{0, 0, 1}, d: bd.zt,
			zb: bd.zt, zt: bd.zt, mat: mat})
	}
	bd.surf1 = int32(len(s.surfaces))
	s.buildings = append(s.buildings, bd)
}

// ring converts a WGS84 ring to the frame, dropping repeated vertices and
// a closing repeat, and orients it (outer counter-clockwise, holes
// clockwise). It returns nil for a ring with fewer than three vertices or
// no area.
func (s *Scene) ring(ll []appliance.LatLon, outer bool) []vec2 {
	r := make([]vec2, 0, len(ll))
	for _, p := range ll {
		x, y := s.frame.ToLocal(p)
		v := vec2{x, y}
		if n := len(r); n > 0 && math.Abs(r[n-1].X-v.X) < 1e-6 && math.Abs(r[n-1].Y-v.Y) < 1e-6 {
			continue
		}
		r = append(r, v)
	}
	for len(r) > 1 && math.Abs(r[0].X-r[len(r)-1].X) < 1e-6 && math.Abs(r[0].Y-r[len(r)-1].Y) < 1e-6 {
		r = r[:len(r)-1]
	}
	if len(r) < 3 {
		return nil
	}
	a := signedArea(r)
	if math.Abs(a) < 1e-6 {
		return nil
	}
	if (a > 0) != outer {
		for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
			r[i], r[j] = r[j], r[i]
		}
	}
	return r
}

func signedArea(r []vec2) float64 {
	a := 0.0
	for i, p := range r {
		a += p.cross(r[(i+1)%len(r)])
	}
	return a / 2
}

// inPoly reports whether p lies inside the polygon (even-odd over all
// rings, so holes are outside).
func (p *poly2) contains(q vec2) bool {
	in := false
	for _, r := range p.rings {
		j := len(r) - 1
		for i := range r {
			a, b := r[i], r[j]
			if (a.Y > q.Y) != (b.Y > q.Y) && q.X < (b.X-a.X)*(q.Y-a.Y)/(b.Y-a.Y)+a.X {
				in = !in
			}
			j = i
		}
	}
	return in
}

// onEdgeM is how near a ring edge a point counts as on the polygon's
// boundary, metres: a façade, which is outside (insideOpen).
const onEdgeM = 1e-6

// insideOpen reports whether q lies in the polygon's interior: inside
// (contains) and not within onEdgeM of a ring edge. contains alone,
// the even-odd crossing rule, is half-open: it counted a point on a
// footprint's west or south façade as inside and one on its east or
// north façade as outside.
func (p *poly2) insideOpen(q vec2) bool {
	if !p.contains(q) {
		return false
	}
	for _, r := range p.rings {
		j := len(r) - 1
		for i := range r {
			if segDist(q, r[j], r[i]) <= onEdgeM {
				return false
			}
			j = i
		}
	}
	return true
}

// segDist is the distance from q to the segment a→b, metres.
func segDist(q, a, b vec2) float64 {
	d := b.sub(a)
	t := 0.0
	if l2 := d.dot(d); l2 > 0 {
		t = min(max(q.sub(a).dot(d)/l2, 0), 1)
	}
	return q.sub(vec2{a.X + t*d.X, a.Y + t*d.Y}).norm()
}

// segHitsPoly reports whether the 2D segment a→b meets the polygon's
// interior: an end inside (not on the boundary), or a proper crossing of
// a ring edge.
func (p *poly2) segHits(a, b vec2) bool {
	if p.insideOpen(a) || p.insideOpen(b) {
		return true
	}
	d := b.sub(a)
	for _, r := range p.rings {
		j := len(r) - 1
		for i := range r {
			if segCross(a, d, r[j], r[i]) {
				return true
			}
			j = i
		}
	}
	return false
}

// segCross reports whether segment a + t·d (t in [0,1]) crosses segment
// c→e (both parameters strictly inside (0,1) up to a tolerance).
func segCross(a, d, c, e vec2) bool {
	f := e.sub(c)
	den := d.cross(f)
	if den == 0 {
		return false
	}
	ca := c.sub(a)
	t := ca.cross(f) / den
	u := ca.cross(d) / den
	const eps = 1e-9
	return t > eps && t < 1-eps && u > eps && u < 1-eps
}

// Heightfield is terrain sampled on a regular grid in a scene's frame:
// Z[j*NX+i] is the ground height, metres above mean sea level, at
// (MinX + i·StepM, MinY + j·StepM); Void marks samples interpolated across
// a void of the source DEM (nil when none).
type Heightfield struct {
	Origin     appliance.LatLon
	MinX, MinY float64
	StepM      float64
	NX, NY     int
	Z          []float64
	Void       []bool
}

// SampleTerrain samples t over the box (local metres about origin) every
// stepM metres. The void marks come from t when it implements
// appliance.VoidMap.
func SampleTerrain(t appliance.Terrain, origin appliance.LatLon, minX, minY, maxX, maxY, stepM float64) (*Heightfield, error) {
	if !(stepM > 0) || !(maxX > minX) || !(maxY > minY) {
		return nil, fmt.Errorf("raytrace terrain: need a positive step and a non-empty box")
	}
	f := NewFrame(origin)
	nx := int(math.Ceil((maxX-minX)/stepM)) + 1
	ny := int(math.Ceil((maxY-minY)/stepM)) + 1
	if nx*ny > 16<<20 {
		return nil, fmt.Errorf("raytrace terrain: %d×%d samples is too many; use a larger step", nx, ny)
	}
	h := &Heightfield{Origin: origin, MinX: minX, MinY: minY, StepM: stepM, NX: nx, NY: ny, Z: make([]float64, nx*ny)}
	vm, _ := t.(appliance.VoidMap)
	for j := 0; j < ny; j++ {
		for i := 0; i < nx; i++ {
			p := f.ToLatLon(minX+float64(i)*stepM, minY+float64(j)*stepM)
			z, err := t.ElevationM(p)
			if err != nil {
				return nil, fmt.Errorf("raytrace terrain at %v: %w", p, err)
			}
			h.Z[j*nx+i] = z
			if vm != nil {
				if v, err := vm.VoidFilledAt(p); err == nil && v {
					if h.Void == nil {
						h.Void = make([]bool, nx*ny)
					}
					h.Void[j*nx+i] = true
				}
			}
		}
	}
	return h, nil
}

// At returns the bilinear ground height at (x, y), metres, and whether a
// void-filled sample took part. Outside the grid the nearest edge value is
// used.
func (h *Heightfield) At(x, y float64) (float64, bool) {
	fx := (x - h.MinX) / h.StepM
	fy := (y - h.MinY) / h.StepM
	fx = max(0, min(fx, float64(h.NX-1)))
	fy = max(0, min(fy, float64(h.NY-1)))
	i, j := int(fx), int(fy)
	if i >= h.NX-1 {
		i = h.NX - 2
	}
	if j >= h.NY-1 {
		j = h.NY - 2
	}
	if i < 0 {
		i = 0
	}
	if j < 0 {
		j = 0
	}
	u, v := fx-float64(i), fy-float64(j)
	if h.NX == 1 {
		u, i = 0, 0
	}
	if h.NY == 1 {
		v, j = 0, 0
	}
	at := func(ii, jj int) float64 {
		ii = min(ii, h.NX-1)
		jj = min(jj, h.NY-1)
		return h.Z[jj*h.NX+ii]
	}
	z := (1-u)*(1-v)*at(i, j) + u*(1-v)*at(i+1, j) + (1-u)*v*at(i, j+1) + u*v*at(i+1, j+1)
	void := false
	if h.Void != nil {
		for _, ij := range [4][2]int{{i, j}, {i + 1, j}, {i, j + 1}, {i + 1, j + 1}} {
			ii, jj := min(ij[0], h.NX-1), min(ij[1], h.NY-1)
			if h.Void[jj*h.NX+ii] {
				void = true
			}
		}
	}
	return z, void
}

// MeanM is the mean height of the samples, metres.
func (h *Heightfield) MeanM() float64 {
	s := 0.0
	for _, z := range h.Z {
		s += z
	}
	return s / float64(len(h.Z))
}

// groundAt is the ground height under (x, y).
func (s *Scene) groundAt(x, y float64) float64 {
	if s.terrain == nil {
		return s.groundZ
	}
	z, _ := s.terrain.At(x, y)
	return z
}

// Frame returns the scene's local frame.
func (s *Scene) Frame() Frame { return s.frame }

// Hash is the SHA-256 of everything the scene was built from (buildings,
// materials, ground, terrain): two scenes with equal hashes give equal
// answers. Workers use it to check they hold the scene a job names.
func (s *Scene) Hash() [32]byte { return s.hash }

// Stats describes the index.
type Stats struct {
	Buildings      int `json:"buildings"`
	Walls          int `json:"walls"`
	Roofs          int `json:"roofs"`
	Edges          int `json:"edges"`
	BVHNodes       int `json:"bvh_nodes"`
	AssumedHeights int `json:"assumed_heights"`
	// BoundsM is the buildings' box in the frame: min x, min y, max x,
	// max y, metres.
	BoundsM [4]float64 `json:"bounds_m"`
}

// Stats returns counts of the scene's parts.
func (s *Scene) Stats() Stats {
	st := Stats{Buildings: len(s.buildings), Edges: len(s.edges), BVHNodes: len(s.bvh), AssumedHeights: s.assumed, BoundsM: s.bounds}
	for _, f := range s.surfaces {
		switch f.kind {
		case kindWall:
			st.Walls++
		case kindRoof:
			st.Roofs++
		}
	}
	return st
}

func (s *Scene) computeHash(in SceneInput) {
	h := sha256.New()
	var buf [8]byte
	f := func(x float64) {
		binary.LittleEndian.PutUint64(buf[:], math.Float64bits(x))
		h.Write(buf[:])
	}
	f(s.frame.Origin.Lat)
	f(s.frame.Origin.Lon)
	f(s.groundZ)
	binary.LittleEndian.PutUint64(buf[:], uint64(len(s.mats)))
	h.Write(buf[:])
	for _, m := range s.mats {
		binary.LittleEndian.PutUint64(buf[:], uint64(len(m.Name)))
		h.Write(buf[:])
		h.Write([]byte(m.Name))
		for _, x := range []float64{m.A, m.B, m.C, m.D, m.MinGHz, m.MaxGHz, m.ThicknessM} {
			f(x)
		}
	}
	// Every count is written before what it counts, so that no two inputs
	// write the same bytes; everything that changes an answer (flags and
	// warnings included) is written: the worker's scene cache holds a
	// scene by this hash.
	n := func(v int) {
		binary.LittleEndian.PutUint64(buf[:], uint64(v))
		h.Write(buf[:])
	}
	n(len(s.buildings))
	for _, b := range s.buildings {
		n(len(b.id))
		h.Write([]byte(b.id))
		f(b.zb)
		f(b.zt)
		n(int(b.mat))
		if b.assumed {
			n(1)
		} else {
			n(0)
		}
		n(len(b.polys))
		for _, p := range b.polys {
			n(len(p.rings))
			for _, r := range p.rings {
				n(len(r))
				for _, v := range r {
					f(v.X)
					f(v.Y)
				}
			}
		}
	}
	if t := in.Terrain; t != nil {
		f(t.MinX)
		f(t.MinY)
		f(t.StepM)
		n(t.NX)
		n(t.NY)
		n(len(t.Z))
		for _, z := range t.Z {
			f(z)
		}
		n(len(t.Void))
		for i, v := range t.Void {
			if v {
				n(i)
			}
		}
	}
	if s.flatGround != "" { // the warning it raises (a scene without it hashes as before)
		h.Write([]byte("flat ground:"))
		n(len(s.flatGround))
		h.Write([]byte(s.flatGround))
	}
	copy(s.hash[:], h.Sum(nil))
}

// bvhNode is a node of the bounding-volume hierarchy over buildings: an
// inner node when count == 0 (children at left and left+1... stored as
// left and right), a leaf of order[first:first+count] otherwise.
type bvhNode struct {
	min, max    vec3
	left, right int32
	first       int32
	count       int32
}

const bvhLeafSize = 4

func (s *Scene) buildBVH() {
	s.bounds = [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	if len(s.buildings) == 0 {
		s.bounds = [4]float64{}
		return
	}
	s.order = make([]int32, len(s.buildings))
	for i := range s.order {
		s.order[i] = int32(i)
		b := &s.buildings[i]
		s.bounds = [4]float64{min(s.bounds[0], b.min.X), min(s.bounds[1], b.min.Y),
			max(s.bounds[2], b.max.X), max(s.bounds[3], b.max.Y)}
	}
	hs := make([]float64, len(s.buildings))
	for i := range s.buildings {
		hs[i] = s.buildings[i].zt - s.buildings[i].zb
	}
	slices.Sort(hs)
	s.clutterM = hs[len(hs)/2]
	for i := range s.buildings {
		if b := &s.buildings[i]; b.assumed && b.zt-b.zb == s.clutterM {
			s.clutterAssumed = true
			break
		}
	}
	s.bvh = make([]bvhNode, 0, 2*len(s.buildings)/bvhLeafSize+1)
	s.buildNode(0, int32(len(s.order)))
}

func (s *Scene) buildNode(first, end int32) int32 {
	idx := int32(len(s.bvh))
	s.bvh = append(s.bvh, bvhNode{})
	n := bvhNode{min: vec3{math.Inf(1), math.Inf(1), math.Inf(1)}, max: vec3{math.Inf(-1), math.Inf(-1), math.Inf(-1)}}
	for _, bi := range s.order[first:end] {
		b := &s.buildings[bi]
		n.min = vec3{min(n.min.X, b.min.X), min(n.min.Y, b.min.Y), min(n.min.Z, b.min.Z)}
		n.max = vec3{max(n.max.X, b.max.X), max(n.max.Y, b.max.Y), max(n.max.Z, b.max.Z)}
	}
	if end-first <= bvhLeafSize {
		n.first, n.count = first, end-first
		s.bvh[idx] = n
		return idx
	}
	ext := n.max.sub(n.min)
	axis := 0
	if ext.Y > ext.X {
		axis = 1
	}
	centre := func(bi int32) float64 {
		b := &s.buildings[bi]
		if axis == 0 {
			return b.min.X + b.max.X
		}
		return b.min.Y + b.max.Y
	}
	part := s.order[first:end]
	sort.Slice(part, func(i, j int) bool {
		ci, cj := centre(part[i]), centre(part[j])
		if ci != cj {
			return ci < cj
		}
		return part[i] < part[j]
	})
	mid := first + (end-first)/2
	n.left = s.buildNode(first, mid)
	n.right = s.buildNode(mid, end)
	s.bvh[idx] = n
	return idx
}

// segEps is how far from each end a visibility test starts and stops,
// metres, so that a segment ending on a wall, roof or edge does not hit it.
const segEps = 1e-3

// occluded reports whether the segment p → q passes through a building
// (its ends excepted, within segEps). It allocates nothing.
func (s *Scene) occluded(p, q vec3) bool {
	if len(s.bvh) == 0 {
		return false
	}
	d := q.sub(p)
	l := d.norm()
	if l <= 2*segEps {
		return false
	}
	t0, t1 := segEps/l, 1-segEps/l
	inv := vec3{1 / d.X, 1 / d.Y, 1 / d.Z}
	var stack [64]int32
	sp := 0
	stack[sp] = 0
	sp++
	for sp > 0 {
		sp--
		n := &s.bvh[stack[sp]]
		if !slab(p, inv, n.min, n.max, t0, t1) {
			continue
		}
		if n.count > 0 {
			for _, bi := range s.order[n.first : n.first+n.count] {
				if s.hitsBuilding(&s.buildings[bi], p, d, t0, t1) {
					return true
				}
			}
			continue
		}
		if sp+2 > len(stack) {
			return s.occludedNaive(p, q)
		}
		stack[sp] = n.left
		stack[sp+1] = n.right
		sp += 2
	}
	return false
}

// occludedNaive is occluded without the hierarchy: every building is
// tested (the baseline of the benchmarks).
func (s *Scene) occludedNaive(p, q vec3) bool {
	d := q.sub(p)
	l := d.norm()
	if l <= 2*segEps {
		return false
	}
	t0, t1 := segEps/l, 1-segEps/l
	for i := range s.buildings {
		if s.hitsBuilding(&s.buildings[i], p, d, t0, t1) {
			return true
		}
	}
	return false
}

// slab is the ray/box test for p + t·d, t in [t0, t1] (inv = 1/d per
// axis, ±Inf for a zero component).
func slab(p, inv, mn, mx vec3, t0, t1 float64) bool {
	if !slabAxis(p.X, inv.X, mn.X, mx.X, &t0, &t1) || !slabAxis(p.Y, inv.Y, mn.Y, mx.Y, &t0, &t1) {
		return false
	}
	return slabAxis(p.Z, inv.Z, mn.Z, mx.Z, &t0, &t1)
}

func slabAxis(o, iv, lo, hi float64, t0, t1 *float64) bool {
	if iv > 1e300 || iv < -1e300 { // parallel to the slab
		return o >= lo && o <= hi
	}
	ta, tb := (lo-o)*iv, (hi-o)*iv
	if ta > tb {
		ta, tb = tb, ta
	}
	if ta > *t0 {
		*t0 = ta
	}
	if tb < *t1 {
		*t1 = tb
	}
	return *t0 <= *t1
}

// hitsBuilding reports whether p + t·d, t in [t0, t1], enters the
// building's prism.
func (s *Scene) hitsBuilding(b *building, p, d vec3, t0, t1 float64) bool {
	// clip to the z range [zb, zt]
	if d.Z == 0 {
		if p.Z <= b.zb || p.Z >= b.zt {
			return false
		}
	} else {
		ta, tb := (b.zb-p.Z)/d.Z, (b.zt-p.Z)/d.Z
		if ta > tb {
			ta, tb = tb, ta
		}
		t0, t1 = max(t0, ta), min(t1, tb)
		if !(t0 < t1) {
			return false
		}
	}
	a := vec2{p.X + t0*d.X, p.Y + t0*d.Y}
	e := vec2{p.X + t1*d.X, p.Y + t1*d.Y}
	if max(a.X, e.X) < b.min.X || min(a.X, e.X) > b.max.X || max(a.Y, e.Y) < b.min.Y || min(a.Y, e.Y) > b.max.Y {
		return false
	}
	for i := range b.polys {
		if b.polys[i].segHits(a, e) {
			return true
		}
	}
	return false
}

// insideBuilding returns the index of the building whose prism holds p
// (the lowest, where buildings overlap), or -1. The roof's level and the
// façades are outside, as for the rays (hitsBuilding): an antenna given
// its building's own height stands on the roof, one on a façade line in
// front of it. It walks the hierarchy (it ran over every building for
// every receiver: 48 µs a pixel at 3600 buildings) and allocates nothing.
func (s *Scene) insideBuilding(p vec3) int {
	found := int32(-1)
	if len(s.bvh) == 0 {
		return -1
	}
	var stack [64]int32
	sp := 1
	for sp > 0 {
		sp--
		n := &s.bvh[stack[sp]]
		if p.X < n.min.X || p.X > n.max.X || p.Y < n.min.Y || p.Y > n.max.Y || p.Z < n.min.Z || p.Z > n.max.Z {
			continue
		}
		if n.count > 0 {
			for _, bi := range s.order[n.first : n.first+n.count] {
				if (found < 0 || bi < found) && s.insidePrism(&s.buildings[bi], p) {
					found = bi
				}
			}
			continue
		}
		if sp+2 > len(stack) {
			return s.insideBuildingNaive(p)
		}
		stack[sp], stack[sp+1] = n.left, n.right
		sp += 2
	}
	return int(found)
}

// insideBuildingNaive is insideBuilding over every building.
func (s *Scene) insideBuildingNaive(p vec3) int {
	for i := range s.buildings {
		if s.insidePrism(&s.buildings[i], p) {
			return i
		}
	}
	return -1
}

// insidePrism reports whether p is inside the building's prism: above
// its base, below its roof, in the interior of a footprint.
func (s *Scene) insidePrism(b *building, p vec3) bool {
	if p.Z < b.zb || p.Z >= b.zt || p.X < b.min.X || p.X > b.max.X || p.Y < b.min.Y || p.Y > b.max.Y {
		return false
	}
	for j := range b.polys {
		if b.polys[j].insideOpen(p.xy()) {
			return true
		}
	}
	return false
}

// segBuildings appends to buf, in increasing order, the buildings whose
// boxes the segment p + t·d, t in [t0, t1], meets (the candidates of an
// exact test), walking the hierarchy; it allocates only to grow buf.
func (s *Scene) segBuildings(buf []int32, p, d vec3, t0, t1 float64) []int32 {
	buf = buf[:0]
	if len(s.bvh) == 0 {
		return buf
	}
	inv := vec3{1 / d.X, 1 / d.Y, 1 / d.Z}
	var stack [64]int32
	sp := 1
	for sp > 0 {
		sp--
		n := &s.bvh[stack[sp]]
		if !slab(p, inv, n.min, n.max, t0, t1) {
			continue
		}
		if n.count > 0 {
			buf = append(buf, s.order[n.first:n.first+n.count]...)
			continue
		}
		if sp+2 > len(stack) {
			buf = buf[:0]
			for i := range s.buildings {
				buf = append(buf, int32(i))
			}
			return buf
		}
		stack[sp], stack[sp+1] = n.left, n.right
		sp += 2
	}
	slices.Sort(buf)
	return buf
}

// grid2 buckets items (edges, tiles) in square cells: the diffraction
// range query, the tiles of a wall's beam.
type grid2 struct {
	minX, minY, cell float64
	nx, ny           int
	start            []int32 // cell c holds items[start[c]:start[c+1]]
	items            []int32
}

// newGrid2 buckets n items in cells of side cellM (metres) over the
// scene's bounds: item i goes into every cell its box (box(i): x0, y0,
// x1, y1, metres) meets, each cell's items in index order.
func (s *Scene) newGrid2(cellM float64, n int, box func(i int) (x0, y0, x1, y1 float64)) grid2 {
	g := grid2{cell: cellM}
	if n == 0 {
		return g
	}
	g.minX, g.minY = s.bounds[0]-1, s.bounds[1]-1
	g.nx = int((s.bounds[2]+1-g.minX)/g.cell) + 1
	g.ny = int((s.bounds[3]+1-g.minY)/g.cell) + 1
	cells := func(i int, fn func(c int)) {
		x0, y0, x1, y1 := box(i)
		i0, i1 := g.clampX(x0), g.clampX(x1)
		j0, j1 := g.clampY(y0), g.clampY(y1)
		for j := j0; j <= j1; j++ {
			for i := i0; i <= i1; i++ {
				fn(j*g.nx + i)
			}
		}
	}
	counts := make([]int32, g.nx*g.ny+1)
	for i := 0; i < n; i++ {
		cells(i, func(c int) { counts[c+1]++ })
	}
	for c := 1; c < len(counts); c++ {
		counts[c] += counts[c-1]
	}
	g.start = append([]int32(nil), counts...)
	g.items = make([]int32, counts[len(counts)-1])
	fill := append([]int32(nil), counts[:len(counts)-1]...)
	for i := 0; i < n; i++ {
		cells(i, func(c int) {
			g.items[fill[c]] = int32(i)
			fill[c]++
		})
	}
	return g
}

const edgeCellM = 25.0

// buildEdgeGrid buckets the edges by their 2D extent (Scene.edgeGrid).
func (s *Scene) buildEdgeGrid() {
	s.edgeGrid = s.newGrid2(edgeCellM, len(s.edges), func(i int) (float64, float64, float64, float64) {
		e := &s.edges[i]
		return min(e.p0.X, e.p1.X), min(e.p0.Y, e.p1.Y), max(e.p0.X, e.p1.X), max(e.p0.Y, e.p1.Y)
	})
}

func (g *grid2) clampX(x float64) int { return max(0, min(g.nx-1, int((x-g.minX)/g.cell))) }
func (g *grid2) clampY(y float64) int { return max(0, min(g.ny-1, int((y-g.minY)/g.cell))) }

// Inside reports whether a point heightM above the ground at p lies inside
// a building.
func (s *Scene) Inside(p appliance.LatLon, heightM float64) bool {
	x, y := s.frame.ToLocal(p)
	return s.insideBuilding(vec3{x, y, s.groundAt(x, y) + heightM}) >= 0
}
