package worker

import (
	"context"

	"linkplan/appliance"
	"linkplan/engines/raytrace"
)

// LayerExecutor is the executor the appliance's raytracing service calls
// (appliance/raytracing.Executor), over X (Client or InProcess). The
// service names a scene by its building layer (appliance.RaytraceScene);
// when X does not hold the scene, LayerExecutor builds its input from the
// layer and its buildings with Index, the layer index that built the
// service's copy of the scene (raytrace.LayerIndex.Input), so the hashes
// agree. It also answers for the engine: its version and the warnings of
// a map's pixel flags.
type LayerExecutor struct {
	X     Executor
	Index *raytrace.LayerIndex
}

// scene is s as X names it.
func (e LayerExecutor) scene(s appliance.RaytraceScene) Scene {
	out := Scene{Hash: s.Hash}
	if s.Load != nil {
		out.Input = func(ctx context.Context) (*raytrace.SceneInput, error) {
			l, bs, err := s.Load(ctx)
			if err != nil {
				return nil, err
			}
			in, _, err := e.Index.Input(l, bs)
			if err != nil {
				return nil, err
			}
			return &in, nil
		}
	}
	return out
}

// Point is X.Point on the layer's scene.
func (e LayerExecutor) Point(ctx context.Context, s appliance.RaytraceScene, r appliance.RaytracePointRequest) (appliance.RaytraceResult, error) {
	return e.X.Point(ctx, e.scene(s), r)
}

// Map is X.Map on the layer's scene.
func (e LayerExecutor) Map(ctx context.Context, s appliance.RaytraceScene, r appliance.RaytraceMapRequest) (appliance.RaytraceMapResult, error) {
	return e.X.Map(ctx, e.scene(s), r)
}

// MapWarnings is raytrace.MapWarnings: the warnings of a map's pixel
// flags, for a map computed in bands.
func (LayerExecutor) MapWarnings(flags []uint8, assumed []string, clutter appliance.RaytraceClutter) []appliance.Warning {
	return raytrace.MapWarnings(flags, assumed, clutter)
}

// EngineVersion is raytrace.Version.
func (LayerExecutor) EngineVersion() string { return raytrace.Version }
