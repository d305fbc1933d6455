package ml_test

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"

	"linkplan/appliance"
	"linkplan/engines/ml"
	"linkplan/engines/ml/h3"
	"linkplan/engines/ml/learn"
)

// TestPermutation pins the seed-42 permutation: any change of the
// generator or the shuffle moves every cross-validation figure.
func TestPermutation(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		n    int
		seed uint64
		want []int
	}{
		{"empty", 0, 42, []int{}},
		{"one row", 1, 42, []int{0}},
		{"ten rows, seed 42", 10, 42, []int{0, 9, 5, 8, 6, 4, 7, 2, 1, 3}},
		{"ten rows, seed 43", 10, 43, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := ml.Permutation(tc.n, tc.seed)
			if tc.want != nil && !slices.Equal(got, tc.want) {
				t.Fatalf("Permutation(%d, %d) = %v, want %v", tc.n, tc.seed, got, tc.want)
			}
			s := slices.Clone(got)
			slices.Sort(s)
			for i, v := range s {
				if v != i {
					t.Fatalf("%v is not a permutation of 0…%d", got, tc.n-1)
				}
			}
		})
	}
	if a, b := ml.Permutation(10, 42), ml.Permutation(10, 43); slices.Equal(a, b) {
		t.Errorf("seeds 42 and 43 give the same permutation %v", a)
	}
}

// TestKFold checks fold sizes and that every row is in exactly one fold.
func TestKFold(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		n, k    int
		wantErr bool
	}{
		{"even", 100, 5, false},
		{"remainder goes to the first folds", 103, 5, false},
		{"k equals n", 7, 7, false},
		{"k above n", 4, 5, true},
		{"k of 1", 10, 1, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fold, err := ml.KFold(tc.n, tc.k, ml.CVSeed)
			if tc.wantErr {
				if !errors.Is(err, appliance.ErrInvalid) {
					t.Fatalf("error %v, want ErrInvalid", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			size := make([]int, tc.k)
			for _, f := range fold {
				size[f]++
			}
			for f, s := range size {
				want := tc.n / tc.k
				if f < tc.n%tc.k {
					want++
				}
				if s != want {
					t.Errorf("fold %d holds %d rows, want %d", f, s, want)
				}
			}
			// The folds are contiguous runs of the permutation.
			perm := ml.Permutation(tc.n, ml.CVSeed)
			for p := 1; p < tc.n; p++ {
				if fold[perm[p]] < fold[perm[p-1]] {
					t.Fatalf("fold of permuted position %d is %d after %d", p, fold[perm[p]], fold[perm[p-1]])
				}
			}
		})
	}
}

// TestGroupKFold checks that groups are never split, folds stay balanced
// and both group key types work.
func TestGroupKFold(t *testing.T) {
	t.Parallel()
	seed := seedFor(t, 11)
	strGroups := make([]string, 5000)
	u64Groups := make([]uint64, 5000)
	for i := range strGroups {
		// Uneven group sizes: group g holds about 1/(g+1) of the rows.
		g := int((seed + uint64(i)*2654435761) % 997)
		g = g * g % 211
		strGroups[i] = fmt.Sprintf("cell-%03d", g)
		u64Groups[i] = 0x88a8_0000_0000_0000 + uint64(g)
	}
	check := func(t *testing.T, fold []int, key func(int) string, k int) {
		t.Helper()
		at := make(map[string]int)
		size := make([]int, k)
		for i, f := range fold {
			if prev, ok := at[key(i)]; ok && prev != f {
				t.Fatalf("group %s in folds %d and %d", key(i), prev, f)
			}
			at[key(i)] = f
			size[f]++
		}
		lo, hi := slices.Min(size), slices.Max(size)
		if lo == 0 || float64(hi-lo) > 0.05*float64(len(fold)) {
			t.Errorf("fold sizes %v are not balanced", size)
		}
	}
	t.Run("string keys", func(t *testing.T) {
		fold, err := ml.GroupKFold(strGroups, 5, ml.CVSeed)
		if err != nil {
			t.Fatal(err)
		}
		check(t, fold, func(i int) string { return strGroups[i] }, 5)
		again, _ := ml.GroupKFold(strGroups, 5, ml.CVSeed)
		if !slices.Equal(fold, again) {
			t.Error("two runs differ")
		}
	})
	t.Run("uint64 keys", func(t *testing.T) {
		fold, err := ml.GroupKFold(u64Groups, 5, ml.CVSeed)
		if err != nil {
			t.Fatal(err)
		}
		check(t, fold, func(i int) string { return fmt.Sprint(u64Groups[i]) }, 5)
	})
	t.Run("H3 resolution-8 cells of drive-test points", func(t *testing.T) {
		// Points along a 6 km drive through São Paulo, 20 m apart: the
		// residual model's folds are grouped by their res-8 cell (~0.7 km²).
		var cells []h3.Cell
		for i := range 300 {
			lat := -23.55 + float64(i)*0.00018*math.Sin(float64(i)/40)
			lon := -46.63 + float64(i)*0.00018
			c, err := h3.LatLngToCell(lat, lon, 8)
			if err != nil {
				t.Fatal(err)
			}
			cells = append(cells, c)
		}
		fold, err := ml.GroupKFold(cells, 5, ml.CVSeed)
		if err != nil {
			t.Fatal(err)
		}
		at := make(map[h3.Cell]int)
		for i, c := range cells {
			if f, ok := at[c]; ok && f != fold[i] {
				t.Fatalf("cell %s in folds %d and %d", c, f, fold[i])
			}
			at[c] = fold[i]
		}
		if len(at) < 5 {
			t.Fatalf("only %d cells", len(at))
		}
		t.Logf("%d points in %d cells", len(cells), len(at))
	})
	t.Run("fewer groups than folds", func(t *testing.T) {
		_, err := ml.GroupKFold([]string{"a", "b", "a", "c"}, 4, ml.CVSeed)
		if !errors.Is(err, appliance.ErrInvalid) {
			t.Fatalf("error %v, want ErrInvalid", err)
		}
	})
}

// TestCrossValidate checks that the folds' models never see their own
// fold and that the result does not depend on the number of workers.
func TestCrossValidate(t *testing.T) {
	t.Parallel()
	X, y := synth(1500, 8, 2, 21)
	fold, err := ml.KFold(len(y), 5, ml.CVSeed)
	if err != nil {
		t.Fatal(err)
	}
	train := func(X [][]float64, y []float64) (ml.Predictor, error) {
		return learn.TrainGBM(X, y, ml.GBMParams{Iterations: 30})
	}
	one, err := ml.CrossValidate(X, y, fold, train, 1)
	if err != nil {
		t.Fatal(err)
	}
	many, err := ml.CrossValidate(X, y, fold, train, 5)
	if err != nil {
		t.Fatal(err)
	}
	for i := range one.OOF {
		if math.Float64bits(one.OOF[i]) != math.Float64bits(many.OOF[i]) {
			t.Fatalf("row %d: %v with 1 worker, %v with 5", i, one.OOF[i], many.OOF[i])
		}
	}
	if one.RMSEDB != many.RMSEDB || one.StdDB != many.StdDB {
		t.Errorf("summaries differ: %+v vs %+v", one.RMSEDB, many.RMSEDB)
	}
	// A model that memorises its training rows predicts the mean of the
	// others for a row it never saw: out-of-fold it must miss.
	memo := func(X [][]float64, y []float64) (ml.Predictor, error) {
		return lookup{rows: X, y: y}, nil
	}
	cv, err := ml.CrossValidate(X, y, fold, memo, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range cv.OOF {
		if !math.IsNaN(p) {
			t.Fatalf("row %d was in its own fold's training rows", i)
		}
	}
	if _, err := ml.CrossValidate(X, y, make([]int, len(y)), train, 1); !errors.Is(err, appliance.ErrInvalid) {
		t.Errorf("one fold holding every row: error %v, want ErrInvalid", err)
	}
}

// lookup predicts the target of an identical training row, NaN for an
// unseen one.
type lookup struct {
	rows [][]float64
	y    []float64
}

func (l lookup) Predict(x []float64) float64 {
	for i, r := range l.rows {
		if slices.Equal(r, x) {
			return l.y[i]
		}
	}
	return math.NaN()
}
