package ml

import (
	"container/heap"
	"fmt"
	"math"
	"runtime"
	"sync"

	"linkplan/appliance"
)

// GBMParams are the hyper-parameters of TrainGBM. A zero field takes the
// default named in its comment (the defaults are scikit-learn's
// HistGradientBoostingRegressor's, with early stopping off).
type GBMParams struct {
	// Iterations is the number of boosting rounds (trees); default 100.
	Iterations int `json:"iterations"`
	// LearningRate shrinks every leaf value; default 0.1.
	LearningRate float64 `json:"learning_rate"`
	// MaxLeafNodes caps the leaves of one tree (at least 2); default 31.
	// Trees grow best-first: the leaf with the largest split gain splits
	// next.
	MaxLeafNodes int `json:"max_leaf_nodes"`
	// MaxDepth caps the depth of a tree (edges from the root); 0 means no
	// cap other than MaxLeafNodes.
	MaxDepth int `json:"max_depth"`
	// MinSamplesLeaf is the fewest training rows a leaf may hold; default 20.
	MinSamplesLeaf int `json:"min_samples_leaf"`
	// L2 is the L2 regularisation of leaf values (added to a node's row
	// count in the gain and in the leaf value); default 0.
	L2 float64 `json:"l2_regularization"`
	// MaxBins is the number of quantile bins per feature, 2…255; default 255.
	MaxBins int `json:"max_bins"`

	// EarlyStopping holds out ValidationFraction of the rows (chosen by
	// the seed-Seed permutation of Permutation) and stops when the
	// validation mean squared error has not improved by more than Tol for
	// NIterNoChange rounds; the model keeps the trees up to its best round.
	// Off by default.
	EarlyStopping bool `json:"early_stopping"`
	// ValidationFraction is the share of rows held out; default 0.1.
	ValidationFraction float64 `json:"validation_fraction,omitempty"`
	// NIterNoChange is the patience in rounds; default 10.
	NIterNoChange int `json:"n_iter_no_change,omitempty"`
	// Tol is the smallest improvement of the validation MSE (target units
	// squared) that counts; default 1e-7.
	Tol float64 `json:"tol,omitempty"`
	// Seed picks the validation rows; default CVSeed (42).
	Seed uint64 `json:"seed,omitempty"`

	// Workers bounds the goroutines that build histograms (one feature per
	// goroutine at a time); 0 means runtime.GOMAXPROCS(0). The trained
	// model does not depend on it: each feature's histogram is summed in
	// row order by one goroutine, whatever their number.
	Workers int `json:"-"`
}

// WithDefaults returns p with every zero field set to its default, or an
// error naming the first field out of range.
func (p GBMParams) WithDefaults() (GBMParams, error) {
	if p.Iterations == 0 {
		p.Iterations = 100
	}
	if p.LearningRate == 0 {
		p.LearningRate = 0.1
	}
	if p.MaxLeafNodes == 0 {
		p.MaxLeafNodes = 31
	}
	if p.MinSamplesLeaf == 0 {
		p.MinSamplesLeaf = 20
	}
	if p.MaxBins == 0 {
		p.MaxBins = MaxBins
	}
	if p.ValidationFraction == 0 {
		p.ValidationFraction = 0.1
	}
	if p.NIterNoChange == 0 {
		p.NIterNoChange = 10
	}
	if p.Tol == 0 {
		p.Tol = 1e-7
	}
	if p.Seed == 0 {
		p.Seed = CVSeed
	}
	if p.Workers <= 0 {
		p.Workers = runtime.GOMAXPROCS(0)
	}
	bad := func(field, rule string) (GBMParams, error) {
		return p, fmt.Errorf("gbm params: %s %s: %w", field, rule, appliance.ErrInvalid)
	}
	switch {
	case p.Iterations < 0:
		return bad("iterations", "must be positive")
	case !(p.LearningRate > 0) || math.IsInf(p.LearningRate, 0):
		return bad("learning_rate", "must be a positive number")
	case p.MaxLeafNodes < 2:
		return bad("max_leaf_nodes", "must be at least 2")
	case p.MaxDepth < 0:
		return bad("max_depth", "must not be negative")
	case p.MinSamplesLeaf < 1:
		return bad("min_samples_leaf", "must be at least 1")
	case !(p.L2 >= 0) || math.IsInf(p.L2, 0):
		return bad("l2_regularization", "must be a non-negative number")
	case p.MaxBins < 2 || p.MaxBins > MaxBins:
		return bad("max_bins", "must be 2 to 255")
	case !(p.ValidationFraction > 0 && p.ValidationFraction < 1):
		return bad("validation_fraction", "must be between 0 and 1")
	case p.NIterNoChange < 1:
		return bad("n_iter_no_change", "must be at least 1")
	case !(p.Tol >= 0):
		return bad("tol", "must not be negative")
	}
	return p, nil
}

// GBM is a trained gradient-boosted regression model: Baseline plus the
// sum of its trees' leaf values. Its zero value is not usable; get one
// from TrainGBM or an Artifact.
type GBM struct {
	// NFeatures is the length of the feature vectors it takes.
	NFeatures int `json:"n_features"`
	// Baseline is the initial prediction: the mean training target.
	Baseline float64 `json:"baseline"`
	// Trees are added to Baseline in order.
	Trees []Tree `json:"trees"`
	// Params are the hyper-parameters it was trained with (defaults
	// filled in).
	Params GBMParams `json:"params"`
	// BestIteration is the number of rounds kept (len(Trees)).
	BestIteration int `json:"best_iteration"`
}

// Tree is one regression tree, its nodes in an array with the root first.
// A node is a leaf when Feature is -1; then Value is its (already shrunk)
// contribution. Otherwise a row goes to Left when x[Feature] <= Threshold
// (NaN goes right) and to Right otherwise. Children always come after
// their parent in Nodes.
type Tree struct {
	Nodes []Node `json:"nodes"`
}

// Node is one node of a Tree.
type Node struct {
	Feature   int32   `json:"f"`
	Left      int32   `json:"l,omitempty"`
	Right     int32   `json:"r,omitempty"`
	Threshold float64 `json:"t,omitempty"`
	Value     float64 `json:"v,omitempty"`
}

// Predict returns the model's prediction for one feature vector x (of
// length NFeatures; a shorter one panics). The sum runs over the trees in
// order, so it is bit-for-bit the value training computed for the same
// row.
func (m *GBM) Predict(x []float64) float64 {
	_ = x[m.NFeatures-1]
	s := m.Baseline
	t := 0
	// Four trees walked in lockstep: their node loads overlap instead of
	// waiting for one another. The leaf values are still added in tree
	// order, so the sum is the same bit for bit.
	for ; t+4 <= len(m.Trees); t += 4 {
		n0, n1, n2, n3 := m.Trees[t].Nodes, m.Trees[t+1].Nodes, m.Trees[t+2].Nodes, m.Trees[t+3].Nodes
		a, b, c, d := &n0[0], &n1[0], &n2[0], &n3[0]
		for a.Feature >= 0 || b.Feature >= 0 || c.Feature >= 0 || d.Feature >= 0 {
			a = step(n0, a, x)
			b = step(n1, b, x)
			c = step(n2, c, x)
			d = step(n3, d, x)
		}
		s += a.Value
		s += b.Value
		s += c.Value
		s += d.Value
	}
	for ; t < len(m.Trees); t++ {
		s += predictTree(&m.Trees[t], x)
	}
	return s
}

// step moves from node nd one level down towards x's leaf; a leaf stays.
func step(nodes []Node, nd *Node, x []float64) *Node {
	if nd.Feature < 0 {
		return nd
	}
	if x[nd.Feature] <= nd.Threshold {
		return &nodes[nd.Left]
	}
	return &nodes[nd.Right]
}

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
func TrainGBM(X [][]float64, y []float64, p GBMParams) (*GBM, error) {
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
		perm := Permutation(len(X), p.Seed)
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
	m := &GBM{NFeatures: nf, Params: p}
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
			pred[i] += predictTree(&t, X[i])
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

func predictTree(t *Tree, x []float64) float64 {
	i := int32(0)
	for {
		nd := &t.Nodes[i]
		if nd.Feature < 0 {
			return nd.Value
		}
		if x[nd.Feature] <= nd.Threshold {
			i = nd.Left
		} else {
			i = nd.Right
		}
	}
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
	p      GBMParams
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
// with MaxBins slots per feature.
type hist struct {
	g []float64
	c []int32
}

func newGrower(X [][]float64, y []float64, rows []int32, nf int, p GBMParams) *grower {
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
	return &hist{g: make([]float64, g.nf*MaxBins), c: make([]int32, g.nf*MaxBins)}
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
func (g *grower) grow() Tree {
	copy(g.idx, g.rows)
	g.leaves = g.leaves[:0]
	t := Tree{Nodes: make([]Node, 1, 2*g.p.MaxLeafNodes)}
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
func (g *grower) push(t *Tree, nd *gnode, h *hist, pq *nodeHeap) {
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
		hg := h.g[f*MaxBins : f*MaxBins+g.nbins[f]]
		hc := h.c[f*MaxBins : f*MaxBins+g.nbins[f]]
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
		hg := h.g[f*MaxBins : f*MaxBins+g.nbins[f]]
		hc := h.c[f*MaxBins : f*MaxBins+g.nbins[f]]
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
func (g *grower) finalize(t *Tree, nd *gnode) {
	n := float64(nd.end - nd.start)
	t.Nodes[nd.id] = Node{Feature: -1, Value: -g.p.LearningRate * nd.sumG / (n + g.p.L2)}
	g.leaves = append(g.leaves, leafRange{node: nd.id, start: nd.start, end: nd.end})
	if nd.h != nil {
		g.putHist(nd.h)
		nd.h = nil
	}
}

// apply splits nd: its rows are partitioned stably (left rows first, each
// side in its previous order) and two children are appended to t.
func (g *grower) apply(t *Tree, nd *gnode) (*gnode, *gnode) {
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
	t.Nodes = append(t.Nodes, Node{}, Node{})
	t.Nodes[nd.id] = Node{Feature: int32(s.feature), Left: li, Right: li + 1, Threshold: g.edges[s.feature][s.bin]}
	l := &gnode{id: li, start: nd.start, end: nd.start + nl, sumG: s.gl, depth: nd.depth + 1}
	r := &gnode{id: li + 1, start: nd.start + nl, end: nd.end, sumG: nd.sumG - s.gl, depth: nd.depth + 1}
	return l, r
}
