package raytrace

import "unsafe"

// SizeBytes estimates the scene's memory, bytes: its arrays (buildings and
// their rings, walls and roofs, diffracting edges, wall tiles, the BVH,
// the edge and tile grids, materials) and the terrain heightfield, each by
// its length and element size. Strings, slice headers and the allocator's
// rounding are left out; TestSceneSizeBytes checks the estimate against
// the heap a build keeps. The scene cache of the appliance is bounded by
// it (NewSizedCache).
func (s *Scene) SizeBytes() int64 {
	n := int64(unsafe.Sizeof(*s))
	n += int64(len(s.buildings)) * int64(unsafe.Sizeof(building{}))
	for i := range s.buildings {
		b := &s.buildings[i]
		n += int64(len(b.id)) + int64(len(b.polys))*int64(unsafe.Sizeof(poly2{}))
		for _, p := range b.polys {
			for _, r := range p.rings {
				n += int64(unsafe.Sizeof(r)) + int64(len(r))*int64(unsafe.Sizeof(vec2{}))
			}
		}
	}
	n += int64(len(s.surfaces)) * int64(unsafe.Sizeof(surface{}))
	n += int64(len(s.edges)) * int64(unsafe.Sizeof(edge{}))
	n += int64(len(s.tileSurf)) * 4
	n += int64(len(s.wallTiles)) * int64(unsafe.Sizeof(wallTiles{}))
	n += int64(len(s.mats)) * int64(unsafe.Sizeof(Material{}))
	n += int64(len(s.bvh)) * int64(unsafe.Sizeof(bvhNode{}))
	n += int64(len(s.order)) * 4
	for _, g := range []*grid2{&s.edgeGrid, &s.tileGrid} {
		n += int64(len(g.start)+len(g.items)) * 4
	}
	if t := s.terrain; t != nil {
		n += int64(unsafe.Sizeof(*t)) + int64(len(t.Z))*8 + int64(len(t.Void))
	}
	return n
}
