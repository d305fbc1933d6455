package observations_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/observations"
	"linkplan/store"
)

var t0 = time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)

func keyOf(tenant string, tier appliance.Tier) *appliance.APIKey {
	return &appliance.APIKey{ID: "key-" + tenant, TenantID: tenant, Tier: tier, Role: appliance.RoleTenant, Email: tenant + "@example.com"}
}

const plainKey = "lp_live_0123456789abcdef0123456789abcdef01234567"

func newSvc(t *testing.T, cfg observations.Config) (*observations.Service, *store.DB) {
	t.Helper()
	db, err := store.Open(t.TempDir(), store.Options{LockTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if cfg.Now == nil {
		cfg.Now = func() time.Time { return t0 }
	}
	tower := &appliance.Tower{ID: "T1", Lat: -22.95, Lon: -43.23, HeightM: 40}
	lookup := func(k *appliance.APIKey, id string) (*appliance.Tower, bool) {
		if id == tower.ID {
			return tower, true
		}
		return nil, false
	}
	return observations.New(db, lookup, cfg), db
}

func f(x float64) *float64 { return &x }
func s(x string) *string   { return &x }

// good is a complete row of source api at rx (lat, lon).
func good(lat, lon float64) observations.Input {
	return observations.Input{TxLat: f(-22.95), TxLon: f(-43.23), TxHeightM: f(40), TxPowerDBm: f(43),
		RxLat: f(lat), RxLon: f(lon), FreqMHz: f(700), ObservedDBm: f(-80), TsUnix: f(float64(t0.Unix()) - 30)}
}

// TestRowRules is every field rule of SPEC §2.7 as a named case: the
// submission fails with a 422 naming the field, or passes.
func TestRowRules(t *testing.T) {
	svc, _ := newSvc(t, observations.Config{})
	k := keyOf("A", appliance.TierPro)
	cases := []struct {
		name  string
		mod   func(in *observations.Input)
		field string // "" = accepted
	}{
		{"complete api row", func(in *observations.Input) {}, ""},
		{"tx_lat above 90", func(in *observations.Input) { in.TxLat = f(90.0001) }, "tx_lat"},
		{"tx_lat at -90", func(in *observations.Input) { in.TxLat = f(-90) }, ""},
		{"tx_lon below -180", func(in *observations.Input) { in.TxLon = f(-180.5) }, "tx_lon"},
		{"tx_height_m zero (open)", func(in *observations.Input) { in.TxHeightM = f(0) }, "tx_height_m"},
		{"tx_height_m 500", func(in *observations.Input) { in.TxHeightM = f(500) }, ""},
		{"tx_height_m 500.1", func(in *observations.Input) { in.TxHeightM = f(500.1) }, "tx_height_m"},
		{"tx_power_dbm 80", func(in *observations.Input) { in.TxPowerDBm = f(80) }, ""},
		{"tx_power_dbm 81", func(in *observations.Input) { in.TxPowerDBm = f(81) }, "tx_power_dbm"},
		{"tx_power_dbm missing", func(in *observations.Input) { in.TxPowerDBm = nil }, "tx_power_dbm"},
		{"rx_lat missing", func(in *observations.Input) { in.RxLat = nil }, "rx_lat"},
		{"rx_height_m zero", func(in *observations.Input) { in.RxHeightM = f(0) }, "rx_height_m"},
		{"cable_loss_db 20", func(in *observations.Input) { in.CableLossDB = f(20) }, ""},
		{"cable_loss_db 21", func(in *observations.Input) { in.CableLossDB = f(21) }, "cable_loss_db"},
		{"cable_loss_db negative", func(in *observations.Input) { in.CableLossDB = f(-1) }, "cable_loss_db"},
		{"frequency_mhz 1 (open)", func(in *observations.Input) { in.FreqMHz = f(1) }, "frequency_mhz"},
		{"frequency_mhz 100000", func(in *observations.Input) { in.FreqMHz = f(100e3) }, ""},
		{"frequency_mhz above 100000", func(in *observations.Input) { in.FreqMHz = f(100.1e3) }, "frequency_mhz"},
		{"observed_dbm -150", func(in *observations.Input) { in.ObservedDBm = f(-150) }, ""},
		{"observed_dbm -151", func(in *observations.Input) { in.ObservedDBm = f(-151) }, "observed_dbm"},
		{"observed_dbm 31", func(in *observations.Input) { in.ObservedDBm = f(31) }, "observed_dbm"},
		{"gain above 60 dBi", func(in *observations.Input) { in.TxGainDBi = f(61) }, "tx_gain_dbi"},
		{"source 33 characters", func(in *observations.Input) { in.Source = s(strings.Repeat("a", 33)) }, "source"},
		{"source with a space", func(in *observations.Input) { in.Source = s("drive test") }, "source"},
		{"synthetic takes defaults", func(in *observations.Input) { in.Source = s("synthetic") }, ""},
		{"drivetest without tx_gain_dbi", func(in *observations.Input) {
			in.Source, in.RxGainDBi, in.CableLossDB, in.RxHeightM = s("drivetest_tems"), f(0), f(1), f(1.5)
		}, "tx_gain_dbi"},
		{"drivetest without rx_gain_dbi", func(in *observations.Input) {
			in.Source, in.TxGainDBi, in.CableLossDB, in.RxHeightM = s("drivetest_tems"), f(15), f(1), f(1.5)
		}, "rx_gain_dbi"},
		{"drivetest without cable_loss_db", func(in *observations.Input) {
			in.Source, in.TxGainDBi, in.RxGainDBi, in.RxHeightM = s("drivetest_tems"), f(15), f(0), f(1.5)
		}, "cable_loss_db"},
		{"drivetest without rx_height_m", func(in *observations.Input) {
			in.Source, in.TxGainDBi, in.RxGainDBi, in.CableLossDB = s("drivetest_tems"), f(15), f(0), f(1)
		}, "rx_height_m"},
		{"drivetest complete", func(in *observations.Input) {
			in.Source, in.TxGainDBi, in.RxGainDBi, in.CableLossDB, in.RxHeightM = s("drivetest_tems"), f(15), f(0), f(1), f(1.5)
		}, ""},
		{"tower_id supplies the transmitter", func(in *observations.Input) {
			in.TowerID, in.TxLat, in.TxLon, in.TxHeightM = s("T1"), nil, nil, nil
		}, ""},
		{"unknown tower_id", func(in *observations.Input) {
			in.TowerID, in.TxLat, in.TxLon, in.TxHeightM = s("nope"), nil, nil, nil
		}, "tower_id"},
		{"ts in the far future", func(in *observations.Input) { in.TsUnix = f(float64(t0.Unix()) + 2*86400) }, "ts"},
		{"ts before 2000", func(in *observations.Input) { in.TsUnix = f(1e8) }, "ts"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := good(-22.9+float64(i)*1e-3, -43.2)
			tc.mod(&in)
			_, err := svc.Submit(context.Background(), k, observations.Submission{Rows: []observations.Input{in}}, observations.Client{})
			if tc.field == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var ve *appliance.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("want a validation error on %s, got %v", tc.field, err)
			}
			found := false
			for _, fe := range ve.Fields {
				found = found || fe.Field == tc.field
			}
			if !found {
				t.Fatalf("fields %v do not name %s", ve.Fields, tc.field)
			}
		})
	}
}

// TestTierAndLimits: Free and Starter are forbidden; 10,001 rows are a
// 400-class error, 10,000 pass.
func TestTierAndLimits(t *testing.T) {
	svc, _ := newSvc(t, observations.Config{})
	for _, tier := range []appliance.Tier{appliance.TierFree, appliance.TierStarter} {
		_, err := svc.Submit(context.Background(), keyOf("A", tier), observations.Submission{Rows: []observations.Input{good(-22.9, -43.2)}}, observations.Client{})
		if !errors.Is(err, appliance.ErrForbidden) {
			t.Fatalf("%s: want forbidden, got %v", tier, err)
		}
		if _, err := svc.Stats(keyOf("A", tier)); !errors.Is(err, appliance.ErrForbidden) {
			t.Fatalf("%s stats: want forbidden, got %v", tier, err)
		}
	}
	rows := make([]observations.Input, observations.MaxBatchRows+1)
	for i := range rows {
		rows[i] = good(-22.9+float64(i)*1e-4, -43.2)
	}
	_, err := svc.Submit(context.Background(), keyOf("A", appliance.TierPro), observations.Submission{Rows: rows, Prefix: "observations"}, observations.Client{})
	if !errors.Is(err, appliance.ErrTooManyRows) || !strings.Contains(err.Error(), "at most 10000 rows") {
		t.Fatalf("10,001 rows: %v", err)
	}
	res, err := svc.Submit(context.Background(), keyOf("A", appliance.TierPro), observations.Submission{Rows: rows[:observations.MaxBatchRows], Prefix: "observations"}, observations.Client{})
	if err != nil || res.Ingested != observations.MaxBatchRows {
		t.Fatalf("10,000 rows: %+v %v", res, err)
	}
}

// TestDedup covers the key of SPEC §8.2: inside the batch, against stored
// rows, per tenant, and at the window and rounding boundaries.
func TestDedup(t *testing.T) {
	svc, db := newSvc(t, observations.Config{DedupWindow: 60 * time.Second})
	ctx := context.Background()
	a, b := keyOf("A", appliance.TierPro), keyOf("B", appliance.TierBusiness)
	base := float64(t0.Unix()) - 600 // a multiple of 60 s: t0 is on a minute
	row := func(lat float64, ts float64, freq float64) observations.Input {
		in := good(lat, -43.2)
		in.TsUnix, in.FreqMHz = f(ts), f(freq/1e6)
		return in
	}
	cases := []struct {
		name                string
		key                 *appliance.APIKey
		rows                []observations.Input
		ingested, intra, ex int
	}{
		{"first batch with an intra-batch twin", a, []observations.Input{row(-22.9, base, 700e6), row(-22.9, base+59, 700e6)}, 1, 1, 0},
		{"same key again is existing", a, []observations.Input{row(-22.9, base+30, 700e6)}, 0, 0, 1},
		{"next window is new", a, []observations.Input{row(-22.9, base+60, 700e6)}, 1, 0, 0},
		{"lat differing in the 6th decimal rounds together", a, []observations.Input{row(-22.900001, base+1, 700e6)}, 0, 0, 1},
		{"lat differing in the 5th decimal is new", a, []observations.Input{row(-22.90001, base+1, 700e6)}, 1, 0, 0},
		{"frequency rounds to 1 Hz", a, []observations.Input{row(-22.9, base+2, 700e6+0.4)}, 0, 0, 1},
		{"other frequency is new", a, []observations.Input{row(-22.9, base+2, 700e6+1)}, 1, 0, 0},
		{"another tenant never dedups against A", b, []observations.Input{row(-22.9, base, 700e6)}, 1, 0, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := svc.Submit(ctx, tc.key, observations.Submission{Rows: tc.rows, Prefix: "observations"}, observations.Client{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Ingested != tc.ingested || res.DedupedIntraBatch != tc.intra || res.DedupedExisting != tc.ex || res.Submitted != len(tc.rows) {
				t.Fatalf("got %+v, want ingested %d intra %d existing %d", res, tc.ingested, tc.intra, tc.ex)
			}
		})
	}
	ca, _ := svc.Stats(a)
	cb, _ := svc.Stats(b)
	all, _ := svc.Stats(&appliance.APIKey{Role: appliance.RoleAdmin})
	if ca.LinkObservations != 4 || cb.LinkObservations != 1 || all.LinkObservations != 5 {
		t.Fatalf("counts A %+v B %+v all %+v", ca, cb, all)
	}
	n := 0
	if err := db.Observations("B", appliance.KindLinkObservation, func(o appliance.Observation) bool {
		n++
		if o.TenantID != "B" || o.SubmittedBy != b.ID {
			t.Errorf("row of B: %+v", o)
		}
		return true
	}); err != nil || n != 1 {
		t.Fatalf("B rows %d %v", n, err)
	}
}

// TestSignature covers SPEC §5.3: with and without ts, a re-serialised
// body, skew, enforcement, and the weights.
func TestSignature(t *testing.T) {
	body := []byte(`{"observations":[{"rx_lat":-22.9}]}`)
	reserialised := []byte(`{"observations": [{"rx_lat": -22.9}]}`)
	ts := strconv.FormatInt(t0.Unix(), 10)
	cases := []struct {
		name       string
		require    bool
		body       []byte
		sig, sigTs string
		key        string
		want       string // status, or "401"
	}{
		{"unsigned allowed", false, body, "", "", plainKey, observations.SignatureUnsigned},
		{"unsigned required", true, body, "", "", plainKey, "401"},
		{"signed raw body", false, body, observations.Sign(plainKey, "", body), "", plainKey, observations.SignatureVerified},
		{"signed with ts", true, body, observations.Sign(plainKey, ts, body), ts, plainKey, observations.SignatureVerified},
		{"re-serialised body fails", false, reserialised, observations.Sign(plainKey, "", body), "", plainKey, "401"},
		{"other key's signature fails", false, body, observations.Sign(plainKey+"0", "", body), "", plainKey, "401"},
		{"ts signature without the ts header fails", false, body, observations.Sign(plainKey, ts, body), "", plainKey, "401"},
		{"skew 301 s fails", false, body, observations.Sign(plainKey, strconv.FormatInt(t0.Unix()-301, 10), body), strconv.FormatInt(t0.Unix()-301, 10), plainKey, "401"},
		{"skew 300 s passes", false, body, observations.Sign(plainKey, strconv.FormatInt(t0.Unix()+300, 10), body), strconv.FormatInt(t0.Unix()+300, 10), plainKey, observations.SignatureVerified},
		{"malformed header", false, body, "sha256=zz", "", plainKey, "401"},
		{"no sha256= prefix", false, body, strings.TrimPrefix(observations.Sign(plainKey, "", body), "sha256="), "", plainKey, "401"},
		{"signed without an API key (bearer)", false, body, observations.Sign(plainKey, "", body), "", "", "401"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			svc, db := newSvc(t, observations.Config{RequireSignature: tc.require})
			in := good(-22.9+float64(i)*1e-3, -43.2)
			res, err := svc.Submit(context.Background(), keyOf("A", appliance.TierPro), observations.Submission{
				Rows: []observations.Input{in}, Prefix: "observations", Body: tc.body, Signature: tc.sig, SignatureTs: tc.sigTs, APIKey: tc.key}, observations.Client{})
			if tc.want == "401" {
				if !errors.Is(err, appliance.ErrUnauthenticated) {
					t.Fatalf("want 401, got %+v %v", res, err)
				}
				return
			}
			if err != nil || res.SignatureStatus != tc.want {
				t.Fatalf("got %+v %v, want %s", res, err, tc.want)
			}
			wantW := observations.UnsignedWeight
			if tc.want == observations.SignatureVerified {
				wantW = observations.SignedWeight
			}
			_ = db.Observations("A", appliance.KindLinkObservation, func(o appliance.Observation) bool {
				if o.Weight != wantW || o.Signed != (tc.want == observations.SignatureVerified) {
					t.Errorf("stored weight %v signed %v", o.Weight, o.Signed)
				}
				return true
			})
		})
	}
}

// TestConsent: declared consent is counted granted; absent or false is
// refused, stored, and audited observation.rejected.no_consent.
func TestConsent(t *testing.T) {
	yes, no := true, false
	for _, tc := range []struct {
		name    string
		consent *bool
		want    appliance.Consent
	}{{"declared true", &yes, appliance.ConsentConsented}, {"declared false", &no, appliance.ConsentRefused}, {"absent", nil, appliance.ConsentRefused}} {
		t.Run(tc.name, func(t *testing.T) {
			svc, db := newSvc(t, observations.Config{})
			res, err := svc.Submit(context.Background(), keyOf("A", appliance.TierPro), observations.Submission{
				Rows: []observations.Input{good(-22.9, -43.2), good(-22.8, -43.2)}, Consent: tc.consent, Prefix: "observations"},
				observations.Client{RequestID: "rid-1"})
			if err != nil {
				t.Fatal(err)
			}
			granted := tc.want == appliance.ConsentConsented
			if granted && (res.GrantedForTraining != 2 || res.RefusedForTraining != 0) || !granted && (res.GrantedForTraining != 0 || res.RefusedForTraining != 2) {
				t.Fatalf("accounting %+v", res)
			}
			audit, err := db.Audit("A", 0)
			if err != nil {
				t.Fatal(err)
			}
			refusals := 0
			for _, e := range audit {
				if e.Action == observations.ActionRejectedNoConsent {
					refusals++
					if e.RequestID != "rid-1" || e.Params["rows"] != "2" {
						t.Errorf("audit row %+v", e)
					}
				}
			}
			if want := map[bool]int{true: 0, false: 1}[granted]; refusals != want {
				t.Fatalf("%d refusal audit rows, want %d", refusals, want)
			}
			_ = db.Observations("A", appliance.KindLinkObservation, func(o appliance.Observation) bool {
				if o.Consent != tc.want {
					t.Errorf("stored consent %s, want %s", o.Consent, tc.want)
				}
				return true
			})
		})
	}
}

// TestDriveTestDortmund ingests the committed sample of a real drive test
// (Dortmund LTE layout, gzip) and checks the aliases and the form rules.
func TestDriveTestDortmund(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "dortmund_o2_campus_head.csv.gz"))
	if err != nil {
		t.Fatal(err)
	}
	svc, db := newSvc(t, observations.Config{})
	k := keyOf("A", appliance.TierPro)
	dt := observations.DriveTest{CSV: bytes.NewReader(raw), Device: "dortmund-lte", TxHeightM: f(30), TxPowerDBm: f(46),
		TxGainDBi: f(17), RxGainDBi: f(0), CableLossDB: f(0), RxHeightM: f(1.5)}
	res, err := svc.SubmitDriveTest(context.Background(), k, dt, observations.Client{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Submitted != 200 || res.Ingested+res.DedupedIntraBatch != 200 || res.Ingested == 0 {
		t.Fatalf("result %+v", res)
	}
	var first appliance.Observation
	n := 0
	_ = db.Observations("A", appliance.KindCellSignalSample, func(o appliance.Observation) bool {
		if n == 0 {
			first = o
		}
		n++
		return true
	})
	if n != res.Ingested || first.Metric != "rsrp" || first.Source != observations.DriveTestSource || first.FreqHz < 800e6 || first.TxLat < 51 || first.TxLon < 7 {
		t.Fatalf("stored %d, first %+v", n, first)
	}
	c, _ := svc.Stats(k)
	if c.CellSignalSamples != res.Ingested || c.LinkObservations != 0 {
		t.Fatalf("counts %+v", c)
	}
	// Form rules: each of the required form fields missing is named.
	for _, field := range []string{"tx_gain_dbi", "rx_gain_dbi", "cable_loss_db", "rx_height_m", "tx_power_dbm", "tx_height_m"} {
		d := dt
		d.CSV = bytes.NewReader(raw)
		switch field {
		case "tx_gain_dbi":
			d.TxGainDBi = nil
		case "rx_gain_dbi":
			d.RxGainDBi = nil
		case "cable_loss_db":
			d.CableLossDB = nil
		case "rx_height_m":
			d.RxHeightM = nil
		case "tx_power_dbm":
			d.TxPowerDBm = nil
		case "tx_height_m":
			d.TxHeightM = nil
		}
		_, err := svc.SubmitDriveTest(context.Background(), k, d, observations.Client{})
		var ve *appliance.ValidationError
		if !errors.As(err, &ve) || ve.Fields[0].Field != field {
			t.Fatalf("without %s: %v", field, err)
		}
	}
}

// TestDriveTestAliases: every SPEC §4.5 alias, a gzip body, RXLEV indices
// and bad cells named by line and column.
func TestDriveTestAliases(t *testing.T) {
	gz := func(s string) []byte {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write([]byte(s))
		w.Close()
		return b.Bytes()
	}
	form := observations.DriveTest{TxLat: f(-22.95), TxLon: f(-43.23), TxHeightM: f(30), TxPowerDBm: f(43), TxGainDBi: f(15),
		RxGainDBi: f(0), CableLossDB: f(1), RxHeightM: f(1.5)}
	cases := []struct {
		name   string
		csv    []byte
		metric string
		dbm    float64
		freqHz float64
		err    string // a field the 422 names
	}{
		{"Latitude lon signal_dbm freq_hz", []byte("Latitude,lon,signal_dbm,freq_hz\n-22.9,-43.2,-70,700000000\n"), "signal_dbm", -70, 700e6, ""},
		{"band_mhz", []byte("lat,lon,rsrp,band_mhz\n-22.9,-43.2,-95,1800\n"), "rsrp", -95, 1800e6, ""},
		{"Frequency [MHz]", []byte("lat,lon,rscp,Frequency [MHz]\n-22.9,-43.2,-85,2100\n"), "rscp", -85, 2100e6, ""},
		{"rxlev index", []byte("lat,lon,rxlev,freq_hz\n-22.9,-43.2,30,900000000\n"), "rxlev", -80, 900e6, ""},
		{"gzip body", gz("lat,lon,rsrp,cellFreq\n-22.9,-43.2,-101,2650\n"), "rsrp", -101, 2650e6, ""},
		{"no signal column", []byte("lat,lon,freq_hz\n-22.9,-43.2,700000000\n"), "", 0, 0, "csv_file"},
		{"bad number", []byte("lat,lon,rsrp,freq_hz\n-22.9,x,-90,700000000\n"), "", 0, 0, "csv_file[2].lon"},
		{"no frequency anywhere", []byte("lat,lon,rsrp\n-22.9,-43.2,-90\n"), "", 0, 0, "csv_file[2].frequency_mhz"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			svc, db := newSvc(t, observations.Config{})
			d := form
			d.CSV = bytes.NewReader(tc.csv)
			_, err := svc.SubmitDriveTest(context.Background(), keyOf(fmt.Sprint("T", i), appliance.TierPro), d, observations.Client{})
			if tc.err != "" {
				var ve *appliance.ValidationError
				if !errors.As(err, &ve) || ve.Fields[0].Field != tc.err {
					t.Fatalf("want 422 naming %s, got %v", tc.err, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			_ = db.Observations(fmt.Sprint("T", i), appliance.KindCellSignalSample, func(o appliance.Observation) bool {
				if o.Metric != tc.metric || o.ObservedDBm != tc.dbm || o.FreqHz != tc.freqHz {
					t.Errorf("stored %+v", o)
				}
				return true
			})
		})
	}
}

// TestDividends covers SPEC §2.13: events only from an explicit
// declaration by an identifiable submitter, never for synthetic rows or a
// source label, NULL amounts on creation, and the settlement refusal that
// names the operator's two settings.
func TestDividends(t *testing.T) {
	yes := true
	ctx := context.Background()
	cases := []struct {
		name   string
		key    *appliance.APIKey
		wisp   *bool
		source string
		events int
		err    string // a field of the 422
	}{
		{"explicit declaration", keyOf("A", appliance.TierPro), &yes, "", 2, ""},
		{"no declaration", keyOf("A", appliance.TierPro), nil, "", 0, ""},
		{"a drivetest source label alone", keyOf("A", appliance.TierPro), nil, "drivetest_wisp_dividend", 0, ""},
		{"synthetic rows never", keyOf("A", appliance.TierPro), &yes, "synthetic", 0, ""},
		{"anonymous submitter refused", &appliance.APIKey{ID: "anon", TenantID: "A", Tier: appliance.TierPro, Role: appliance.RoleTenant}, &yes, "", 0, "consent_for_wisp_training"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			svc, db := newSvc(t, observations.Config{})
			rows := []observations.Input{good(-22.9, -43.2), good(-22.8, -43.2)}
			for i := range rows {
				if tc.source != "" {
					src := tc.source
					rows[i].Source = &src
					rows[i].TxGainDBi, rows[i].RxGainDBi, rows[i].CableLossDB, rows[i].RxHeightM = f(10), f(0), f(0), f(1.5)
				}
			}
			_, err := svc.Submit(ctx, tc.key, observations.Submission{Rows: rows, Prefix: "observations", WispConsent: tc.wisp}, observations.Client{})
			if tc.err != "" {
				var ve *appliance.ValidationError
				if !errors.As(err, &ve) || ve.Fields[0].Field != tc.err {
					t.Fatalf("want 422 on %s, got %v", tc.err, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			_ = db.DividendEvents("", func(e appliance.DividendEvent) bool {
				n++
				if e.AmountBRLCents != nil || e.SettlementForm != nil || e.SettledAt != nil || e.SubmitterEmail != tc.key.Email || e.ObservationID == "" {
					t.Errorf("event %+v", e)
				}
				return true
			})
			if n != tc.events {
				t.Fatalf("%d events, want %d", n, tc.events)
			}
		})
	}

	svc, db := newSvc(t, observations.Config{})
	if _, err := svc.Submit(ctx, keyOf("A", appliance.TierPro), observations.Submission{Rows: []observations.Input{good(-22.9, -43.2)}, WispConsent: &yes}, observations.Client{}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []struct{ name, form, rate string }{
		{"nothing set", "", ""}, {"form only", "payout", ""}, {"rate only", "", "0.5"}, {"zero rate", "payout", "0"},
		{"unknown form", "cash", "0.5"}, {"negative rate", "invoice_credit", "-1"},
	} {
		t.Run("settlement refused: "+p.name, func(t *testing.T) {
			_, err := observations.SettleDividends(db, p.form, p.rate, "op", t0)
			if err == nil || !strings.Contains(err.Error(), "DATA_DIVIDEND_FORM") || !strings.Contains(err.Error(), "DATA_DIVIDEND_RATE_BRL_PER_EVENT") {
				t.Fatalf("got %v", err)
			}
		})
	}
	n, err := observations.SettleDividends(db, "tier_discount", "0.35", "op", t0)
	if err != nil || n != 1 {
		t.Fatalf("settle: %d %v", n, err)
	}
	_ = db.DividendEvents("A", func(e appliance.DividendEvent) bool {
		if e.AmountBRLCents == nil || *e.AmountBRLCents != 35 || *e.SettlementForm != "tier_discount" || e.SettledAt == nil {
			t.Errorf("settled event %+v", e)
		}
		return true
	})
	if n, _ := observations.SettleDividends(db, "tier_discount", "0.35", "op", t0); n != 0 {
		t.Fatalf("settled twice: %d", n)
	}
}

// TestDriveTestGzipBomb: a small gzip upload that inflates beyond
// MaxDriveTestBytes, or into a record longer than MaxDriveTestRecordBytes,
// is refused naming csv_file and the limit, without reading it all and
// without holding more than a few records' worth of memory (issue 20: a
// gzip of zeros inflated into one 64 MiB line that the CSV reader held).
func TestDriveTestGzipBomb(t *testing.T) {
	cases := []struct {
		name string
		line []byte // repeated after the header
		want string
	}{
		{"one endless cell", bytes.Repeat([]byte("1"), 1<<20), "record longer than 128 KiB at line 2"},
		{"zeros", make([]byte, 1<<20), "record longer than 128 KiB at line 2"},
		{"an endless quoted field", append([]byte(`"`), bytes.Repeat([]byte("\n"), 1<<20-1)...), "record longer than 128 KiB at line 2"},
		{"blank lines", bytes.Repeat([]byte("\n"), 1<<20), "larger than 64 MiB once decompressed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			w, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
			w.Write([]byte("lat,lon,rsrp,freq_hz\n"))
			for written := 0; written <= observations.MaxDriveTestBytes; written += len(c.line) {
				w.Write(c.line)
			}
			w.Close()
			if b.Len() > 2<<20 {
				t.Fatalf("the bomb is %d bytes compressed", b.Len())
			}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, _, err := observations.ParseDriveTest(observations.DriveTest{CSV: bytes.NewReader(b.Bytes())})
			runtime.ReadMemStats(&after)
			var ve *appliance.ValidationError
			if !errors.As(err, &ve) || ve.Fields[0].Field != "csv_file" || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want csv_file: …%s", err, c.want)
			}
			// Blank lines are skipped as they stream through; a long record
			// is refused at 128 KiB: neither holds megabytes.
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
				t.Errorf("allocated %d MiB refusing the bomb, want < 8 MiB", alloc>>20)
			}
		})
	}
}
