package ml

import (
	"fmt"
	"math"
	"runtime"

	"linkplan/appliance"
)

// MaxBins is the largest number of bins a feature may be cut into: bin
// indices fit a byte.
const MaxBins = 255

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

// Predict returns the value of the leaf x falls in (already shrunk): the
// tree's contribution to a GBM's prediction.
func (t *Tree) Predict(x []float64) float64 { return predictTree(t, x) }

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
