package observations_test

import (
	"errors"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/observations"
)

// TestDriveTestRows: the lenient reading of a drive test skips and counts
// the rows with a cell that is not a number (which ParseDriveTest names
// in its error) and reads the altitude; the file's framing is checked as
// ParseDriveTest checks it.
func TestDriveTestRows(t *testing.T) {
	for _, c := range []struct {
		name, csv    string
		rows, skip   int
		alt0         float64 // the first row's altitude, metres; NaN: none
		wantErrField string
	}{
		{"clean, alt", "lat,lon,alt,rsrp\n51.49,7.41,160.5,-90\n51.50,7.42,161,-91\n", 2, 0, 160.5, ""},
		{"Altitude header, semicolons, decimal commas", "Latitude;Longitude;Altitude;RSRP\n51,49;7,41;160,5;-90\n", 1, 0, 160.5, ""},
		{"NaN and text skipped", "lat,lon,alt,rsrp\n51.49,7.41,160,NaN\n51.49,north,160,-90\n51.50,7.42,161,-91\n", 1, 2, 161, ""},
		{"empty signal kept without a value", "lat,lon,rsrp\n51.49,7.41,\n51.50,7.42,-91\n", 2, 0, -1, ""},
		{"bad timestamp skipped", "lat,lon,rsrp,ts\n51.49,7.41,-90,yesterday\n51.50,7.42,-91,1700000000\n", 1, 1, -1, ""},
		{"no signal column", "lat,lon\n51.49,7.41\n", 0, 0, -1, "csv_file"},
		{"every row unusable: none, counted", "lat,lon,rsrp\nx,y,z\n", 0, 1, -1, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			rows, skipped, err := observations.DriveTestRows(observations.DriveTest{CSV: strings.NewReader(c.csv)})
			if c.wantErrField != "" {
				var ve *appliance.ValidationError
				if !errors.As(err, &ve) || !strings.Contains(err.Error(), c.wantErrField) {
					t.Fatalf("error %v, want one naming %s", err, c.wantErrField)
				}
				return
			}
			if err != nil || len(rows) != c.rows || skipped != c.skip {
				t.Fatalf("%d rows, %d skipped, %v; want %d and %d", len(rows), skipped, err, c.rows, c.skip)
			}
			if c.alt0 >= 0 && (rows[0].RxAltM == nil || *rows[0].RxAltM != c.alt0) {
				t.Fatalf("first row's altitude %v, want %g", rows[0].RxAltM, c.alt0)
			}
			if _, _, err := observations.ParseDriveTest(observations.DriveTest{CSV: strings.NewReader(c.csv)}); (err != nil) != (c.skip > 0) {
				t.Fatalf("ParseDriveTest: %v; it must refuse exactly the files DriveTestRows skips rows of", err)
			}
		})
	}
}
