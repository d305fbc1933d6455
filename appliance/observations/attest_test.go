package observations_test

import (
	"errors"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/observations"
	"linkplan/store"
)

// TestAttestSource: per named source with a mandatory basis, audited with
// the basis; wildcards and the generator's source are refused, naming
// the field; --withdraw reverses.
func TestAttestSource(t *testing.T) {
	db, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, tc := range []struct {
		name, source, basis string
		withdraw            bool
		field               string
	}{
		{"wildcard", "drivetest_*", "b", false, "source"},
		{"empty source", "", "b", false, "source"},
		{"no basis", "drivetest_tems", "  ", false, "basis"},
		{"synthetic generator rows", "synthetic", "they look real", false, "source"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := observations.AttestSource(db, tc.source, tc.basis, tc.withdraw, "operator:t", t0)
			var ve *appliance.ValidationError
			if !errors.As(err, &ve) || ve.Fields[0].Field != tc.field {
				t.Fatalf("err %v, want a field error on %s", err, tc.field)
			}
		})
	}
	a, err := observations.AttestSource(db, "drivetest_tems", " our own TEMS drive, 2026-11 ", false, "operator:t", t0)
	if err != nil || a.Basis != "our own TEMS drive, 2026-11" || a.AttestedAtUnix != float64(t0.Unix()) {
		t.Fatalf("attest: %+v %v", a, err)
	}
	w, err := observations.AttestSource(db, "drivetest_tems", "tool recalled", true, "operator:u", t0.Add(3600e9))
	if err != nil || w.Live() || w.WithdrawnBy != "operator:u" {
		t.Fatalf("withdraw: %+v %v", w, err)
	}
	entries, err := db.Audit("", 5)
	if err != nil || len(entries) != 2 || entries[0].Action != observations.ActionAttestWithdraw || entries[1].Params["basis"] != "our own TEMS drive, 2026-11" ||
		entries[1].Route != "cli: linkplan observations attest" {
		t.Fatalf("audit %+v %v", entries, err)
	}
}
