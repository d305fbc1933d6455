package prediction

import (
	"fmt"
	"math"
	"sync"

	"linkplan/engines/ml"
)

// Signal classes of the live band (GET /coverage/effective-band), by the
// observed level.
const (
	ClassStrong = "strong" // observed >= -80 dBm
	ClassMedium = "medium" // -100 <= observed < -80 dBm
	ClassWeak   = "weak"   // observed < -100 dBm
)

// SignalClasses lists the classes in order.
var SignalClasses = []string{ClassStrong, ClassMedium, ClassWeak}

// Class boundaries, dBm.
const (
	StrongMinDBm = -80.0
	WeakBelowDBm = -100.0
)

// LiveWindow is how many recent residuals each signal class keeps.
const LiveWindow = 500

// ClassOf is the signal class of a level in dBm.
func ClassOf(dbm float64) string {
	switch {
	case dbm >= StrongMinDBm:
		return ClassStrong
	case dbm >= WeakBelowDBm:
		return ClassMedium
	}
	return ClassWeak
}

// residualBuckets are the upper bounds (le) of the residual histogram, dB.
var residualBuckets = []float64{-20, -15, -10, -6, -3, 0, 3, 6, 10, 15, 20}

// live keeps the last LiveWindow residuals (observed − predicted, dB) of
// each class and the residual histogram. Safe for concurrent use.
type live struct {
	mu   sync.Mutex
	ring map[string][]float64
	next map[string]int
	// histogram of every residual since start (never reset: a counter)
	counts []uint64 // per bucket, not cumulative; last is +Inf
	sum    float64
	n      uint64
	// qCache holds each class's live half-width since its last change
	// (absent: recompute), so that a prediction does not sort the window.
	qCache map[string]liveQ
	// drifted is set when the drift monitor fired for the current
	// residual model (cleared by reset).
	drifted bool
}

// Drift monitor thresholds.
const (
	// DriftMinResiduals is the live residuals a class needs before its
	// coverage is judged.
	DriftMinResiduals = 100
	// DriftTolerance is how far below the nominal coverage the measured
	// coverage of a class may fall before the monitor fires.
	DriftTolerance = 0.05
)

// drift checks class c against the artifact band art: when the class holds
// at least DriftMinResiduals residuals and the share inside art is below
// art.Coverage − DriftTolerance, it returns the reason, once per residual
// model ("" otherwise).
func (l *live) drift(c string, art ml.Band) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	res := l.ring[c]
	if l.drifted || len(res) < DriftMinResiduals {
		return ""
	}
	in := 0
	for _, r := range res {
		if math.Abs(r) <= art.QAbsDB {
			in++
		}
	}
	cov := float64(in) / float64(len(res))
	if cov >= art.Coverage-DriftTolerance {
		return ""
	}
	l.drifted = true
	return fmt.Sprintf("effective band: %.3f of the last %d %s-signal residuals lie inside the served %.0f %% band (q_abs_db %.2f), below %.2f",
		cov, len(res), c, 100*art.Coverage, art.QAbsDB, art.Coverage-DriftTolerance)
}

type liveQ struct {
	alpha float64
	q     float64
	ok    bool
}

func newLive() *live {
	return &live{ring: map[string][]float64{}, next: map[string]int{}, counts: make([]uint64, len(residualBuckets)+1), qCache: map[string]liveQ{}}
}

// add records one residual of class c.
func (l *live) add(c string, r float64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.ring[c]) < LiveWindow {
		l.ring[c] = append(l.ring[c], r)
	} else {
		l.ring[c][l.next[c]] = r
		l.next[c] = (l.next[c] + 1) % LiveWindow
	}
	i := 0
	for i < len(residualBuckets) && r > residualBuckets[i] {
		i++
	}
	l.counts[i]++
	l.sum += r
	l.n++
	delete(l.qCache, c)
}

// liveHalfWidth is the conformal half-width of class c's live residuals at
// alpha; ok false while too few are held for a finite quantile.
func (l *live) liveHalfWidth(c string, alpha float64) (float64, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if v, hit := l.qCache[c]; hit && v.alpha == alpha {
		return v.q, v.ok
	}
	b, err := ml.FitBand(l.ring[c], alpha)
	v := liveQ{alpha: alpha, q: b.QAbsDB, ok: err == nil}
	l.qCache[c] = v
	return v.q, v.ok
}

// reset forgets the windows (a new residual model makes them stale); the
// histogram keeps counting.
func (l *live) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ring, l.next, l.qCache, l.drifted = map[string][]float64{}, map[string]int{}, map[string]liveQ{}, false
}

// window returns a copy of class c's residuals.
func (l *live) window(c string) []float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]float64(nil), l.ring[c]...)
}

// histogram returns cumulative bucket counts (last = +Inf), sum and count.
func (l *live) histogram() ([]uint64, float64, uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	cum := make([]uint64, len(l.counts))
	var c uint64
	for i, v := range l.counts {
		c += v
		cum[i] = c
	}
	return cum, l.sum, l.n
}

// ClassBand is the applied band of one signal class.
type ClassBand struct {
	Class string `json:"class"`
	// LiveN is the number of live residuals held (at most LiveWindow).
	LiveN int `json:"live_n"`
	// LiveQAbsDB is the conformal half-width of the live residuals (null
	// while fewer than 19 are held: no finite quantile at alpha 0.1).
	LiveQAbsDB *float64 `json:"live_q_abs_db"`
	// ArtifactQAbsDB is the served model's marginal half-width.
	ArtifactQAbsDB float64 `json:"artifact_q_abs_db"`
	// AppliedQAbsDB = max(artifact, live): the half-width predictions of
	// this class are served with (regional bands are widened to it too).
	AppliedQAbsDB float64 `json:"applied_q_abs_db"`
	// Widened reports a live override (live > artifact).
	Widened bool `json:"widened"`
	// MeasuredCoverage is the share of live residuals inside the artifact
	// band (null with no live residual).
	MeasuredCoverage *float64 `json:"measured_coverage"`
}

// classBand computes the applied band of class c over the artifact band
// art (nil: no residual engine, every half-width 0).
func (l *live) classBand(c string, art *ml.Band) ClassBand {
	res := l.window(c)
	cb := ClassBand{Class: c, LiveN: len(res)}
	alpha := ml.DefaultAlpha
	if art != nil {
		cb.ArtifactQAbsDB, alpha = art.QAbsDB, art.Alpha
	}
	cb.AppliedQAbsDB = cb.ArtifactQAbsDB
	if len(res) > 0 {
		in := 0
		for _, r := range res {
			if math.Abs(r) <= cb.ArtifactQAbsDB {
				in++
			}
		}
		cov := float64(in) / float64(len(res))
		cb.MeasuredCoverage = &cov
	}
	if q, ok := l.liveHalfWidth(c, alpha); ok {
		cb.LiveQAbsDB = &q
		if q > cb.ArtifactQAbsDB {
			cb.AppliedQAbsDB, cb.Widened = q, true
		}
	}
	return cb
}
