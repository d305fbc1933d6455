package raytrace

import (
	"context"

	"linkplan/appliance"
)

// TreeSize returns the number of reflection nodes per order for a
// transmitter (tests and benchmarks report it).
func (s *Scene) TreeSize(tx Antenna, opt Options, rxZ float64) []int {
	x, y := s.frame.ToLocal(tx.Pos)
	t, err := s.buildTree(context.Background(), vec3{x, y, s.groundAt(x, y) + tx.HeightM}, opt.MaxReflections, opt.GroundReflection, rxZ, rxZ, nil, false)
	if err != nil {
		return nil
	}
	out := make([]int, opt.MaxReflections+1)
	for _, n := range t.nodes {
		out[n.order]++
	}
	return out
}

// StrongestPaths is strongestPaths: Point applies it with MaxPointPaths,
// which no test scene reaches.
func StrongestPaths(paths []Path, n int) ([]Path, *appliance.Warning) {
	return strongestPaths(paths, n)
}

// TreeNodes is the number of nodes of the image tree a Receivers request
// of rx builds (pruned to rx when there are at most maxPrunedReceivers of
// them), and of the whole tree.
func (s *Scene) TreeNodes(tx Antenna, opt Options, rx []Antenna) (built, whole int) {
	x, y := s.frame.ToLocal(tx.Pos)
	t := vec3{x, y, s.groundAt(x, y) + tx.HeightM}
	var pts []vec2
	z0, z1 := 1e300, -1e300
	for _, a := range rx {
		x, y := s.frame.ToLocal(a.Pos)
		z := s.groundAt(x, y) + a.HeightM
		z0, z1 = min(z0, z), max(z1, z)
		pts = append(pts, vec2{x, y})
	}
	if len(pts) > maxPrunedReceivers {
		pts = nil
	}
	a, err := s.buildTree(context.Background(), t, opt.MaxReflections, opt.GroundReflection, z0, z1, pts, false)
	if err != nil {
		return -1, -1
	}
	b, err := s.buildTree(context.Background(), t, opt.MaxReflections, opt.GroundReflection, z0, z1, nil, false)
	if err != nil {
		return -1, -1
	}
	return len(a.nodes), len(b.nodes)
}
