package worker

import (
	"context"
	"encoding/hex"
	"fmt"

	"linkplan/appliance"
	"linkplan/engines/raytrace"
)

// InProcess is the Executor that runs units in the calling process on a
// Backend, with the same scene cache by hash and the same hash check as
// the worker. It has no process boundary: a crash of a unit is a crash of
// the caller. Tests use it, and so can a tool without a worker.
type InProcess struct {
	Backend raytrace.Backend
	Scenes  *raytrace.Cache
}

// NewInProcess returns an in-process executor on the CPU backend with a
// cache of maxScenes scenes.
func NewInProcess(maxScenes int) *InProcess {
	return &InProcess{Backend: raytrace.CPU{}, Scenes: raytrace.NewCache(maxScenes)}
}

func (x *InProcess) scene(ctx context.Context, s Scene) (*raytrace.Scene, error) {
	if err := checkHash(s.Hash); err != nil {
		return nil, err
	}
	sc, _, err := x.Scenes.Get(s.Hash, func() (*raytrace.Scene, error) {
		if s.Input == nil {
			return nil, fmt.Errorf("scene %s: no input: %w", s.Hash, appliance.ErrInvalid)
		}
		in, err := s.Input(ctx)
		if err != nil {
			return nil, err
		}
		sc, err := raytrace.NewScene(*in)
		if err != nil {
			return nil, wrapInvalid(err)
		}
		h := sc.Hash()
		if got := hex.EncodeToString(h[:]); got != s.Hash {
			return nil, appliance.Invalid("scene.hash", "the scene input builds scene %s, not %s", got, s.Hash)
		}
		return sc, nil
	})
	return sc, err
}

// Point is Backend.Point on the named scene.
func (x *InProcess) Point(ctx context.Context, s Scene, r raytrace.PointRequest) (raytrace.Result, error) {
	sc, err := x.scene(ctx, s)
	if err != nil {
		return raytrace.Result{}, err
	}
	return x.Backend.Point(ctx, sc, r)
}

// Map is Backend.Map on the named scene.
func (x *InProcess) Map(ctx context.Context, s Scene, r raytrace.MapRequest) (raytrace.MapResult, error) {
	sc, err := x.scene(ctx, s)
	if err != nil {
		return raytrace.MapResult{}, err
	}
	return x.Backend.Map(ctx, sc, r)
}

var (
	_ Executor = (*InProcess)(nil)
	_ Executor = (*Client)(nil)
)
