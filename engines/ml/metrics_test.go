package ml_test

import (
	"math"
	"slices"
	"testing"

	"linkplan/engines/ml"
)

func TestRMSEByGroup(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		pred, y []float64
		groups  []string
		want    []ml.GroupRMSE
		wantErr bool
	}{
		{
			name:   "two bands, sorted by key",
			pred:   []float64{1, 2, 3, 4},
			y:      []float64{1, 0, 0, 4},
			groups: []string{"700MHz", "3500MHz", "3500MHz", "700MHz"},
			want:   []ml.GroupRMSE{{Group: "3500MHz", N: 2, RMSEDB: math.Sqrt((4 + 9) / 2.0)}, {Group: "700MHz", N: 2, RMSEDB: 0}},
		},
		{
			name:   "rows without a key are left out",
			pred:   []float64{1, 5},
			y:      []float64{0, 0},
			groups: []string{"open_or_flat", ""},
			want:   []ml.GroupRMSE{{Group: "open_or_flat", N: 1, RMSEDB: 1}},
		},
		{
			name:   "no rows",
			want:   []ml.GroupRMSE{},
			groups: []string{},
		},
		{
			name:    "lengths differ",
			pred:    []float64{1},
			y:       []float64{1, 2},
			groups:  []string{"a", "b"},
			wantErr: true,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ml.RMSEByGroup(tc.pred, tc.y, tc.groups)
			if tc.wantErr {
				if err == nil {
					t.Fatal("no error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(got, tc.want, func(a, b ml.GroupRMSE) bool {
				return a.Group == b.Group && a.N == b.N && math.Abs(a.RMSEDB-b.RMSEDB) < 1e-12
			}) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}
