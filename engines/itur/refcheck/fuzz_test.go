package refcheck_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/engines/itur/refcheck"
)

// FuzzRead: any input either fails with ErrInvalid or yields a table whose
// every row has one field per column; checking the table never panics and
// counts every row (a row fails, is skipped or passes, never two of them),
// and no row makes the implementation panic (Check
// recovers and reports it as a failure). Seeds: every committed reference
// table.
func FuzzRead(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/itu_p530/*.csv")
	more, _ := filepath.Glob("testdata/itu_p530/itu-validation/*.csv")
	for _, p := range append(seeds, more...) {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, filepath.Base(p))
	}
	f.Add([]byte("lat,lon,T\n (\xb0N),(\xb0E),(K)\nnan,1,2\n"), "")
	f.Add([]byte("lat,lon,p,Rp\n\"1\n"), "R001.csv")
	m := loadMaps(f)
	f.Fuzz(func(t *testing.T, b []byte, name string) {
		tab, err := refcheck.Read(bytes.NewReader(b), name, "")
		if err != nil {
			if !errors.Is(err, appliance.ErrInvalid) {
				t.Fatalf("error %v does not match ErrInvalid", err)
			}
			return
		}
		for _, r := range tab.Rows {
			if len(r.Fields) != len(tab.Columns) || r.Line < 2 {
				t.Fatalf("row %+v for %d columns", r, len(tab.Columns))
			}
		}
		res := refcheck.Check(m, tab)
		if res.Cases != len(tab.Rows) || res.Failed+res.Skipped > res.Cases || res.Skipped != len(res.Skips) {
			t.Fatalf("cases %d failed %d skipped %d (%d skips) for %d rows", res.Cases, res.Failed, res.Skipped, len(res.Skips), len(tab.Rows))
		}
		for _, fl := range res.Failures {
			if strings.HasPrefix(fl.Reason, "evaluation failed") {
				t.Fatalf("the product panicked: %s", fl)
			}
		}
	})
}
