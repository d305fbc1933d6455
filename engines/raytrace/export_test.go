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
