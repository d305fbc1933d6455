package observations_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/observations"
	"linkplan/store"
)

func TestParseTs(t *testing.T) {
	want := float64(time.Date(2026, 3, 1, 11, 59, 0, 0, time.UTC).Unix())
	for _, tc := range []struct {
		in   string
		want float64
		err  string // substring of the error; "" = accepted
	}{
		{"1772366340", want, ""},
		{" 1772366340.5 ", want + 0.5, ""},
		{"2026-03-01T11:59:00Z", want, ""},
		{"2026-03-01T08:59:00-03:00", want, ""},
		{"2026-03-01 08:59:00-03:00", want, ""},
		{"2026-03-01T11:59:00.25Z", want + 0.25, ""},
		{"2026-03-01T11:59:00", 0, "UTC offset"},
		{"2026-03-01", 0, "RFC 3339"},
		{"01/03/2026 08:59", 0, "RFC 3339"},
		{"NaN", 0, "RFC 3339"},
		{"", 0, "RFC 3339"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := observations.ParseTs(tc.in)
			switch {
			case tc.err == "" && (err != nil || got != tc.want):
				t.Errorf("ParseTs(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Errorf("ParseTs(%q) = %v, %v; want an error with %q", tc.in, got, err, tc.err)
			}
		})
	}
}

// TestIssue20_TsAcceptsISO8601: a row's ts may be an RFC 3339 text; it is
// stored as epoch seconds; a zone-less time is a 422 naming ts.
func TestIssue20_TsAcceptsISO8601(t *testing.T) {
	svc, db := newSvc(t, observations.Config{})
	k := keyOf("A", appliance.TierPro)
	in := good(-22.9, -43.2)
	in.TsUnix, in.TsText = nil, s("2026-11-25T08:59:30-03:00")
	if _, err := svc.Submit(context.Background(), k, observations.Submission{Rows: []observations.Input{in}}, observations.Client{}); err != nil {
		t.Fatal(err)
	}
	n := 0
	_ = db.Observations("A", appliance.KindLinkObservation, func(o appliance.Observation) bool {
		n++
		if o.TsUnix != float64(t0.Unix()-30) {
			t.Errorf("ts %v, want %d", o.TsUnix, t0.Unix()-30)
		}
		return true
	})
	if n != 1 {
		t.Fatalf("%d rows stored", n)
	}
	in.TsText = s("2026-11-25T08:59:30")
	_, err := svc.Submit(context.Background(), k, observations.Submission{Rows: []observations.Input{in}, Prefix: "observations"}, observations.Client{})
	var ve *appliance.ValidationError
	if !errors.As(err, &ve) || len(ve.Fields) != 1 || ve.Fields[0].Field != "observations[0].ts" || !strings.Contains(ve.Fields[0].Reason, "UTC offset") {
		t.Fatalf("zone-less ts: %v", err)
	}
}

// brazilianDriveTest is a drive test as Excel pt-BR saves it: Windows-1252
// (the "ê" and "ç" are single bytes), ';' separators, decimal commas,
// upper-case and accented headers, an ISO 8601 time with its offset, CRLF
// lines and an empty ";;;;" row.
func brazilianDriveTest() []byte {
	text := "LATITUDE;LONGITUDE;RSRP;Frequência (MHz);DATA_HORA;OBSERVAÇÃO\r\n" +
		"-22,9301;-43,2012;-95,5;1800;2026-11-25T08:59:00-03:00;praça\r\n" +
		";;;;;\r\n" +
		"-22,9402;-43,2013;-97;1800;1795607880;\r\n"
	text = strings.Replace(text, "DATA_HORA", "TIMESTAMP", 1)
	var b []byte
	for _, r := range text {
		b = append(b, byte(r)) // Latin-1 = Windows-1252 for these letters
	}
	return b
}

// TestIssue20_DriveTestBrazilianCSV: the drive-test upload reads the file
// that Brazilian spreadsheets write, as the batch upload does; the values
// are the ones in the file.
func TestIssue20_DriveTestBrazilianCSV(t *testing.T) {
	svc, db := newSvc(t, observations.Config{})
	dt := observations.DriveTest{CSV: bytes.NewReader(brazilianDriveTest()), TxLat: f(-22.95), TxLon: f(-43.23), TxHeightM: f(30),
		TxPowerDBm: f(43), TxGainDBi: f(15), RxGainDBi: f(0), CableLossDB: f(1), RxHeightM: f(1.5)}
	res, err := svc.SubmitDriveTest(context.Background(), keyOf("A", appliance.TierPro), dt, observations.Client{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Ingested != 2 {
		t.Fatalf("%+v", res)
	}
	var got []appliance.Observation
	_ = db.Observations("A", appliance.KindCellSignalSample, func(o appliance.Observation) bool { got = append(got, o); return true })
	if len(got) != 2 {
		t.Fatalf("%d rows", len(got))
	}
	byLat := map[float64]appliance.Observation{got[0].RxLat: got[0], got[1].RxLat: got[1]}
	a, b := byLat[-22.9301], byLat[-22.9402]
	if a.RxLon != -43.2012 || a.ObservedDBm != -95.5 || a.FreqHz != 1800e6 || a.TsUnix != float64(t0.Unix()-60) || a.Metric != "rsrp" {
		t.Errorf("row 1 stored %+v", a)
	}
	if b.RxLon != -43.2013 || b.ObservedDBm != -97 || b.FreqHz != 1800e6 || b.TsUnix != 1795607880 {
		t.Errorf("row 2 stored %+v", b)
	}
}

// TestIssue20_DriveTestTowerRecord: with tower_id, the transmitter power
// and gain come from the tower's record when it states them (a form field
// wins); a tower without them names both fields once.
func TestIssue20_DriveTestTowerRecord(t *testing.T) {
	db, err := store.Open(t.TempDir(), store.Options{LockTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	towers := map[string]*appliance.Tower{
		"anatel:1": {ID: "anatel:1", Lat: -22.95, Lon: -43.23, HeightM: 35, ERPDBm: 59.85, TxPowerDBm: 46, TxGainDBi: 16, HasTx: true},
		"anatel:2": {ID: "anatel:2", Lat: -22.96, Lon: -43.24, HeightM: 30, ERPDBm: 60},
	}
	svc := observations.New(db, func(_ *appliance.APIKey, id string) (*appliance.Tower, bool) {
		tw, ok := towers[id]
		return tw, ok
	}, observations.Config{Now: func() time.Time { return t0 }})
	csv := "lat,lon,rsrp,freq_mhz\n-22.93,-43.2,-95,1800\n"
	base := observations.DriveTest{RxGainDBi: f(0), CableLossDB: f(1), RxHeightM: f(1.5)}
	for _, tc := range []struct {
		name         string
		tower        string
		power, gain  *float64
		wantP, wantG float64
		fields       []string
	}{
		{"power and gain from the record", "anatel:1", nil, nil, 46, 16, nil},
		{"a form field wins", "anatel:1", f(40), nil, 40, 16, nil},
		{"a record without them", "anatel:2", nil, nil, 0, 0, []string{"tx_gain_dbi", "tx_power_dbm"}},
		{"a record without them, both given", "anatel:2", f(43), f(15), 43, 15, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tenant := strings.ReplaceAll(tc.name, " ", "_")
			dt := base
			dt.CSV, dt.TowerID, dt.TxPowerDBm, dt.TxGainDBi = strings.NewReader(csv), tc.tower, tc.power, tc.gain
			_, err := svc.SubmitDriveTest(context.Background(), keyOf(tenant, appliance.TierPro), dt, observations.Client{})
			if tc.fields != nil {
				var ve *appliance.ValidationError
				if !errors.As(err, &ve) || len(ve.Fields) != len(tc.fields) {
					t.Fatalf("want 422 naming %v, got %v", tc.fields, err)
				}
				for i, fe := range ve.Fields {
					if fe.Field != tc.fields[i] || !strings.Contains(fe.Reason, "no transmitter power and gain on record") {
						t.Errorf("field %+v", fe)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			_ = db.Observations(tenant, appliance.KindCellSignalSample, func(o appliance.Observation) bool {
				if o.TxPowerDBm != tc.wantP || o.TxGainDBi != tc.wantG || o.TxHeightM != towers[tc.tower].HeightM {
					t.Errorf("stored power %v gain %v height %v", o.TxPowerDBm, o.TxGainDBi, o.TxHeightM)
				}
				return true
			})
		})
	}
}

// TestIssue20_SourceUpperCase: a source label in upper case is folded.
func TestIssue20_SourceUpperCase(t *testing.T) {
	svc, db := newSvc(t, observations.Config{})
	in := good(-22.9, -43.2)
	in.Source, in.TxGainDBi, in.RxGainDBi, in.CableLossDB, in.RxHeightM = s("DRIVETEST_TEMS"), f(15), f(0), f(1), f(1.5)
	if _, err := svc.Submit(context.Background(), keyOf("A", appliance.TierPro), observations.Submission{Rows: []observations.Input{in}}, observations.Client{}); err != nil {
		t.Fatal(err)
	}
	_ = db.Observations("A", appliance.KindLinkObservation, func(o appliance.Observation) bool {
		if o.Source != "drivetest_tems" {
			t.Errorf("source %q", o.Source)
		}
		return true
	})
}
