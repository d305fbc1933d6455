package raytrace_test

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"linkplan/appliance"
	"linkplan/engines/raytrace"
)

// TestCacheBuildsOnce: concurrent requests for one layer build its index
// once; the least recently used scene goes first; a failed build is not
// kept.
func TestCacheBuildsOnce(t *testing.T) {
	t.Parallel()
	c := raytrace.NewCache(2)
	var builds atomic.Int32
	build := func() (*raytrace.Scene, error) {
		builds.Add(1)
		return raytrace.NewScene(raytrace.SceneInput{Buildings: randomCity(1, 10, 200), Origin: rio})
	}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); c.Get("a", build) }()
	}
	wg.Wait()
	if builds.Load() != 1 {
		t.Fatalf("%d builds for one key", builds.Load())
	}
	if _, cached, _ := c.Get("a", build); !cached {
		t.Fatal("second get not cached")
	}
	c.Get("b", build)
	c.Get("c", build) // evicts a
	if _, cached, _ := c.Get("a", build); cached || c.Len() != 2 {
		t.Fatalf("a should have been evicted (len %d)", c.Len())
	}
	if _, _, err := c.Get("bad", func() (*raytrace.Scene, error) { return nil, errors.New("boom") }); err == nil {
		t.Fatal("want the build error")
	}
	if _, cached, err := c.Get("bad", build); err != nil || cached {
		t.Fatalf("a failed build must not be kept: cached=%v err=%v", cached, err)
	}
	for _, m := range appliance.BuildingMaterials {
		if _, ok := raytrace.LookupMaterial(m); !ok {
			t.Errorf("appliance material %q unknown to the engine", m)
		}
	}
	for _, m := range appliance.GroundTypes {
		if _, ok := raytrace.LookupMaterial(m); !ok {
			t.Errorf("appliance ground %q unknown to the engine", m)
		}
	}
}
