package worker_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"linkplan/appliance"
	"linkplan/engines/raytrace"
	"linkplan/engines/raytrace/worker"
)

// TestLayerExecutor: the raytracing service's executor names a layer's
// scene by the hash the layer index gives (SceneOf) and, over the worker's
// socket, answers as the index's own scene does, loading the layer from
// the service once (on the worker's first miss); without a loader a scene
// the executor does not hold is refused as invalid.
func TestLayerExecutor(t *testing.T) {
	in := grid(6)
	b := appliance.BBox{MinLat: 90, MinLon: 180, MaxLat: -90, MaxLon: -180}
	for _, bd := range in.Buildings {
		for _, p := range bd.Footprints[0].Outer {
			b.MinLat, b.MaxLat = min(b.MinLat, p.Lat), max(b.MaxLat, p.Lat)
			b.MinLon, b.MaxLon = min(b.MinLon, p.Lon), max(b.MaxLon, p.Lon)
		}
	}
	layer := &appliance.BuildingLayer{ID: "bl_1", TenantID: "t_1", SHA256: "x", Bounds: b}
	index := &raytrace.LayerIndex{Cache: raytrace.NewCache(2)}
	hash, frame, err := index.SceneOf(layer, func() ([]appliance.Building, error) { return in.Buildings, nil })
	if err != nil {
		t.Fatal(err)
	}
	sc, err := index.Cached(layer, nil)
	if err != nil {
		t.Fatal(err)
	}
	if h := sc.Hash(); fmt.Sprintf("%x", h[:]) != hash || sc.Frame() != frame {
		t.Fatalf("SceneOf gives %s %v, the cached scene %x %v", hash, frame, h, sc.Frame())
	}
	ctx := context.Background()
	want, err := sc.Point(ctx, pointReq())
	if err != nil {
		t.Fatal(err)
	}

	secret := []byte("0123456789abcdef0123456789abcdef")
	sock, _ := serve(t, secret)
	x := worker.LayerExecutor{X: worker.NewClient(sock, secret), Index: index}
	var loads atomic.Int64
	s := appliance.RaytraceScene{Hash: hash, Load: func(context.Context) (*appliance.BuildingLayer, []appliance.Building, error) {
		loads.Add(1)
		return layer, in.Buildings, nil
	}}
	for i := range 2 {
		got, err := x.Point(ctx, s, pointReq())
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", want) {
			t.Fatalf("call %d: the executor's answer differs:\n%+v\n%+v", i, got, want)
		}
		if got.EngineVersion != x.EngineVersion() {
			t.Errorf("EngineVersion() = %q, the answers carry %q", x.EngineVersion(), got.EngineVersion)
		}
	}
	if n := loads.Load(); n != 1 {
		t.Errorf("the layer was loaded %d times, want once", n)
	}

	_, err = worker.LayerExecutor{X: worker.NewInProcess(1), Index: index}.Point(ctx, appliance.RaytraceScene{Hash: hash}, pointReq())
	if !errors.Is(err, appliance.ErrInvalid) {
		t.Errorf("a scene without a loader that the executor lacks: %v, want appliance.ErrInvalid", err)
	}
}
