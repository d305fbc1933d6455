package coverage

import (
	"context"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"testing"
	"time"
)

// heapObjectsBytes is the heap held by objects, live or not yet swept.
func heapObjectsBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// peakHeap runs fn and returns the largest heap of objects above the
// heap before it, sampled every 200 µs with the collector at GOGC=10 (so
// that garbage adds at most about a tenth).
func peakHeap(fn func()) uint64 {
	old := debug.SetGCPercent(10)
	defer debug.SetGCPercent(old)
	runtime.GC()
	base := heapObjectsBytes()
	var (
		peak uint64
		wg   sync.WaitGroup
	)
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(200 * time.Microsecond)
		defer t.Stop()
		for {
			if h := heapObjectsBytes(); h > base {
				peak = max(peak, h-base)
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	fn()
	close(stop)
	wg.Wait()
	return peak
}

// BenchmarkEstimateMemBytes checks EstimateMemBytes against the measured
// peak heap of real computations (the admission budget relies on it being
// an upper bound): it fails when a peak exceeds the estimate and reports
// both, MiB.
func BenchmarkEstimateMemBytes(b *testing.B) {
	svc, _, _ := newService(b)
	const workers = 2
	single := sumare(50000)
	single.ResolutionM = 50
	a, c := tijuca(), tijuca()
	a.RadiusM, c.RadiusM = 20000, 20000
	c.Tx.Lat += 0.1
	for _, bc := range []struct {
		name string
		reqs []Request
		best bool
	}{
		{"itm-50km-50m", []Request{single}, false},
		{"best-server-2x20km-90m", []Request{a, c}, true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			est := EstimateMemBytes(bc.reqs, bc.best, workers)
			var peak uint64
			for b.Loop() {
				peak = max(peak, peakHeap(func() {
					var err error
					if bc.best {
						var r *BestResult
						r, err = svc.ComputeBest(context.Background(), bc.reqs, Options{Workers: workers})
						runtime.KeepAlive(r)
					} else {
						var r *Result
						r, err = svc.Compute(context.Background(), bc.reqs[0], Options{Workers: workers})
						runtime.KeepAlive(r)
					}
					if err != nil {
						b.Fatal(err)
					}
				}))
			}
			b.ReportMetric(float64(est)/(1<<20), "est-MiB")
			b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
			if peak > uint64(est) {
				b.Errorf("peak heap %d MiB above the estimate %d MiB", peak>>20, est>>20)
			}
		})
	}
}
