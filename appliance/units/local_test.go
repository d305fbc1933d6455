package units_test

import (
	"context"
	"errors"
	"strconv"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/units"
)

func unitsOf(n int) []appliance.WorkUnit {
	us := make([]appliance.WorkUnit, n)
	for i := range us {
		us[i] = appliance.WorkUnit{JobID: "j", Run: "1", Index: i, Kind: appliance.UnitBatchRows, Body: []byte(strconv.Itoa(i))}
	}
	return us
}

// TestLocal: every unit merged once whatever the workers; a runner's
// error or panic fails the run (the panic recovered, never the process),
// its meaning kept.
func TestLocal(t *testing.T) {
	echo := appliance.UnitRunnerFunc(func(_ context.Context, u *appliance.WorkUnit) ([]byte, error) { return u.Body, nil })
	cases := []struct {
		name    string
		run     appliance.UnitRunner
		workers int
		wantErr error
	}{
		{"one worker", echo, 1, nil},
		{"more workers than units", echo, 64, nil},
		{"a unit fails", appliance.UnitRunnerFunc(func(_ context.Context, u *appliance.WorkUnit) ([]byte, error) {
			if u.Index == 7 {
				return nil, appliance.Invalid("rows", "bad")
			}
			return u.Body, nil
		}), 3, appliance.ErrInvalid},
		{"a unit panics", appliance.UnitRunnerFunc(func(_ context.Context, u *appliance.WorkUnit) ([]byte, error) {
			if u.Index == 3 {
				panic("boom")
			}
			return u.Body, nil
		}), 2, nil},
		{"no runner for the kind", nil, 2, appliance.ErrInvalid},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rs := units.Runners{}
			if tc.run != nil {
				rs[appliance.UnitBatchRows] = tc.run
			}
			l := &units.Local{Runners: rs, Workers: tc.workers, Recover: &appliance.Recoverer{}}
			us := unitsOf(20)
			merged := make([]int, len(us))
			err := l.Execute(context.Background(), us, func(i int, res []byte) error {
				if string(res) != strconv.Itoa(i) {
					t.Errorf("unit %d: result %q", i, res)
				}
				merged[i]++
				return nil
			})
			var pe *appliance.PanicError
			switch {
			case tc.name == "a unit panics":
				if !errors.As(err, &pe) {
					t.Fatalf("err %v, want the recovered panic", err)
				}
				return
			case tc.wantErr != nil:
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err %v, want %v", err, tc.wantErr)
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			for i, n := range merged {
				if n != 1 {
					t.Fatalf("unit %d merged %d times", i, n)
				}
			}
		})
	}
}
