package observations_test

import (
	"bytes"
	"errors"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/observations"
)

// FuzzParseDriveTest: any bytes give rows or an error matching
// appliance.ErrInvalid or ErrTooManyRows; never a panic, never more than
// MaxBatchRows rows.
func FuzzParseDriveTest(f *testing.F) {
	f.Add([]byte("lat,lon,rsrp,cellFreq\n-22.9,-43.2,-101,2650\n"))
	f.Add([]byte("Latitude;lon;signal_dbm\n1;2;3\n"))
	f.Add([]byte("\ufefflat,lon,rxlev,Frequency [MHz]\n\"-22,9\",-43.2,30,900\n"))
	f.Add([]byte{0x1f, 0x8b, 0, 0})
	f.Add(brazilianDriveTest())
	f.Fuzz(func(t *testing.T, b []byte) {
		rows, _, err := observations.ParseDriveTest(observations.DriveTest{CSV: bytes.NewReader(b)})
		if err != nil {
			if !errors.Is(err, appliance.ErrInvalid) && !errors.Is(err, appliance.ErrTooManyRows) {
				t.Fatalf("error %v matches no sentinel", err)
			}
			return
		}
		if len(rows) == 0 || len(rows) > observations.MaxBatchRows {
			t.Fatalf("%d rows", len(rows))
		}
	})
}
