package raytrace

import (
	"context"
	"encoding/hex"
	"fmt"
	"time"

	"linkplan/appliance"
)

// LayerIndex builds the scenes of tenants' building layers, once per layer
// (the Cache), on the terrain packs where they cover the layer and on flat
// ground elsewhere. It implements the Indexer of appliance/buildings.
type LayerIndex struct {
	Cache *Cache
	// Terrain is the appliance's terrain; nil: flat ground.
	Terrain appliance.Terrain
	// TerrainStepM is the heightfield's spacing, metres (0: 30 m); the
	// margin around the layer is TerrainMarginM (0: 1000 m).
	TerrainStepM, TerrainMarginM float64
}

func layerKey(l *appliance.BuildingLayer) string {
	return l.TenantID + "\x00" + l.ID + "\x00" + l.SHA256 + "\x00" + l.Material + "\x00" + l.Ground
}

// Index returns the layer's index, building the scene from load's
// buildings unless cached (load is called only on a miss).
func (x *LayerIndex) Index(ctx context.Context, l *appliance.BuildingLayer, load func() ([]appliance.Building, error)) (appliance.BuildingIndex, error) {
	start := time.Now()
	ground := ""
	s, cached, err := x.Cache.Get(layerKey(l), func() (*Scene, error) {
		bs, err := load()
		if err != nil {
			return nil, err
		}
		s, g, err := x.Scene(l, bs)
		ground = g
		return s, err
	})
	if err != nil {
		return appliance.BuildingIndex{}, fmt.Errorf("index building layer: %w", err)
	}
	st := s.Stats()
	h := s.Hash()
	out := appliance.BuildingIndex{Buildings: st.Buildings, Walls: st.Walls, Roofs: st.Roofs, Edges: st.Edges, BVHNodes: st.BVHNodes,
		Cached: cached, SceneHash: hex.EncodeToString(h[:]), Ground: s.groundDescription()}
	if !cached {
		out.BuildMS = float64(time.Since(start).Microseconds()) / 1000
		_ = ground
	}
	return out, nil
}

// Scene memory per building and per decoded building, bytes, of
// EstimateBytes: measured on the 40 000 blocks of 30 m × 25 m of
// BenchmarkIssue24_GetCached (134 MiB, 3.4 KiB a building with the
// heightfield) and the random cities of this package's tests
// (TestSceneSizeBytes: 2000 buildings of 10–50 m sides, 8–38 m tall,
// 3.7 KiB), rounded up for taller buildings (4 bytes a wall tile).
const (
	sceneBytesPerBuilding   = 6 << 10
	decodedBytesPerBuilding = 2 << 10
)

// EstimateBytes estimates the peak memory of building l's scene on a
// miss, bytes, from its record alone: the scene (sceneBytesPerBuilding a
// building), the buildings decoded from the store and the terrain
// heightfield over the layer's bounds and margin (9 bytes a cell). The
// services size the scene build's heavy work with it.
func (x *LayerIndex) EstimateBytes(l *appliance.BuildingLayer) int64 {
	n := int64(l.Buildings) * (sceneBytesPerBuilding + decodedBytesPerBuilding)
	if x.Terrain != nil && l.Bounds.MaxLat >= l.Bounds.MinLat && l.Bounds.MaxLon >= l.Bounds.MinLon {
		margin, step := x.TerrainMarginM, x.TerrainStepM
		if margin == 0 {
			margin = 1000
		}
		if step == 0 {
			step = 30
		}
		f := NewFrame(appliance.LatLon{Lat: (l.Bounds.MinLat + l.Bounds.MaxLat) / 2, Lon: (l.Bounds.MinLon + l.Bounds.MaxLon) / 2})
		x0, y0 := f.ToLocal(appliance.LatLon{Lat: l.Bounds.MinLat, Lon: l.Bounds.MinLon})
		x1, y1 := f.ToLocal(appliance.LatLon{Lat: l.Bounds.MaxLat, Lon: l.Bounds.MaxLon})
		nx, ny := (x1-x0+2*margin)/step+1, (y1-y0+2*margin)/step+1
		if nx*ny < 1e9 {
			n += int64(nx*ny) * 9
		}
	}
	return n
}

// Built reports whether the layer's scene is built and cached (waiting
// for a build in progress); it builds nothing. The services admit a build
// before they start one (Built false), so that no cache entry is ever
// held by a build waiting for admission: a job holding a grant may wait
// for an entry, and the entry's builder must not wait for that grant.
func (x *LayerIndex) Built(l *appliance.BuildingLayer) bool {
	_, ok := x.Cache.Lookup(layerKey(l))
	return ok
}

// Forget drops the layer's scene.
func (x *LayerIndex) Forget(l *appliance.BuildingLayer) { x.Cache.Forget(layerKey(l)) }

// Cached returns the layer's scene from the cache, building it on a miss
// from the buildings load returns.
func (x *LayerIndex) Cached(l *appliance.BuildingLayer, load func() ([]appliance.Building, error)) (*Scene, error) {
	s, _, err := x.Cache.Get(layerKey(l), func() (*Scene, error) {
		bs, err := load()
		if err != nil {
			return nil, err
		}
		s, _, err := x.Scene(l, bs)
		return s, err
	})
	if err != nil {
		return nil, fmt.Errorf("index building layer: %w", err)
	}
	return s, nil
}

// SceneOf is Cached as the raytracing service needs it
// (appliance/raytracing.Scenes): the scene's hash, hex SHA-256, and its
// local frame.
func (x *LayerIndex) SceneOf(l *appliance.BuildingLayer, load func() ([]appliance.Building, error)) (string, appliance.LocalFrame, error) {
	s, err := x.Cached(l, load)
	if err != nil {
		return "", appliance.LocalFrame{}, err
	}
	h := s.Hash()
	return hex.EncodeToString(h[:]), s.Frame(), nil
}

// Scene builds the layer's scene (uncached), with the terrain when it
// covers the layer.
func (x *LayerIndex) Scene(l *appliance.BuildingLayer, bs []appliance.Building) (*Scene, string, error) {
	in, ground, err := x.Input(l, bs)
	if err != nil {
		return nil, "", err
	}
	s, err := NewScene(in)
	if err != nil {
		return nil, "", fmt.Errorf("%v: %w", err, appliance.ErrInvalid)
	}
	s.groundDoc = ground
	return s, ground, nil
}

// Input returns what the layer's scene is built from (NewScene(Input)
// is Scene): the buildings, the layer's materials and ground, the origin
// at the centre of the layer's bounds and, when the terrain packs cover
// the layer and its margin, the terrain heightfield; ground says which.
func (x *LayerIndex) Input(l *appliance.BuildingLayer, bs []appliance.Building) (SceneInput, string, error) {
	in := SceneInput{Buildings: bs, Material: l.Material, Ground: l.Ground}
	origin := appliance.LatLon{Lat: (l.Bounds.MinLat + l.Bounds.MaxLat) / 2, Lon: (l.Bounds.MinLon + l.Bounds.MaxLon) / 2}
	in.Origin = origin
	ground := "flat ground at 0 m: no terrain configured"
	if x.Terrain != nil {
		f := NewFrame(origin)
		margin, step := x.TerrainMarginM, x.TerrainStepM
		if margin == 0 {
			margin = 1000
		}
		if step == 0 {
			step = 30
		}
		x0, y0 := f.ToLocal(appliance.LatLon{Lat: l.Bounds.MinLat, Lon: l.Bounds.MinLon})
		x1, y1 := f.ToLocal(appliance.LatLon{Lat: l.Bounds.MaxLat, Lon: l.Bounds.MaxLon})
		hf, err := SampleTerrain(x.Terrain, origin, x0-margin, y0-margin, x1+margin, y1+margin, step)
		if err == nil {
			in.Terrain = hf
			ground = fmt.Sprintf("terrain packs, %g m heightfield", step)
		} else {
			ground = "flat ground at 0 m: the terrain packs do not cover the layer"
			in.FlatGround = fmt.Sprintf("the terrain packs do not cover the building layer and its %g m margin", margin)
		}
	}
	return in, ground, nil
}
