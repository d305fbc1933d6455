package raytrace

import "context"

// Backend is the interface a raytrace worker calls: every method is a pure
// function of an immutable scene and a request (no I/O, no shared mutable
// state), deterministic whatever the hardware's parallelism. CPU is the
// implementation; a GPU backend would implement the same interface over
// the same Scene and must pass this package's reference tests (two-ray,
// UTD, reciprocity, equality with the naive baseline) before it is
// offered. No GPU backend exists.
type Backend interface {
	// Name identifies the backend in answers and logs ("cpu").
	Name() string
	Point(ctx context.Context, s *Scene, r PointRequest) (Result, error)
	Receivers(ctx context.Context, s *Scene, r ReceiversRequest) ([]Result, error)
	Map(ctx context.Context, s *Scene, r MapRequest) (MapResult, error)
}

// CPU is the CPU backend: the methods of Scene.
type CPU struct{}

var _ Backend = CPU{}

// Name returns "cpu".
func (CPU) Name() string { return "cpu" }

// Point is Scene.Point.
func (CPU) Point(ctx context.Context, s *Scene, r PointRequest) (Result, error) {
	return s.Point(ctx, r)
}

// Receivers is Scene.Receivers.
func (CPU) Receivers(ctx context.Context, s *Scene, r ReceiversRequest) ([]Result, error) {
	return s.Receivers(ctx, r)
}

// Map is Scene.Map.
func (CPU) Map(ctx context.Context, s *Scene, r MapRequest) (MapResult, error) { return s.Map(ctx, r) }
