package ml_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"linkplan/engines/ml"
	"linkplan/engines/ml/learn"
)

// TestRidge checks the closed-form fit against what it must satisfy.
func TestRidge(t *testing.T) {
	t.Parallel()
	seed := seedFor(t, 3)
	r := rand.New(rand.NewPCG(seed, 1))
	linear := func(n int, coef []float64, icpt float64) ([][]float64, []float64) {
		X := make([][]float64, n)
		y := make([]float64, n)
		for i := range X {
			x := make([]float64, len(coef))
			y[i] = icpt
			for j := range x {
				x[j] = r.NormFloat64()*float64(j+1)*10 + float64(j)*100 // different scales
				y[i] += coef[j] * x[j]
			}
			X[i] = x
		}
		return X, y
	}
	coef := []float64{1.5, -0.25, 0.01, 3}
	X, y := linear(400, coef, -90)
	Xn, yn := linear(400, coef, -90)
	for i := range yn {
		yn[i] += 5 * r.NormFloat64()
	}
	cases := []struct {
		name   string
		X      [][]float64
		y      []float64
		lambda float64
		check  func(t *testing.T, m *ml.Ridge, X [][]float64, y []float64)
	}{
		{
			name: "lambda 0 on noiseless data recovers the coefficients",
			X:    X, y: y, lambda: 0,
			check: func(t *testing.T, m *ml.Ridge, X [][]float64, y []float64) {
				for j, c := range coef {
					if got := m.Coef[j] / m.Scale[j]; math.Abs(got-c) > 1e-9*math.Max(1, math.Abs(c)) {
						t.Errorf("coefficient %d = %v, want %v", j, got, c)
					}
				}
				for i, x := range X {
					if d := m.Predict(x) - y[i]; math.Abs(d) > 1e-8 {
						t.Fatalf("row %d off by %v", i, d)
					}
				}
			},
		},
		{
			name: "lambda 50 satisfies the normal equations Zᵀ(y-ȳ-Zβ) = λβ",
			X:    Xn, y: yn, lambda: 50,
			check: func(t *testing.T, m *ml.Ridge, X [][]float64, y []float64) {
				grad := make([]float64, len(coef))
				for i, x := range X {
					res := y[i] - m.Predict(x)
					for j := range grad {
						grad[j] += (x[j] - m.Mean[j]) / m.Scale[j] * res
					}
				}
				for j := range grad {
					if d := grad[j] - 50*m.Coef[j]; math.Abs(d) > 1e-6*math.Max(1, math.Abs(grad[j])) {
						t.Errorf("coordinate %d: Zᵀr = %v, λβ = %v", j, grad[j], 50*m.Coef[j])
					}
				}
			},
		},
		{
			name: "a constant feature gets coefficient 0",
			X: func() [][]float64 {
				c := make([][]float64, len(X))
				for i, x := range X {
					c[i] = append([]float64{7}, x...)
				}
				return c
			}(),
			y: y, lambda: 1,
			check: func(t *testing.T, m *ml.Ridge, X [][]float64, y []float64) {
				if m.Coef[0] != 0 || m.Scale[0] != 0 {
					t.Errorf("constant feature: coef %v scale %v", m.Coef[0], m.Scale[0])
				}
			},
		},
		{
			name: "larger lambda shrinks the coefficients",
			X:    Xn, y: yn, lambda: 1e6,
			check: func(t *testing.T, m *ml.Ridge, X [][]float64, y []float64) {
				small, _ := learn.TrainRidge(X, y, 1)
				var a, b float64
				for j := range m.Coef {
					a += m.Coef[j] * m.Coef[j]
					b += small.Coef[j] * small.Coef[j]
				}
				if !(a < b/100) {
					t.Errorf("|β|² %v at λ=1e6, %v at λ=1", a, b)
				}
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, err := learn.TrainRidge(tc.X, tc.y, tc.lambda)
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, m, tc.X, tc.y)
		})
	}
	t.Run("collinear features with lambda 0 are singular", func(t *testing.T) {
		c := make([][]float64, len(X))
		for i, x := range X {
			c[i] = []float64{x[0], 2 * x[0], x[1]}
		}
		if _, err := learn.TrainRidge(c, y, 0); !errors.Is(err, learn.ErrSingular) {
			t.Fatalf("error %v, want ErrSingular", err)
		}
		if _, err := learn.TrainRidge(c, y, 1); err != nil {
			t.Fatalf("lambda 1: %v", err)
		}
	})
	t.Run("negative lambda is invalid", func(t *testing.T) {
		if _, err := learn.TrainRidge(X, y, -1); err == nil {
			t.Fatal("no error")
		}
	})
}
