package raytrace_test

import (
	"fmt"
	"runtime"
	"testing"

	"linkplan/engines/raytrace"
)

// TestSceneSizeBytes: the scene's size estimate is within 40 % of the heap
// a build keeps (the scene cache's byte budget relies on it).
func TestSceneSizeBytes(t *testing.T) {
	bs := randomCity(7, 2000, 2000)
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	s, err := raytrace.NewScene(raytrace.SceneInput{Buildings: bs, Origin: rio})
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&m1)
	kept := int64(m1.HeapAlloc) - int64(m0.HeapAlloc)
	est := s.SizeBytes()
	runtime.KeepAlive(s)
	t.Logf("2000 buildings: estimate %d bytes, heap kept by the build %d bytes (ratio %.2f)", est, kept, float64(est)/float64(kept))
	if r := float64(est) / float64(kept); r < 0.6 || r > 1.4 {
		t.Fatalf("estimate %d bytes against %d kept: ratio %.2f outside 0.6–1.4", est, kept, r)
	}
}

// TestIssue24_CacheByteBudget: a tenant cycling through 17 layers rebuilt
// every scene on every turn with the count-bounded cache of 16 scenes;
// bounded by bytes, the 17 small scenes stay built, and a budget below
// their sum drops the least recently used ones, never the one just built.
func TestIssue24_CacheByteBudget(t *testing.T) {
	t.Parallel()
	scenes := make([]*raytrace.Scene, 17)
	var total int64
	for i := range scenes {
		s, err := raytrace.NewScene(raytrace.SceneInput{Buildings: randomCity(uint64(i+1), 20, 300), Origin: rio})
		if err != nil {
			t.Fatal(err)
		}
		scenes[i] = s
		total += s.SizeBytes()
	}
	cycle := func(c *raytrace.Cache) (builds int) {
		for round := 0; round < 3; round++ {
			for i, s := range scenes {
				c.Get(fmt.Sprint(i), func() (*raytrace.Scene, error) { builds++; return s, nil })
			}
		}
		return builds
	}
	count := cycle(raytrace.NewCache(16))
	sized := raytrace.NewSizedCache(256 << 20)
	bytes := cycle(sized)
	t.Logf("17 layers cycled 3 times (%d bytes of scenes): %d builds with NewCache(16), %d with NewSizedCache(256 MiB)", total, count, bytes)
	if count != 51 || bytes != 17 {
		t.Fatalf("builds: count-bounded %d (want 51), byte-bounded %d (want 17)", count, bytes)
	}
	if sized.Bytes() != total || sized.Len() != 17 {
		t.Fatalf("cache holds %d bytes in %d scenes, want %d in 17", sized.Bytes(), sized.Len(), total)
	}
	small := raytrace.NewSizedCache(total / 2)
	cycle(small)
	if small.Bytes() > total/2 || small.Len() == 0 || small.Len() >= 17 {
		t.Fatalf("budget %d: holds %d bytes in %d scenes", total/2, small.Bytes(), small.Len())
	}
	if _, cached, _ := small.Get("16", nil); !cached {
		t.Fatal("the scene used last was dropped")
	}
	one := raytrace.NewSizedCache(1) // below any scene: the last one built stays
	one.Get("a", func() (*raytrace.Scene, error) { return scenes[0], nil })
	one.Get("b", func() (*raytrace.Scene, error) { return scenes[1], nil })
	if one.Len() != 1 || one.Bytes() != scenes[1].SizeBytes() {
		t.Fatalf("over-budget cache holds %d scenes, %d bytes", one.Len(), one.Bytes())
	}
	one.Forget("b")
	if one.Len() != 0 || one.Bytes() != 0 {
		t.Fatalf("after Forget: %d scenes, %d bytes", one.Len(), one.Bytes())
	}
}
