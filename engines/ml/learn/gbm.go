package learn

import (
	"container/heap"
	"fmt"
	"math"
	"sync"

	"linkplan/appliance"
	"linkplan/engines/ml"
)

// TrainGBM fits a gradient-boosted tree ensemble to rows X (each of the
// same length) and targets y with squared loss. The result depends only on
// X, y and p (not on p.Workers nor GOMAXPROCS): bit-for-bit the same model
// on every run.
//
// Algorithm (scikit-learn's HistGradientBoostingRegressor): every feature
// is cut into at most p.MaxBins quantile bins (binThresholds); the model
// starts at the mean target; each round computes the gradients g = pred - y
// (hessians are 1) and grows one tree best-first from histograms of the
// gradient sums per bin. A split of a node with gradient sum G and n rows
// into (GL, nL) and (GR, nR) gains GL²/(nL+λ) + GR²/(nR+λ) - G²/(n+λ); the
// split with the largest positive gain, with at least MinSamplesLeaf rows
// on each side, is taken (ties: the lowest feature, then the lowest bin).
// A leaf's value is -LearningRate·G/(n+λ). The histogram of the larger
// child is its parent's minus its sibling's.
func TrainGBM(X [][]float64, y []float64, p ml.GBMParams) (*ml.GBM, error) {
	p, err := p.WithDefaults()
	if err != nil {
		return nil, err
	}
	nf, err := checkXY(X, y)
	if err != nil {
		return nil, fmt.Errorf("train gbm: %w", err)
	}
	rows := make([]int32, len(X))
	for i := range rows {
		rows[i] = int32(i)
	}
	var val []int32
	if p.EarlyStopping {
		perm := ml.Permutation(len(X), p.Seed)
		nv := int(math.Ceil(p.ValidationFraction * float64(len(X))))
		if nv < 1 || len(X)-nv < 2*p.MinSamplesLeaf {
			return nil, fmt.Errorf("train gbm: %d rows are too few for early stopping with validation_fraction %g: %w", len(X), p.ValidationFraction, appliance.ErrInvalid)
		}
		rows = rows[:0]
		for _, i := range perm[:len(X)-nv] {
			rows = append(rows, int32(i))
		}
		for _, i := range perm[len(X)-nv:] {
			val = append(val, int32(i))
		}
	}
	g := newGrower(X, y, rows, nf, p)
	m := &ml.GBM{NFeatures: nf, Params: p}
	// Baseline: the mean target of the training rows, summed in row order.
	var sum float64
	for _, i := range rows {
		sum += y[i]
	}
	m.Baseline = sum / float64(len(rows))
	pred := make([]float64, len(X))
	for _, i := range rows {
		pred[i] = m.Baseline
	}
	for _, i := range val {
		pred[i] = m.Baseline
	}
	best, bestIter := math.Inf(1), 0
	for it := 0; it < p.Iterations; it++ {
		for _, i := range rows {
			g.grad[i] = pred[i] - y[i]
		}
		t := g.grow()
		m.Trees = append(m.Trees, t)
		// Each training row lies in exactly one leaf: one addition each.
		for _, lf := range g.leaves {
			v := t.Nodes[lf.node].Value
			for _, i := range g.idx[lf.start:lf.end] {
				pred[i] += v
			}
		}
		if !p.EarlyStopping {
			continue
		}
		var mse float64
		for _, i := range val {
			pred[i] += t.Predict(X[i])
			d := pred[i] - y[i]
			mse += d * d
		}
		mse /= float64(len(val))
		if mse < best-p.Tol {
			best, bestIter = mse, it+1
		} else if it+1-bestIter >= p.NIterNoChange {
			break
		}
	}
	if p.EarlyStopping {
		m.Trees = m.Trees[:bestIter]
	}
	m.BestIteration = len(m.Trees)
	return m, nil
}

// checkXY returns the number of features of X after checking that X and y
// are non-empty, of equal length, rectangular and finite.
func checkXY(X [][]float64, y []float64) (int, error) {
	if len(X) == 0 {
		return 0, fmt.Errorf("no training rows: %w", appliance.ErrInvalid)
	}
	if len(X) != len(y) {
		return 0, fmt.Errorf("%d rows but %d targets: %w", len(X), len(y), appliance.ErrInvalid)
	}
	nf := len(X[0])
	if nf == 0 {
		return 0, fmt.Errorf("rows have no features: %w", appliance.ErrInvalid)
	}
	for i, r := range X {
		if len(r) != nf {
			return 0, fmt.Errorf("row %d has %d features, row 0 has %d: %w", i, len(r), nf, appliance.ErrInvalid)
		}
		for j, v := range r {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return 0, fmt.Errorf("row %d feature %d is %v: %w", i, j, v, appliance.ErrInvalid)
			}
		}
		if math.IsNaN(y[i]) || math.IsInf(y[i], 0) {
			return 0, fmt.Errorf("target of row %d is %v: %w", i, y[i], appliance.ErrInvalid)
		}
	}
	return nf, nil
}

// grower holds the binned training data and the buffers one tree needs.
type grower struct {
	p      ml.GBMParams
	nf     int
	n      int
	edges  [][]float64 // per feature, ascending bin edges
	nbins  []int       // per feature, len(edges)+1
	bins   []uint8     // column-major: bins[f*n+i]
	grad   []float64   // per row (all rows of X; only training rows used)
	idx    []int32     // training rows, partitioned by node
	rows   []int32     // training rows, in row order
	tmp    []int32     // partition scratch
	free   []*hist     // recycled histograms
	leaves []leafRange // leaves of the last tree grown
}

type leafRange struct {
	node       int32
	start, end int
}

// hist is the gradient sum and row count per (feature, bin), feature-major
// with ml.MaxBins slots per feature.
type hist struct {
	g []float64
	c []int32
}

func newGrower(X [][]float64, y []float64, rows []int32, nf int, p ml.GBMParams) *grower {
	n := len(X)
	g := &grower{p: p, nf: nf, n: n, rows: rows}
	g.edges = make([][]float64, nf)
	g.nbins = make([]int, nf)
	g.bins = make([]uint8, nf*n)
	col := make([]float64, len(rows))
	for f := 0; f < nf; f++ {
		for k, i := range rows {
			col[k] = X[i][f]
		}
		e := binThresholds(col, p.MaxBins)
		g.edges[f] = e
		g.nbins[f] = len(e) + 1
		b := g.bins[f*n : (f+1)*n]
		for _, i := range rows {
			b[i] = binOf(e, X[i][f])
		}
	}
	g.grad = make([]float64, n)
	g.idx = make([]int32, len(rows))
	g.tmp = make([]int32, len(rows))
	return g
}

func (g *grower) getHist() *hist {
	if k := len(g.free); k > 0 {
		h := g.free[k-1]
		g.free = g.free[:k-1]
		return h
	}
	return &hist{g: make([]float64, g.nf*ml.MaxBins), c: make([]int32, g.nf*ml.MaxBins)}
}

func (g *grower) putHist(h *hist) {
	if h != nil {
		g.free = append(g.free, h)
	}
}

// split is the best split found for a node.
type split struct {
	gain    float64
	feature int
	bin     int // rows with bin <= this go left
	gl      float64
	nl      int
}

// gnode is a node under construction.
type gnode struct {
	id         int32 // index in the tree's Nodes
	start, end int   // its rows: g.idx[start:end]
	sumG       float64
	depth      int
	h          *hist
	best       split
}

// nodeHeap orders splittable nodes by gain, largest first; equal gains by
// node id, lowest first.
type nodeHeap []*gnode

func (h nodeHeap) Len() int { return len(h) }
func (h nodeHeap) Less(i, j int) bool {
	if h[i].best.gain != h[j].best.gain {
		return h[i].best.gain > h[j].best.gain
	}
	return h[i].id < h[j].id
}
func (h nodeHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *nodeHeap) Push(x any)   { *h = append(*h, x.(*gnode)) }
func (h *nodeHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// grow grows one tree on the current gradients and records its leaves'
// row ranges in g.leaves.
func (g *grower) grow() ml.Tree {
	copy(g.idx, g.rows)
	g.leaves = g.leaves[:0]
	t := ml.Tree{Nodes: make([]ml.Node, 1, 2*g.p.MaxLeafNodes)}
	var sum float64
	for _, i := range g.rows {
		sum += g.grad[i]
	}
	root := &gnode{id: 0, start: 0, end: len(g.idx), sumG: sum}
	var pq nodeHeap
	var h *hist
	if g.canSplit(root) {
		h = g.getHist()
		g.buildHist(h, g.idx[root.start:root.end])
	}
	g.push(&t, root, h, &pq)
	nLeaves := 1
	for pq.Len() > 0 {
		if nLeaves >= g.p.MaxLeafNodes {
			for _, nd := range pq {
				g.finalize(&t, nd)
			}
			break
		}
		nd := heap.Pop(&pq).(*gnode)
		l, r := g.apply(&t, nd)
		nLeaves++
		// The smaller child's histogram is built; the larger one's is the
		// parent's minus the smaller one's when that was built.
		small, large := l, r
		if r.end-r.start < l.end-l.start {
			small, large = r, l
		}
		var hs, hl *hist
		if g.canSplit(small) {
			hs = g.getHist()
			g.buildHist(hs, g.idx[small.start:small.end])
		}
		if g.canSplit(large) {
			hl = g.getHist()
			if hs != nil {
				for k := range hl.g {
					hl.g[k] = nd.h.g[k] - hs.g[k]
					hl.c[k] = nd.h.c[k] - hs.c[k]
				}
			} else {
				g.buildHist(hl, g.idx[large.start:large.end])
			}
		}
		g.putHist(nd.h)
		nd.h = nil
		g.push(&t, small, hs, &pq)
		g.push(&t, large, hl, &pq)
	}
	return t
}

// canSplit reports whether nd's depth and row count allow a split.
func (g *grower) canSplit(nd *gnode) bool {
	if g.p.MaxDepth > 0 && nd.depth >= g.p.MaxDepth {
		return false
	}
	return nd.end-nd.start >= 2*g.p.MinSamplesLeaf
}

// push finds nd's best split from its histogram h and puts it on the heap
// when the split gains; otherwise (or when h is nil) nd becomes a leaf.
func (g *grower) push(t *ml.Tree, nd *gnode, h *hist, pq *nodeHeap) {
	if h == nil {
		g.finalize(t, nd)
		return
	}
	nd.h = h
	nd.best = g.bestSplit(h, nd.sumG, nd.end-nd.start)
	if !(nd.best.gain > 0) {
		g.finalize(t, nd)
		return
	}
	heap.Push(pq, nd)
}

// buildHist sums the gradients and counts of rows into h. Features are
// shared among the workers; each feature is summed by one goroutine in row
// order, so h does not depend on the number of workers.
func (g *grower) buildHist(h *hist, rows []int32) {
	one := func(f int) {
		hg := h.g[f*ml.MaxBins : f*ml.MaxBins+g.nbins[f]]
		hc := h.c[f*ml.MaxBins : f*ml.MaxBins+g.nbins[f]]
		clear(hg)
		clear(hc)
		b := g.bins[f*g.n : (f+1)*g.n]
		for _, i := range rows {
			k := b[i]
			hg[k] += g.grad[i]
			hc[k]++
		}
	}
	w := min(g.p.Workers, g.nf)
	if w <= 1 || len(rows)*g.nf < 1<<15 {
		for f := 0; f < g.nf; f++ {
			one(f)
		}
		return
	}
	var wg sync.WaitGroup
	for k := 0; k < w; k++ {
		wg.Go(func() {
			for f := k; f < g.nf; f += w {
				one(f)
			}
		})
	}
	wg.Wait()
}

// bestSplit scans every feature's bins left to right.
func (g *grower) bestSplit(h *hist, sumG float64, n int) split {
	l2 := g.p.L2
	minLeaf := g.p.MinSamplesLeaf
	parent := sumG * sumG / (float64(n) + l2)
	best := split{gain: math.Inf(-1), feature: -1}
	for f := 0; f < g.nf; f++ {
		hg := h.g[f*ml.MaxBins : f*ml.MaxBins+g.nbins[f]]
		hc := h.c[f*ml.MaxBins : f*ml.MaxBins+g.nbins[f]]
		var gl float64
		nl := 0
		for b := 0; b < len(hg)-1; b++ {
			gl += hg[b]
			nl += int(hc[b])
			if nl < minLeaf {
				continue
			}
			nr := n - nl
			if nr < minLeaf {
				break
			}
			gr := sumG - gl
			gain := gl*gl/(float64(nl)+l2) + gr*gr/(float64(nr)+l2) - parent
			if gain > best.gain {
				best = split{gain: gain, feature: f, bin: b, gl: gl, nl: nl}
			}
		}
	}
	return best
}

// finalize makes nd a leaf.
func (g *grower) finalize(t *ml.Tree, nd *gnode) {
	n := float64(nd.end - nd.start)
	t.Nodes[nd.id] = ml.Node{Feature: -1, Value: -g.p.LearningRate * nd.sumG / (n + g.p.L2)}
	g.leaves = append(g.leaves, leafRange{node: nd.id, start: nd.start, end: nd.end})
	if nd.h != nil {
		g.putHist(nd.h)
		nd.h = nil
	}
}

// apply splits nd: its rows are partitioned stably (left rows first, each
// side in its previous order) and two children are appended to t.
func (g *grower) apply(t *ml.Tree, nd *gnode) (*gnode, *gnode) {
	s := nd.best
	b := g.bins[s.feature*g.n : (s.feature+1)*g.n]
	rows := g.idx[nd.start:nd.end]
	nl := 0
	nr := 0
	tmp := g.tmp[:len(rows)]
	for _, i := range rows {
		if int(b[i]) <= s.bin {
			rows[nl] = i
			nl++
		} else {
			tmp[nr] = i
			nr++
		}
	}
	copy(rows[nl:], tmp[:nr])
	li := int32(len(t.Nodes))
	t.Nodes = append(t.Nodes, ml.Node{}, ml.Node{})
	t.Nodes[nd.id] = ml.Node{Feature: int32(s.feature), Left: li, Right: li + 1, Threshold: g.edges[s.feature][s.bin]}
	l := &gnode{id: li, start: nd.start, end: nd.start + nl, sumG: s.gl, depth: nd.depth + 1}
	r := &gnode{id: li + 1, start: nd.start + nl, end: nd.end, sumG: nd.sumG - s.gl, depth: nd.depth + 1}
	return l, r
}
