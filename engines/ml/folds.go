package ml

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sync"

	"linkplan/appliance"
)

// CVSeed is the seed of the cross-validation permutation (SPEC §2.6:
// "deterministic permutation with seed 42").
const CVSeed uint64 = 42

// DefaultFolds is the default k of k-fold cross-validation (SPEC §2.6).
const DefaultFolds = 5

// splitMix64 is Steele, Lea and Flood's SplitMix64 generator: state +=
// 0x9E3779B97F4A7C15, then the output is the state mixed by
// z = (z ^ z>>30)·0xBF58476D1CE4E5B9, z = (z ^ z>>27)·0x94D049BB133111EB,
// z ^ z>>31 (all mod 2⁶⁴).
type splitMix64 struct{ s uint64 }

func (r *splitMix64) next() uint64 {
	r.s += 0x9E3779B97F4A7C15
	z := r.s
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// Permutation returns a permutation of 0…n-1 that depends only on n and
// seed, so that it can be reproduced in any language:
//
//	state := seed
//	perm := [0, 1, …, n-1]
//	for i := n-1; i >= 1; i-- {
//	    j := splitmix64(&state) mod (i+1)   // see splitMix64
//	    swap perm[i], perm[j]
//	}
//
// (Fisher–Yates from the end; the modulo's bias is below n/2⁶⁴ and is part
// of the definition.) Permutation(10, 42) is 0, 9, 5, 8, 6, 4, 7, 2, 1, 3 (TestPermutation
// pins the whole sequence).
func Permutation(n int, seed uint64) []int {
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	r := splitMix64{s: seed}
	for i := n - 1; i >= 1; i-- {
		j := int(r.next() % uint64(i+1))
		perm[i], perm[j] = perm[j], perm[i]
	}
	return perm
}

// KFold assigns each of n rows to one of k folds: the rows are permuted by
// Permutation(n, seed) and the permuted sequence is cut into k contiguous
// parts, the first n mod k parts one row longer (scikit-learn's KFold
// sizes). It returns the fold (0…k-1) of every row.
func KFold(n, k int, seed uint64) ([]int, error) {
	if k < 2 || k > n {
		return nil, fmt.Errorf("k-fold: k = %d folds need 2 <= k <= %d rows: %w", k, n, appliance.ErrInvalid)
	}
	perm := Permutation(n, seed)
	fold := make([]int, n)
	pos := 0
	for f := 0; f < k; f++ {
		size := n / k
		if f < n%k {
			size++
		}
		for _, i := range perm[pos : pos+size] {
			fold[i] = f
		}
		pos += size
	}
	return fold, nil
}

// GroupKFold assigns rows to k folds so that all rows of one group (for
// the residual model, the H3 resolution-8 cell of the receiver) share a
// fold, which keeps spatially close rows out of each other's validation.
// The distinct groups are sorted ascending, permuted by
// Permutation(#groups, seed), stably sorted by row count, largest first
// (ties keep the permuted order), and each in turn goes to the fold with
// the fewest rows so far (ties: the lowest fold). It returns the fold of
// every row. There must be at least k distinct groups.
func GroupKFold[G cmp.Ordered](groups []G, k int, seed uint64) ([]int, error) {
	count := make(map[G]int)
	for _, g := range groups {
		count[g]++
	}
	if k < 2 || k > len(count) {
		return nil, fmt.Errorf("group k-fold: k = %d folds need 2 <= k <= %d distinct groups: %w", k, len(count), appliance.ErrInvalid)
	}
	keys := make([]G, 0, len(count))
	for g := range count {
		keys = append(keys, g)
	}
	slices.Sort(keys)
	perm := Permutation(len(keys), seed)
	order := make([]G, len(keys))
	for i, p := range perm {
		order[i] = keys[p]
	}
	slices.SortStableFunc(order, func(a, b G) int { return count[b] - count[a] })
	load := make([]int, k)
	foldOf := make(map[G]int, len(keys))
	for _, g := range order {
		f := 0
		for j := 1; j < k; j++ {
			if load[j] < load[f] {
				f = j
			}
		}
		foldOf[g] = f
		load[f] += count[g]
	}
	fold := make([]int, len(groups))
	for i, g := range groups {
		fold[i] = foldOf[g]
	}
	return fold, nil
}

// Predictor is a trained model: one prediction per feature vector.
type Predictor interface {
	Predict(x []float64) float64
}

// Trainer fits a model to rows X and targets y.
type Trainer func(X [][]float64, y []float64) (Predictor, error)

// CVResult is the outcome of CrossValidate.
type CVResult struct {
	// OOF is every row's out-of-fold prediction (from the model that did
	// not see its fold).
	OOF []float64
	// FoldRMSEDB is the RMSE of each fold's validation rows (target
	// units; dB for path loss or signal).
	FoldRMSEDB []float64
	// RMSEDB is the mean of FoldRMSEDB (SPEC §2.6 cv_rmse_db).
	RMSEDB float64
	// StdDB is the population standard deviation of FoldRMSEDB (SPEC
	// §2.6 cv_rmse_std_db).
	StdDB float64
	// OOFRMSEDB is the RMSE of all out-of-fold predictions pooled.
	OOFRMSEDB float64
}

// CrossValidate trains one model per fold on the other folds' rows (fold
// holds each row's fold, 0…k-1, as from KFold or GroupKFold) and predicts
// the held-out rows. Folds train concurrently on up to workers goroutines
// (0 or less: one); the result does not depend on workers, provided train
// is deterministic.
func CrossValidate(X [][]float64, y []float64, fold []int, train Trainer, workers int) (CVResult, error) {
	if len(X) != len(y) || len(fold) != len(y) {
		return CVResult{}, fmt.Errorf("cross-validate: %d rows, %d targets, %d fold labels: %w", len(X), len(y), len(fold), appliance.ErrInvalid)
	}
	k := 0
	for i, f := range fold {
		if f < 0 {
			return CVResult{}, fmt.Errorf("cross-validate: row %d has fold %d: %w", i, f, appliance.ErrInvalid)
		}
		k = max(k, f+1)
	}
	members := make([][]int, k)
	for i, f := range fold {
		members[f] = append(members[f], i)
	}
	for f, m := range members {
		if len(m) == 0 || len(m) == len(y) {
			return CVResult{}, fmt.Errorf("cross-validate: fold %d of %d holds %d of %d rows: %w", f, k, len(m), len(y), appliance.ErrInvalid)
		}
	}
	res := CVResult{OOF: make([]float64, len(y)), FoldRMSEDB: make([]float64, k)}
	errs := make([]error, k)
	run := func(f int) {
		var tx [][]float64
		var ty []float64
		for i := range y {
			if fold[i] != f {
				tx = append(tx, X[i])
				ty = append(ty, y[i])
			}
		}
		m, err := train(tx, ty)
		if err != nil {
			errs[f] = fmt.Errorf("cross-validate fold %d: %w", f, err)
			return
		}
		var se float64
		for _, i := range members[f] {
			p := m.Predict(X[i])
			res.OOF[i] = p
			d := p - y[i]
			se += d * d
		}
		res.FoldRMSEDB[f] = math.Sqrt(se / float64(len(members[f])))
	}
	workers = max(1, min(workers, k))
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Go(func() {
			for f := w; f < k; f += workers {
				run(f)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return CVResult{}, err
		}
	}
	var s, se float64
	for _, r := range res.FoldRMSEDB {
		s += r
	}
	res.RMSEDB = s / float64(k)
	var v float64
	for _, r := range res.FoldRMSEDB {
		v += (r - res.RMSEDB) * (r - res.RMSEDB)
	}
	res.StdDB = math.Sqrt(v / float64(k))
	for i := range y {
		d := res.OOF[i] - y[i]
		se += d * d
	}
	res.OOFRMSEDB = math.Sqrt(se / float64(len(y)))
	return res, nil
}
