package observations_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/observations"
)

// TestDriveTestRows: the lenient reading of a drive test skips and counts,
// by cause, the rows with a cell that is not a number (which
// ParseDriveTest names in its error) or a signal outside its plausible
// range (which the upload refuses when it stores the rows), keeps the rows
// whose ts or altitude it cannot read (the evaluations use neither), and
// reads the altitude; the file's framing is checked as ParseDriveTest
// checks it, with the caller's caps.
func TestDriveTestRows(t *testing.T) {
	rows := func(n int) string {
		var b strings.Builder
		b.WriteString("lat,lon,rsrp\n")
		for range n {
			b.WriteString("51.49,7.41,-90\n")
		}
		return b.String()
	}
	for _, c := range []struct {
		name, csv    string
		dt           observations.DriveTest // its CSV is csv
		rows, skip   int
		signal       int     // rows skipped for their signal, of skip
		alt0         float64 // the first row's altitude, metres; −1: none
		strictRefuse bool    // ParseDriveTest refuses the file
		wantErr      string  // an error naming csv_file and this
	}{
		{name: "clean, alt", csv: "lat,lon,alt,rsrp\n51.49,7.41,160.5,-90\n51.50,7.42,161,-91\n", rows: 2, alt0: 160.5},
		{name: "Altitude header, semicolons, decimal commas", csv: "Latitude;Longitude;Altitude;RSRP\n51,49;7,41;160,5;-90\n", rows: 1, alt0: 160.5},
		{name: "NaN and text skipped", csv: "lat,lon,alt,rsrp\n51.49,7.41,160,NaN\n51.49,north,160,-90\n51.50,7.42,161,-91\n", rows: 1, skip: 2, alt0: 161, strictRefuse: true},
		{name: "empty signal kept without a value", csv: "lat,lon,rsrp\n51.49,7.41,\n51.50,7.42,-91\n", rows: 2, alt0: -1},
		{name: "bad timestamp kept without a time", csv: "lat,lon,rsrp,ts\n51.49,7.41,-90,yesterday\n51.50,7.42,-91,1700000000\n", rows: 2, alt0: -1, strictRefuse: true},
		{name: "local time without UTC offset kept", csv: "lat,lon,rsrp,Timestamp\n51.49,7.41,-90,2019-05-14 10:47:04\n", rows: 1, alt0: -1, strictRefuse: true},
		{name: "unreadable altitude kept without one", csv: "lat,lon,alt,rsrp\n51.49,7.41,n/a,-90\n51.50,7.42,-,-91\n", rows: 2, alt0: -1},
		{name: "RSRP placeholders and indices skipped", csv: "lat,lon,rsrp\n51.49,7.41,2147483647\n51.49,7.41,0\n51.49,7.41,50\n51.49,7.41,-30\n51.49,7.41,-151\n51.49,7.41,-31\n51.49,7.41,-150\n",
			rows: 2, skip: 5, signal: 5, alt0: -1},
		{name: "signal_dbm within the upload's range kept", csv: "lat,lon,signal_dbm\n51.49,7.41,0\n51.49,7.41,30\n51.49,7.41,31\n", rows: 2, skip: 1, signal: 1, alt0: -1},
		{name: "rscp above -25 dBm skipped", csv: "lat,lon,rscp\n51.49,7.41,-25\n51.49,7.41,-24\n", rows: 1, skip: 1, signal: 1, alt0: -1},
		{name: "rxlev index converted, kept", csv: "lat,lon,rxlev\n51.49,7.41,30\n", rows: 1, alt0: -1},
		{name: "no signal column", csv: "lat,lon\n51.49,7.41\n", wantErr: "signal column", strictRefuse: true},
		{name: "every row unusable: none, counted", csv: "lat,lon,rsrp\nx,y,z\n", skip: 1, alt0: -1, strictRefuse: true},
		{name: "more rows than the upload's cap, with MaxRows", csv: rows(observations.MaxBatchRows + 1), dt: observations.DriveTest{MaxRows: 2_000_000},
			rows: observations.MaxBatchRows + 1, alt0: -1, strictRefuse: true},
		{name: "more rows than MaxRows", csv: rows(4), dt: observations.DriveTest{MaxRows: 3}, wantErr: "more than 3 data rows"},
		{name: "MaxRows data rows, one of them skipped", csv: "lat,lon,rsrp\n51.49,7.41,-90\n51.49,7.41,-91\n51.49,7.41,2147483647\n", dt: observations.DriveTest{MaxRows: 3},
			rows: 2, skip: 1, signal: 1, alt0: -1},
		{name: "more data rows than MaxRows, some skipped", csv: "lat,lon,rsrp\n51.49,7.41,-90\nx,y,z\nx,y,z\n51.49,7.41,-91\n", dt: observations.DriveTest{MaxRows: 3},
			wantErr: "more than 3 data rows"},
		{name: "more bytes than MaxBytes", csv: rows(40), dt: observations.DriveTest{MaxBytes: 100}, wantErr: "larger than 100 bytes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dt := c.dt
			dt.CSV = strings.NewReader(c.csv)
			rows, skips, err := observations.DriveTestRows(dt)
			if c.wantErr != "" {
				var ve *appliance.ValidationError
				if !errors.As(err, &ve) || !strings.Contains(err.Error(), "csv_file") || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v, want one naming csv_file and %q", err, c.wantErr)
				}
				return
			}
			if err != nil || len(rows) != c.rows || skips.Total() != c.skip || skips.Signal != c.signal {
				t.Fatalf("%d rows, %+v skipped, %v; want %d and %d (%d for the signal)", len(rows), skips, err, c.rows, c.skip, c.signal)
			}
			if c.alt0 >= 0 && (rows[0].RxAltM == nil || *rows[0].RxAltM != c.alt0) {
				t.Fatalf("first row's altitude %v, want %g", rows[0].RxAltM, c.alt0)
			}
			if c.alt0 < 0 && len(rows) > 0 && rows[0].RxAltM != nil {
				t.Fatalf("first row's altitude %g, want none", *rows[0].RxAltM)
			}
			if _, _, err := observations.ParseDriveTest(observations.DriveTest{CSV: strings.NewReader(c.csv)}); (err != nil) != c.strictRefuse {
				t.Fatalf("ParseDriveTest: %v; refusal want %v (the upload's behaviour is unchanged)", err, c.strictRefuse)
			}
		})
	}
}

// TestDriveTestRowsNotNumberByColumn: the rows skipped for a cell that is
// not a number are counted by the header of that cell, so that a refusal
// can name it.
func TestDriveTestRowsNotNumberByColumn(t *testing.T) {
	csv := "Latitude,lon,RSRP,cellFreq\nnorth,7.41,-90,1800\n51.49,7.41,x,1800\n51.49,7.41,-90,?\n51.49,7.41,-90,1800\n"
	rows, skips, err := observations.DriveTestRows(observations.DriveTest{CSV: strings.NewReader(csv)})
	want := map[string]int{"Latitude": 1, "RSRP": 1, "cellFreq": 1}
	if err != nil || len(rows) != 1 || fmt.Sprint(skips.NotNumber) != fmt.Sprint(want) {
		t.Fatalf("%d rows, %v not numbers, %v; want 1 row and %v", len(rows), skips.NotNumber, err, want)
	}
}

// TestDriveTestRowsGzipBeyondUploadCap: a gzip file (with a UTF-8 BOM) of
// more rows than the upload's cap per request is read whole with MaxRows,
// and refused by the upload as before.
func TestDriveTestRowsGzipBeyondUploadCap(t *testing.T) {
	var plain bytes.Buffer
	plain.WriteString("\ufefflat,lon,rsrp\n")
	for i := range observations.MaxBatchRows + 1 {
		fmt.Fprintf(&plain, "51.%05d,7.41,-90\n", i)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	if _, err := io.Copy(zw, &plain); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	rows, skips, err := observations.DriveTestRows(observations.DriveTest{CSV: bytes.NewReader(gz.Bytes()), MaxRows: 2_000_000})
	if err != nil || len(rows) != observations.MaxBatchRows+1 || skips.Total() != 0 {
		t.Fatalf("%d rows, %d skipped, %v; want %d", len(rows), skips.Total(), err, observations.MaxBatchRows+1)
	}
	if _, _, err := observations.ParseDriveTest(observations.DriveTest{CSV: bytes.NewReader(gz.Bytes())}); !errors.Is(err, appliance.ErrTooManyRows) {
		t.Fatalf("ParseDriveTest: %v, want the upload's cap per request", err)
	}
}
