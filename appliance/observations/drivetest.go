package observations

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/klauspost/compress/gzip"

	"linkplan/appliance"
)

// DriveTestSource is the source of the rows of a drive-test upload (SPEC
// §4.5).
const DriveTestSource = "drive_test"

// DriveTest is a drive-test upload (POST /coverage/observations/drivetest):
// a CSV file and the form fields that give its rows their context. A
// per-row column wins over the form field of the same quantity.
type DriveTest struct {
	CSV     io.Reader // plain or gzip-compressed CSV
	TowerID string
	Device  string // the measuring tool
	// Form fields; nil when absent. Gains, cable loss and RX height are
	// required (SPEC §8.2); the transmitter position and frequency may
	// come from per-row columns instead.
	TxLat, TxLon, TxHeightM, TxPowerDBm *float64
	TxGainDBi, RxGainDBi, CableLossDB   *float64
	RxHeightM, FreqHz                   *float64
	Consent                             *bool
}

// Column aliases, compared case-insensitively after trimming (SPEC §4.5 and
// the layouts of real drive-test exports such as the Dortmund LTE set:
// index,lon,lat,alt,speed,sinr,rsrp,rsrq,cellLon,cellLat,cellFreq).
var (
	latCols    = []string{"lat", "latitude"}
	lonCols    = []string{"lon", "lng", "longitude"}
	signalCols = []string{"signal_dbm", "rsrp", "rscp", "rxlev"} // in this order of preference
	txLatCols  = []string{"tx_lat", "celllat", "cell_lat"}
	txLonCols  = []string{"tx_lon", "celllon", "cell_lon"}
	tsCols     = []string{"ts", "timestamp", "time_unix"}
	// frequency columns and their unit factor to Hz
	freqCols = []struct {
		name   string
		factor float64
	}{{"freq_hz", 1}, {"band_mhz", 1e6}, {"frequency [mhz]", 1e6}, {"freq_mhz", 1e6}, {"cellfreq", 1e6}}
)

// csvLayout is the column index of each quantity (−1: absent).
type csvLayout struct {
	lat, lon, signal, txLat, txLon, freq, ts int
	metric                                   string
	freqFactor                               float64
}

func findCol(h []string, names ...string) int {
	for _, n := range names {
		for i, c := range h {
			if c == n {
				return i
			}
		}
	}
	return -1
}

func layout(header []string) (csvLayout, error) {
	h := make([]string, len(header))
	for i, c := range header {
		h[i] = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(c, "\ufeff")))
	}
	l := csvLayout{lat: findCol(h, latCols...), lon: findCol(h, lonCols...), txLat: findCol(h, txLatCols...),
		txLon: findCol(h, txLonCols...), ts: findCol(h, tsCols...), signal: -1, freq: -1}
	for _, n := range signalCols {
		if i := findCol(h, n); i >= 0 {
			l.signal, l.metric = i, n
			break
		}
	}
	for _, f := range freqCols {
		if i := findCol(h, f.name); i >= 0 {
			l.freq, l.freqFactor = i, f.factor
			break
		}
	}
	v := &appliance.ValidationError{}
	if l.lat < 0 {
		v.Add("csv_file", "needs a latitude column (lat or Latitude)")
	}
	if l.lon < 0 {
		v.Add("csv_file", "needs a longitude column (lon or Longitude)")
	}
	if l.signal < 0 {
		v.Add("csv_file", "needs a signal column (signal_dbm, rsrp, rscp or rxlev)")
	}
	return l, v.Err()
}

// rxlevDBm converts a GSM RXLEV value: an index 0..63 (3GPP TS 45.008:
// RXLEV n ≈ n − 110 dBm) becomes dBm; a negative value is taken as dBm.
func rxlevDBm(x float64) float64 {
	if x >= 0 && x <= 63 && x == math.Trunc(x) {
		return x - 110
	}
	return x
}

// openCSV returns a reader of the CSV, gunzipping it when it starts with
// the gzip magic number.
func openCSV(r io.Reader) (io.Reader, error) {
	br := bufio.NewReader(r)
	magic, _ := br.Peek(2)
	if bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, appliance.Invalid("csv_file", "is not a readable gzip file: %v", err)
		}
		return &capped{r: zr, left: MaxDriveTestBytes}, nil
	}
	return &capped{r: br, left: MaxDriveTestBytes}, nil
}

// MaxDriveTestBytes is the most bytes of CSV a drive test may hold once
// decompressed (64 MiB: 10,000 rows of any real export with room to
// spare); a compressed file that inflates beyond it is refused, so a small
// upload cannot expand into gigabytes.
const MaxDriveTestBytes = 64 << 20

// capped reads at most left bytes of r; reading more is an error naming
// csv_file.
type capped struct {
	r    io.Reader
	left int64
}

func (c *capped) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, appliance.Invalid("csv_file", "is larger than %d MiB once decompressed", MaxDriveTestBytes>>20)
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

// ParseDriveTest reads the rows of a drive-test upload into Inputs (at most
// MaxBatchRows; more is TooManyRows). Unparseable cells are named in the
// returned validation error as csv_file[LINE].COLUMN.
func ParseDriveTest(dt DriveTest) ([]Input, string, error) {
	if dt.CSV == nil {
		return nil, "", appliance.Invalid("csv_file", "is required (a CSV file part)")
	}
	src, err := openCSV(dt.CSV)
	if err != nil {
		return nil, "", err
	}
	cr := csv.NewReader(src)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	header, err := cr.Read()
	if errors.Is(err, appliance.ErrInvalid) {
		return nil, "", err
	}
	if err != nil {
		return nil, "", appliance.Invalid("csv_file", "has no header line: %v", err)
	}
	header = slices.Clone(header) // ReuseRecord: the next Read overwrites it
	l, err := layout(header)
	if err != nil {
		return nil, "", err
	}
	v := &appliance.ValidationError{}
	var rows []Input
	source := DriveTestSource
	line := 1
	for {
		rec, err := cr.Read()
		line++
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if errors.Is(err, appliance.ErrInvalid) { // the size cap
				return nil, "", err
			}
			v.Add(fmt.Sprintf("csv_file[%d]", line), "is not valid CSV: %v", err)
			break
		}
		if len(rows) == MaxBatchRows {
			return nil, "", TooManyRows(MaxBatchRows, true)
		}
		cell := func(i int, name string) *float64 {
			if i < 0 || i >= len(rec) || strings.TrimSpace(rec[i]) == "" {
				return nil
			}
			x, err := strconv.ParseFloat(strings.TrimSpace(rec[i]), 64)
			if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
				v.Add(fmt.Sprintf("csv_file[%d].%s", line, name), "is not a number")
				return nil
			}
			return &x
		}
		in := Input{Source: &source, TxHeightM: dt.TxHeightM, TxPowerDBm: dt.TxPowerDBm, TxGainDBi: dt.TxGainDBi,
			RxGainDBi: dt.RxGainDBi, CableLossDB: dt.CableLossDB, RxHeightM: dt.RxHeightM}
		if dt.TowerID != "" {
			id := dt.TowerID
			in.TowerID = &id
		}
		in.RxLat = cell(l.lat, header[l.lat])
		in.RxLon = cell(l.lon, header[l.lon])
		if sig := cell(l.signal, header[l.signal]); sig != nil {
			x := *sig
			if l.metric == "rxlev" {
				x = rxlevDBm(x)
			}
			in.ObservedDBm = &x
		}
		in.TxLat, in.TxLon = dt.TxLat, dt.TxLon
		if l.txLat >= 0 {
			in.TxLat = cell(l.txLat, header[l.txLat])
		}
		if l.txLon >= 0 {
			in.TxLon = cell(l.txLon, header[l.txLon])
		}
		in.FreqHz = dt.FreqHz
		if f := cell(l.freq, "freq"); f != nil {
			x := *f * l.freqFactor
			in.FreqHz = &x
		}
		in.TsUnix = cell(l.ts, "ts")
		rows = append(rows, in)
		if v.Full() {
			break
		}
	}
	if err := v.Err(); err != nil {
		return nil, "", err
	}
	if len(rows) == 0 {
		return nil, "", appliance.Invalid("csv_file", "holds no data row")
	}
	return rows, l.metric, nil
}

// SubmitDriveTest stores the rows of a drive-test upload as cell signal
// samples with source drive_test. The rows take the form fields' context;
// a row without ts gets the time of receipt.
func (s *Service) SubmitDriveTest(ctx context.Context, k *appliance.APIKey, dt DriveTest, c Client) (*Result, error) {
	if err := checkTier(k); err != nil {
		return nil, err
	}
	v0 := &appliance.ValidationError{}
	for _, f := range []struct {
		p    *float64
		name string
		need bool
	}{{dt.TxGainDBi, "tx_gain_dbi", true}, {dt.RxGainDBi, "rx_gain_dbi", true}, {dt.CableLossDB, "cable_loss_db", true},
		{dt.RxHeightM, "rx_height_m", true}, {dt.TxPowerDBm, "tx_power_dbm", true}, {dt.TxHeightM, "tx_height_m", dt.TowerID == ""}} {
		if f.need && f.p == nil {
			v0.Add(f.name, "is required: drive-test rows need explicit gains, cable loss, RX height and the transmitter's power and height (or tower_id for the height)")
		}
	}
	if err := v0.Err(); err != nil {
		return nil, fmt.Errorf("submit drive test: %w", err)
	}
	ins, metric, err := ParseDriveTest(dt)
	if err != nil {
		return nil, fmt.Errorf("submit drive test: %w", err)
	}
	now := s.cfg.Now()
	nowUnix := float64(now.UnixNano()) / 1e9
	v := &appliance.ValidationError{}
	rows := make([]appliance.Observation, 0, len(ins))
	for i, in := range ins {
		if in.TsUnix == nil {
			in.TsUnix = &nowUnix
		}
		o := row(v, fmt.Sprintf("csv_file[%d].", i+2), in, k, s.towers, now)
		o.Metric = metric
		rows = append(rows, o)
		if v.Full() {
			break
		}
	}
	if err := v.Err(); err != nil {
		return nil, fmt.Errorf("submit drive test: %w", err)
	}
	consent := dt.Consent != nil && *dt.Consent
	return s.save(ctx, k, appliance.KindCellSignalSample, rows, consent, false, SignatureUnsigned, truncate(dt.Device, 64), c, now)
}
