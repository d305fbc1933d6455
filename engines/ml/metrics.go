package ml

import (
	"fmt"
	"math"
	"slices"

	"linkplan/appliance"
)

// GroupRMSE is the RMSE of the rows of one group.
type GroupRMSE struct {
	Group  string  `json:"group"`
	N      int     `json:"n"`
	RMSEDB float64 `json:"rmse_db"`
}

// RMSEByGroup returns the RMSE of pred against y for each distinct
// non-empty group key, sorted by key: with out-of-fold predictions and
// keys such as morphology (open_or_flat, rural_rolling,
// rural_mountainous) or band (700MHz … 3500MHz) it gives SPEC §2.6's
// rmse_by_morphology and rmse_by_band. Rows with key "" are left out.
func RMSEByGroup(pred, y []float64, groups []string) ([]GroupRMSE, error) {
	if len(pred) != len(y) || len(groups) != len(y) {
		return nil, fmt.Errorf("rmse by group: %d predictions, %d targets, %d group keys: %w", len(pred), len(y), len(groups), appliance.ErrInvalid)
	}
	type acc struct {
		n  int
		se float64
	}
	by := make(map[string]*acc)
	for i, g := range groups {
		if g == "" {
			continue
		}
		a := by[g]
		if a == nil {
			a = &acc{}
			by[g] = a
		}
		d := pred[i] - y[i]
		a.n++
		a.se += d * d
	}
	out := make([]GroupRMSE, 0, len(by))
	for g, a := range by {
		out = append(out, GroupRMSE{Group: g, N: a.n, RMSEDB: math.Sqrt(a.se / float64(a.n))})
	}
	slices.SortFunc(out, func(a, b GroupRMSE) int {
		switch {
		case a.Group < b.Group:
			return -1
		case a.Group > b.Group:
			return 1
		}
		return 0
	})
	return out, nil
}
