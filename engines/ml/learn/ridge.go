package learn

import (
	"errors"
	"fmt"
	"math"

	"linkplan/appliance"
	"linkplan/engines/ml"
)

// ErrSingular means a linear system had no unique solution (ridge with
// Lambda 0 on collinear features).
var ErrSingular = errors.New("singular system")

// TrainRidge fits a ridge regression to rows X and targets y: each feature
// is standardised (z = (x - mean)/sd, population sd), the target centred,
// and β solves (ZᵀZ + λI)β = Zᵀ(y - ȳ) by a Cholesky factorisation; the
// intercept ȳ is not penalised. Sums run in row order, so the model is
// the same bit for bit on every run. lambda must be >= 0; with 0 collinear
// features give ErrSingular.
func TrainRidge(X [][]float64, y []float64, lambda float64) (*ml.Ridge, error) {
	if !(lambda >= 0) || math.IsInf(lambda, 0) {
		return nil, fmt.Errorf("train ridge: lambda %v must be a non-negative number: %w", lambda, appliance.ErrInvalid)
	}
	nf, err := checkXY(X, y)
	if err != nil {
		return nil, fmt.Errorf("train ridge: %w", err)
	}
	n := float64(len(X))
	m := &ml.Ridge{Lambda: lambda, Mean: make([]float64, nf), Scale: make([]float64, nf), Coef: make([]float64, nf)}
	for _, v := range y {
		m.YMean += v
	}
	m.YMean /= n
	for _, r := range X {
		for j, v := range r {
			m.Mean[j] += v
		}
	}
	for j := range m.Mean {
		m.Mean[j] /= n
	}
	for _, r := range X {
		for j, v := range r {
			d := v - m.Mean[j]
			m.Scale[j] += d * d
		}
	}
	// Active features: those that vary.
	var act []int
	for j := range m.Scale {
		m.Scale[j] = math.Sqrt(m.Scale[j] / n)
		if m.Scale[j] > 0 {
			act = append(act, j)
		}
	}
	if len(act) == 0 {
		return m, nil
	}
	p := len(act)
	a := make([]float64, p*p) // ZᵀZ + λI, row-major
	b := make([]float64, p)   // Zᵀ(y - ȳ)
	z := make([]float64, p)
	for i, r := range X {
		for k, j := range act {
			z[k] = (r[j] - m.Mean[j]) / m.Scale[j]
		}
		yc := y[i] - m.YMean
		for k := range z {
			b[k] += z[k] * yc
			row := a[k*p : k*p+p]
			for l := 0; l <= k; l++ {
				row[l] += z[k] * z[l]
			}
		}
	}
	for k := 0; k < p; k++ {
		a[k*p+k] += lambda
		for l := k + 1; l < p; l++ {
			a[k*p+l] = a[l*p+k]
		}
	}
	beta, err := solveCholesky(a, b, p)
	if err != nil {
		return nil, fmt.Errorf("train ridge with lambda %v: %w", lambda, err)
	}
	for k, j := range act {
		m.Coef[j] = beta[k]
	}
	return m, nil
}

// solveCholesky solves a·x = b for a symmetric positive definite p×p
// matrix a (row-major), factorising a = LLᵀ in place.
func solveCholesky(a, b []float64, p int) ([]float64, error) {
	// Relative pivot floor: a pivot this small next to the diagonal's
	// scale means the matrix is singular to working precision.
	var scale float64
	for k := 0; k < p; k++ {
		scale = max(scale, math.Abs(a[k*p+k]))
	}
	for j := 0; j < p; j++ {
		d := a[j*p+j]
		for k := 0; k < j; k++ {
			d -= a[j*p+k] * a[j*p+k]
		}
		if !(d > 1e-12*scale) {
			return nil, fmt.Errorf("cholesky pivot %d is %g: %w", j, d, ErrSingular)
		}
		d = math.Sqrt(d)
		a[j*p+j] = d
		for i := j + 1; i < p; i++ {
			s := a[i*p+j]
			for k := 0; k < j; k++ {
				s -= a[i*p+k] * a[j*p+k]
			}
			a[i*p+j] = s / d
		}
	}
	x := make([]float64, p)
	for i := 0; i < p; i++ { // L·u = b
		s := b[i]
		for k := 0; k < i; k++ {
			s -= a[i*p+k] * x[k]
		}
		x[i] = s / a[i*p+i]
	}
	for i := p - 1; i >= 0; i-- { // Lᵀ·x = u
		s := x[i]
		for k := i + 1; k < p; k++ {
			s -= a[k*p+i] * x[k]
		}
		x[i] = s / a[i*p+i]
	}
	return x, nil
}
