package raytrace_test

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

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

// TestIssue24_CacheLookup: Lookup builds nothing and adds nothing on a
// miss (a full cache keeps its scenes), waits for a build in progress and
// returns its scene; a Get that waited for a failed build builds with its
// own builder. The concurrent orders are fixed with testing/synctest.
func TestIssue24_CacheLookup(t *testing.T) {
	t.Parallel()
	sc, err := raytrace.NewScene(raytrace.SceneInput{Buildings: randomCity(1, 10, 200), Origin: rio})
	if err != nil {
		t.Fatal(err)
	}
	ok := func() (*raytrace.Scene, error) { return sc, nil }
	t.Run("a miss adds nothing", func(t *testing.T) {
		c := raytrace.NewCache(1)
		c.Get("a", ok)
		if got, hit := c.Lookup("b"); hit || got != nil {
			t.Fatal("a lookup of an absent scene hit")
		}
		if got, hit := c.Lookup("a"); !hit || got != sc || c.Len() != 1 {
			t.Fatalf("the lookup of b evicted a (hit %v, len %d)", hit, c.Len())
		}
	})
	t.Run("lookup waits for a build", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c := raytrace.NewCache(2)
			release := make(chan struct{})
			go c.Get("k", func() (*raytrace.Scene, error) { <-release; return sc, nil })
			synctest.Wait() // the build runs
			var got *raytrace.Scene
			var hit bool
			done := make(chan struct{})
			go func() { got, hit = c.Lookup("k"); close(done) }()
			synctest.Wait() // the lookup waits for it
			close(release)
			<-done
			if !hit || got != sc {
				t.Fatalf("lookup during the build: hit %v", hit)
			}
		})
	})
	t.Run("a get that waited for a failed build builds", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c := raytrace.NewCache(2)
			release := make(chan struct{})
			first := make(chan error, 1)
			go func() {
				_, _, err := c.Get("k", func() (*raytrace.Scene, error) { <-release; return nil, errors.New("scene unknown") })
				first <- err
			}()
			synctest.Wait()
			type answer struct {
				sc     *raytrace.Scene
				cached bool
				err    error
			}
			second := make(chan answer, 1)
			go func() { s, cached, err := c.Get("k", ok); second <- answer{s, cached, err} }()
			synctest.Wait() // the second waits for the first's build
			close(release)
			a, firstErr := <-second, <-first
			if a.err != nil || a.sc != sc || a.cached || firstErr == nil {
				t.Fatalf("second get %+v, first %v: the second must build with its own builder", a, firstErr)
			}
			if got, hit := c.Lookup("k"); !hit || got != sc {
				t.Fatal("the second build was not kept")
			}
		})
	})
	t.Run("a panicking build frees its waiters", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c := raytrace.NewCache(2)
			release := make(chan struct{})
			go func() {
				defer func() { _ = recover() }()
				c.Get("k", func() (*raytrace.Scene, error) { <-release; panic("boom") })
			}()
			synctest.Wait()
			hit := true
			done := make(chan struct{})
			go func() { _, hit = c.Lookup("k"); close(done) }()
			synctest.Wait()
			close(release)
			<-done
			if hit || c.Len() != 0 {
				t.Fatalf("after a panicked build: hit %v, len %d", hit, c.Len())
			}
		})
	})
}
