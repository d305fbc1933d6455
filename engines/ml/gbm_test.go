package ml_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"runtime"
	"testing"

	"linkplan/appliance"
	"linkplan/engines/ml"
	"linkplan/engines/ml/learn"
)

// TestGBMDeterministicAcrossGOMAXPROCS trains the same model under
// GOMAXPROCS 1 and 4 (and with explicit worker counts) and requires
// identical trees and predictions, bit for bit.
func TestGBMDeterministicAcrossGOMAXPROCS(t *testing.T) {
	t.Parallel()
	seed := seedFor(t, 7)
	X, y := synth(6000, 12, 3, seed)
	train := func(procs, workers int) (*ml.GBM, []byte) {
		t.Helper()
		old := runtime.GOMAXPROCS(procs)
		defer runtime.GOMAXPROCS(old)
		m, err := learn.TrainGBM(X, y, ml.GBMParams{Iterations: 40, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return m, b
	}
	ref, refJSON := train(1, 0)
	cases := []struct {
		name           string
		procs, workers int
	}{
		{"GOMAXPROCS 4", 4, 0},
		{"GOMAXPROCS 4, 3 workers", 4, 3},
		{"GOMAXPROCS 1, 8 workers", 1, 8},
		{"GOMAXPROCS 2", 2, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, b := train(tc.procs, tc.workers)
			if !bytes.Equal(b, refJSON) {
				t.Fatalf("model differs from the GOMAXPROCS 1 model")
			}
			for i, x := range X {
				if a, b := ref.Predict(x), m.Predict(x); math.Float64bits(a) != math.Float64bits(b) {
					t.Fatalf("row %d: %v under GOMAXPROCS 1, %v here", i, a, b)
				}
			}
		})
	}
}

// TestGBMLearns checks behaviours that follow from the algorithm on
// inputs whose answer is known.
func TestGBMLearns(t *testing.T) {
	t.Parallel()
	step := func(n int) ([][]float64, []float64) {
		X := make([][]float64, n)
		y := make([]float64, n)
		for i := range X {
			x := float64(i%100) / 100 // 100 distinct values: one bin each
			X[i] = []float64{x, float64(i % 7)}
			if x > 0.5 {
				y[i] = 10
			}
		}
		return X, y
	}
	constant := func(n int) ([][]float64, []float64) {
		X, y := step(n)
		for i := range y {
			y[i] = -73.5
		}
		return X, y
	}
	cases := []struct {
		name  string
		data  func(int) ([][]float64, []float64)
		p     ml.GBMParams
		check func(t *testing.T, m *ml.GBM, X [][]float64, y []float64)
	}{
		{
			name: "one tree with learning rate 1 fits a step exactly",
			data: step,
			p:    ml.GBMParams{Iterations: 1, LearningRate: 1, MaxLeafNodes: 2, MinSamplesLeaf: 1},
			check: func(t *testing.T, m *ml.GBM, X [][]float64, y []float64) {
				for i, x := range X {
					if got := m.Predict(x); math.Abs(got-y[i]) > 1e-12 {
						t.Fatalf("row %d: %v, want %v", i, got, y[i])
					}
				}
				if root := m.Trees[0].Nodes[0]; root.Feature != 0 || root.Threshold != 0.505 {
					t.Errorf("root split %+v, want feature 0 at 0.505, the midpoint of 0.50 and 0.51", root)
				}
			},
		},
		{
			name: "a constant target gives single-leaf trees at the baseline",
			data: constant,
			p:    ml.GBMParams{Iterations: 5},
			check: func(t *testing.T, m *ml.GBM, X [][]float64, y []float64) {
				for _, tr := range m.Trees {
					if len(tr.Nodes) != 1 || tr.Nodes[0].Value != 0 {
						t.Fatalf("tree %+v, want one zero leaf", tr)
					}
				}
				if got := m.Predict(X[3]); got != -73.5 {
					t.Errorf("prediction %v, want -73.5", got)
				}
			},
		},
		{
			name: "fewer rows than two leaves need: the baseline alone",
			data: func(n int) ([][]float64, []float64) { X, y := synth(n, 8, 1, 9); return X[:39], y[:39] },
			p:    ml.GBMParams{Iterations: 3},
			check: func(t *testing.T, m *ml.GBM, X [][]float64, y []float64) {
				var mean float64
				for _, v := range y {
					mean += v
				}
				mean /= float64(len(y))
				for _, tr := range m.Trees {
					if len(tr.Nodes) != 1 {
						t.Fatalf("a tree of %d nodes from 39 rows with 20 per leaf", len(tr.Nodes))
					}
				}
				if got := m.Predict(X[0]); math.Abs(got-mean) > 1e-9 {
					t.Errorf("prediction %v, want the mean %v", got, mean)
				}
			},
		},
		{
			name: "max depth 1 gives stumps",
			data: func(n int) ([][]float64, []float64) { return synth(n, 8, 1, 3) },
			p:    ml.GBMParams{Iterations: 10, MaxDepth: 1},
			check: func(t *testing.T, m *ml.GBM, X [][]float64, y []float64) {
				for i, tr := range m.Trees {
					if len(tr.Nodes) != 3 {
						t.Fatalf("tree %d has %d nodes, want 3", i, len(tr.Nodes))
					}
				}
			},
		},
		{
			name: "max leaf nodes caps the leaves",
			data: func(n int) ([][]float64, []float64) { return synth(n, 8, 1, 4) },
			p:    ml.GBMParams{Iterations: 10, MaxLeafNodes: 5},
			check: func(t *testing.T, m *ml.GBM, X [][]float64, y []float64) {
				for i, tr := range m.Trees {
					if leaves := (len(tr.Nodes) + 1) / 2; leaves != 5 {
						t.Fatalf("tree %d has %d leaves, want 5", i, leaves)
					}
				}
			},
		},
		{
			name: "min samples per leaf holds in every leaf",
			data: func(n int) ([][]float64, []float64) { return synth(n, 8, 1, 5) },
			p:    ml.GBMParams{Iterations: 5, MinSamplesLeaf: 150, MaxLeafNodes: 64},
			check: func(t *testing.T, m *ml.GBM, X [][]float64, y []float64) {
				for ti, tr := range m.Trees {
					count := make(map[int32]int)
					for _, x := range X {
						count[leafOf(tr, x)]++
					}
					for leaf, c := range count {
						if c < 150 {
							t.Fatalf("tree %d leaf %d holds %d rows, want >= 150", ti, leaf, c)
						}
					}
				}
			},
		},
		{
			name: "early stopping stops an over-long run and keeps its best round",
			data: func(n int) ([][]float64, []float64) { return synth(n, 8, 6, 6) },
			p:    ml.GBMParams{Iterations: 2000, LearningRate: 0.5, EarlyStopping: true, NIterNoChange: 5},
			check: func(t *testing.T, m *ml.GBM, X [][]float64, y []float64) {
				if m.BestIteration >= 2000 || m.BestIteration != len(m.Trees) || m.BestIteration == 0 {
					t.Errorf("best iteration %d with %d trees", m.BestIteration, len(m.Trees))
				}
			},
		},
		{
			name: "early stopping is off by default",
			data: func(n int) ([][]float64, []float64) { return synth(n, 8, 6, 6) },
			p:    ml.GBMParams{Iterations: 30, LearningRate: 0.5},
			check: func(t *testing.T, m *ml.GBM, X [][]float64, y []float64) {
				if len(m.Trees) != 30 || m.Params.EarlyStopping {
					t.Errorf("%d trees, early stopping %v", len(m.Trees), m.Params.EarlyStopping)
				}
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			X, y := tc.data(2000)
			m, err := learn.TrainGBM(X, y, tc.p)
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, m, X, y)
		})
	}
}

func leafOf(tr ml.Tree, x []float64) int32 {
	i := int32(0)
	for tr.Nodes[i].Feature >= 0 {
		nd := tr.Nodes[i]
		if x[nd.Feature] <= nd.Threshold {
			i = nd.Left
		} else {
			i = nd.Right
		}
	}
	return i
}

// TestGBMRejects lists inputs and parameters TrainGBM refuses.
func TestGBMRejects(t *testing.T) {
	t.Parallel()
	X, y := synth(100, 6, 1, 1)
	nan := [][]float64{{1, math.NaN()}, {2, 3}}
	cases := []struct {
		name string
		X    [][]float64
		y    []float64
		p    ml.GBMParams
	}{
		{"no rows", nil, nil, ml.GBMParams{}},
		{"targets and rows differ", X, y[:50], ml.GBMParams{}},
		{"ragged rows", [][]float64{{1, 2}, {3}}, []float64{1, 2}, ml.GBMParams{}},
		{"NaN feature", nan, []float64{1, 2}, ml.GBMParams{}},
		{"infinite target", [][]float64{{1}, {2}}, []float64{1, math.Inf(1)}, ml.GBMParams{}},
		{"negative iterations", X, y, ml.GBMParams{Iterations: -1}},
		{"negative learning rate", X, y, ml.GBMParams{LearningRate: -0.1}},
		{"one leaf", X, y, ml.GBMParams{MaxLeafNodes: 1}},
		{"256 bins", X, y, ml.GBMParams{MaxBins: 256}},
		{"negative l2", X, y, ml.GBMParams{L2: -1}},
		{"validation fraction 1", X, y, ml.GBMParams{EarlyStopping: true, ValidationFraction: 1}},
		{"too few rows for early stopping", X[:30], y[:30], ml.GBMParams{EarlyStopping: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := learn.TrainGBM(tc.X, tc.y, tc.p)
			if !errors.Is(err, appliance.ErrInvalid) {
				t.Fatalf("error %v, want appliance.ErrInvalid", err)
			}
		})
	}
}
