package observations

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/klauspost/compress/gzip"

	"linkplan/appliance"
	"linkplan/appliance/decodebudget"
	"linkplan/appliance/sheetcsv"
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
	RxHeightM, FreqMHz                  *float64
	Consent                             *bool
	// Memory is the request's lease on the appliance-wide decode budget,
	// charged when the CSV is a gzip stream; nil charges nothing (the
	// command-line tools).
	Memory *decodebudget.Lease
	// MaxRows is the most data rows read; more is refused whole. 0 is
	// MaxBatchRows, the upload's cap per request (TooManyRows); the
	// command-line evaluations read longer files.
	MaxRows int
	// MaxBytes is the most bytes of CSV read once decompressed; more is
	// refused, naming csv_file. 0 is MaxDriveTestBytes.
	MaxBytes int64
}

// Column aliases, compared after sheetcsv.NormHeader (case, accents and
// punctuation folded: "LATITUDE", "Frequency [MHz]" and "frequency_mhz"
// match), from SPEC §4.5 and the layouts of real drive-test exports such as
// the Dortmund LTE set: index,lon,lat,alt,speed,sinr,rsrp,rsrq,cellLon,
// cellLat,cellFreq.
var (
	latCols    = []string{"lat", "latitude"}
	lonCols    = []string{"lon", "lng", "longitude"}
	signalCols = []string{"signal_dbm", "rsrp", "rscp", "rxlev"} // in this order of preference
	txLatCols  = []string{"tx_lat", "celllat", "cell_lat"}
	txLonCols  = []string{"tx_lon", "celllon", "cell_lon"}
	tsCols     = []string{"ts", "timestamp", "time_unix"}
	altCols    = []string{"alt", "altitude", "elevation"}
	// frequency columns and the divisor of their unit to MHz
	freqCols = []struct {
		name    string
		divisor float64
	}{{"freq_hz", 1e6}, {"frequency_mhz", 1}, {"band_mhz", 1}, {"frequency [mhz]", 1}, {"freq_mhz", 1},
		{"frequencia_mhz", 1}, {"cellfreq", 1}}
)

// csvLayout is the column index of each quantity (−1: absent).
type csvLayout struct {
	lat, lon, signal, txLat, txLon, freq, ts, alt int
	metric                                        string
	freqDivisor                                   float64
}

// findCol returns the index of the first header (normalised) that is one
// of names, in the order of names; −1 when none is.
func findCol(h []string, names ...string) int {
	for _, n := range names {
		n = sheetcsv.NormHeader(n)
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
		h[i] = sheetcsv.NormHeader(c)
	}
	l := csvLayout{lat: findCol(h, latCols...), lon: findCol(h, lonCols...), txLat: findCol(h, txLatCols...),
		txLon: findCol(h, txLonCols...), ts: findCol(h, tsCols...), alt: findCol(h, altCols...), signal: -1, freq: -1}
	for _, n := range signalCols {
		if i := findCol(h, n); i >= 0 {
			l.signal, l.metric = i, n
			break
		}
	}
	for _, f := range freqCols {
		if i := findCol(h, f.name); i >= 0 {
			l.freq, l.freqDivisor = i, f.divisor
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
// the gzip magic number, capped at maxBytes in all and
// MaxDriveTestRecordBytes per record (records split as the CSV reader
// splits them, with the separator of the header line). A gzip stream is
// charged to mem (the appliance-wide decode budget) for the inflater's
// state and the longest record the CSV reader may then hold.
func openCSV(r io.Reader, mem *decodebudget.Lease, maxBytes int64) (io.Reader, error) {
	br := bufio.NewReader(r)
	magic, _ := br.Peek(2)
	var src io.Reader = br
	if bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		if err := mem.Grow(inflateBytes+3*MaxDriveTestRecordBytes, "the gzip csv_file"); err != nil {
			return nil, err
		}
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, appliance.Invalid("csv_file", "is not a readable gzip file (its header is damaged)")
		}
		src = &gunzipped{r: zr}
	}
	text := bufio.NewReaderSize(&capped{r: src, left: maxBytes, max: maxBytes}, driveTestSniff)
	head, _ := text.Peek(driveTestSniff) // the header line decides the separator, as in sheetcsv.Open
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	return &recordCapped{r: text, records: sheetcsv.NewRecords(byte(sheetcsv.DetectSeparator(head)))}, nil
}

// gunzipped reads a gzip stream and words its failures for the client: a
// damaged stream is a validation error naming csv_file, not the
// decompressor's own text ("flate: corrupt input before offset 5").
type gunzipped struct {
	r    io.Reader
	read int64
}

func (g *gunzipped) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	g.read += int64(n)
	if err != nil && !errors.Is(err, io.EOF) {
		return n, appliance.Invalid("csv_file", "is a damaged gzip file (it cannot be read past %d bytes of CSV)", g.read)
	}
	return n, err
}

// MaxDriveTestBytes is the most bytes of CSV a drive test may hold once
// decompressed (64 MiB: 10,000 rows of any real export with room to
// spare); a compressed file that inflates beyond it is refused, so a small
// upload cannot expand into gigabytes.
const MaxDriveTestBytes = 64 << 20

// MaxDriveTestRecordBytes is the longest record (one CSV line, or several
// when a quoted field holds line breaks) a drive test may hold (128 KiB:
// real exports with hundreds of columns stay under 8 KiB). The CSV reader
// holds a whole record in memory, about three copies of it; without this
// cap a gzip of zeros, which inflates to one 64 MiB line, held some
// 150 MB per request (issue 20: 8 such uploads at once reached 1.21 GB).
const MaxDriveTestRecordBytes = 128 << 10

// inflateBytes is what one gzip reader holds (its 32 KiB window, Huffman
// tables and buffers), charged to the decode budget, rounded up.
const inflateBytes = 128 << 10

// capped reads at most left bytes of r (max in all); reading more is an
// error naming csv_file.
type capped struct {
	r         io.Reader
	left, max int64
}

func (c *capped) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, appliance.Invalid("csv_file", "is larger than %s once decompressed", decodebudget.Size(c.max))
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

// recordCapped refuses a record longer than MaxDriveTestRecordBytes,
// naming csv_file and the line where it starts, before the CSV reader
// holds it.
type recordCapped struct {
	r       io.Reader
	records *sheetcsv.Records
}

func (c *recordCapped) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	for _, b := range p[:n] {
		if c.records.Feed(b) > MaxDriveTestRecordBytes {
			return 0, appliance.Invalid("csv_file", "has a record longer than %s at line %d (a CSV line, or a quoted field with line breaks)",
				decodebudget.Size(MaxDriveTestRecordBytes), c.records.Line())
		}
	}
	return n, err
}

// driveTestSniff is how many bytes of a drive test decide its encoding and
// separator (sheetcsv.Open).
const driveTestSniff = 64 << 10

// ParseDriveTest reads the rows of a drive-test upload into Inputs (at most
// MaxBatchRows; more is TooManyRows). It reads what spreadsheets write, as
// the batch upload does (appliance/sheetcsv): ',', ';' or tab separators,
// decimal commas, UTF-8 or Windows-1252, headers in any case. ts cells are
// epoch seconds or RFC 3339 times (ParseTs). Unparseable cells are named in
// the returned validation error as csv_file[LINE].COLUMN.
func ParseDriveTest(dt DriveTest) ([]Input, string, error) {
	rows, metric, _, err := parseDriveTestRows(dt, false)
	return rows, metric, err
}

// DriveTestRows is ParseDriveTest for the command-line evaluations, which
// score what a file holds rather than refuse it:
//   - a row with a cell that is not a number in a column the rows are
//     scored with (positions, signal, frequency) is skipped and counted
//     (RowSkips.NotNumber), not named in an error;
//   - so is a row whose signal is outside its plausible range
//     (SignalRange; RowSkips.Signal), e.g. Android's "unavailable"
//     2147483647, or 0 or a 3GPP index in an rsrp column;
//   - a ts or altitude cell that cannot be read (a local time without a
//     UTC offset, "n/a") leaves TsUnix or RxAltM nil and keeps the row:
//     the evaluations score neither (ParseDriveTest refuses such a ts).
//
// The file's framing (header, CSV syntax, the record cap) is checked as
// ParseDriveTest checks it, with dt.MaxRows and dt.MaxBytes as the caps.
// The rows also carry the receiver's altitude (Input.RxAltM) from an alt,
// altitude or elevation column.
func DriveTestRows(dt DriveTest) (rows []Input, skips RowSkips, err error) {
	rows, _, skips, err = parseDriveTestRows(dt, true)
	return rows, skips, err
}

// RowSkips counts the rows DriveTestRows skipped, by cause.
type RowSkips struct {
	// NotNumber counts the rows with a cell that is not a number, by the
	// header of the first such cell of each.
	NotNumber map[string]int
	// Signal counts the rows whose signal is outside SignalRange.
	Signal int
}

// Total is the number of rows skipped.
func (s RowSkips) Total() int {
	n := s.Signal
	for _, c := range s.NotNumber {
		n += c
	}
	return n
}

// Signal ranges of the command-line evaluations (SignalRange), dBm: the
// upload's range of observed_dbm (row), and within it the highest value a
// UE reports as RSRP (3GPP TS 38.133 SS-RSRP_127, "−31 dBm or more"; TS
// 36.133 LTE stops at −44) and as UMTS CPICH RSCP (TS 25.133, −25 dBm).
const (
	MinObservedDBm = -150.0
	MaxObservedDBm = 30.0
	MaxRSRPDBm     = -31.0
	MaxRSCPDBm     = -25.0
)

// SignalRange is the plausible range, dBm, of a drive test's signal
// column metric (signal_dbm, rsrp, rscp or rxlev, after rxlevDBm): the
// upload's −150..30 dBm, at most MaxRSRPDBm for rsrp and MaxRSCPDBm for
// rscp. A value outside it is no measurement: a logger's placeholder
// (2147483647, 0) or a report index written instead of dBm.
func SignalRange(metric string) (lo, hi float64) {
	switch metric {
	case "rsrp":
		return MinObservedDBm, MaxRSRPDBm
	case "rscp":
		return MinObservedDBm, MaxRSCPDBm
	}
	return MinObservedDBm, MaxObservedDBm
}

func parseDriveTestRows(dt DriveTest, lenient bool) ([]Input, string, RowSkips, error) {
	var none RowSkips
	if dt.CSV == nil {
		return nil, "", none, appliance.Invalid("csv_file", "is required (a CSV file part)")
	}
	maxRows, maxBytes := dt.MaxRows, dt.MaxBytes
	if maxRows <= 0 {
		maxRows = MaxBatchRows
	}
	if maxBytes <= 0 {
		maxBytes = MaxDriveTestBytes
	}
	records := 0
	src, err := openCSV(dt.CSV, dt.Memory, maxBytes)
	if err != nil {
		return nil, "", none, err
	}
	cr, _, err := sheetcsv.Open(src, driveTestSniff)
	if errors.Is(err, appliance.ErrInvalid) { // the size cap
		return nil, "", none, err
	}
	if err != nil {
		return nil, "", none, appliance.Invalid("csv_file", "could not be read: %v", err)
	}
	cr.ReuseRecord = true
	header, err := cr.Read()
	if errors.Is(err, appliance.ErrInvalid) {
		return nil, "", none, err
	}
	if err != nil {
		return nil, "", none, appliance.Invalid("csv_file", "has no header line: %v", err)
	}
	header = slices.Clone(header) // ReuseRecord: the next Read overwrites it
	l, err := layout(header)
	if err != nil {
		return nil, "", none, err
	}
	v := &appliance.ValidationError{}
	var rows []Input
	skips := RowSkips{NotNumber: map[string]int{}}
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
				return nil, "", none, err
			}
			v.Add(fmt.Sprintf("csv_file[%d]", line), "is not valid CSV: %v", err)
			break
		}
		if blankRecord(rec) { // spreadsheets write ";;;" for empty rows
			continue
		}
		records++ // data rows, kept or skipped: MaxRows counts what is read
		if records > maxRows {
			if maxRows == MaxBatchRows {
				return nil, "", none, TooManyRows(MaxBatchRows, true)
			}
			return nil, "", none, appliance.Invalid("csv_file", "holds more than %d data rows", maxRows)
		}
		text := func(i int) string {
			if i < 0 || i >= len(rec) {
				return ""
			}
			return strings.TrimSpace(rec[i])
		}
		bad := "" // the header of the first cell that is not a number
		cell := func(i int, name string) *float64 {
			s := text(i)
			if s == "" {
				return nil
			}
			x, ok := sheetcsv.ParseNumber(s)
			if !ok {
				if bad == "" {
					bad = name
				}
				if !lenient {
					v.Add(fmt.Sprintf("csv_file[%d].%s", line, name), "is not a number")
				}
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
		in.FreqMHz = dt.FreqMHz
		freqName := "freq"
		if l.freq >= 0 {
			freqName = header[l.freq]
		}
		if f := cell(l.freq, freqName); f != nil {
			x := *f / l.freqDivisor
			in.FreqMHz = &x
		}
		if s := text(l.ts); s != "" {
			x, err := ParseTs(s)
			switch {
			case err == nil:
				in.TsUnix = &x
			case !lenient:
				v.Add(fmt.Sprintf("csv_file[%d].%s", line, header[l.ts]), "%v", err)
			} // lenient: the row is kept without its time (DriveTestRows)
		}
		if lenient && l.alt >= 0 {
			if x, ok := sheetcsv.ParseNumber(text(l.alt)); ok {
				in.RxAltM = &x // lenient: unreadable, the row is kept without it
			}
		}
		if lenient && bad != "" {
			skips.NotNumber[bad]++
			continue
		}
		if lenient && in.ObservedDBm != nil {
			if lo, hi := SignalRange(l.metric); !(*in.ObservedDBm >= lo && *in.ObservedDBm <= hi) {
				skips.Signal++
				continue
			}
		}
		rows = append(rows, in)
		if v.Full() {
			break
		}
	}
	if err := v.Err(); err != nil {
		return nil, "", none, err
	}
	if len(rows) == 0 && !(lenient && skips.Total() > 0) {
		return nil, "", none, appliance.Invalid("csv_file", "holds no data row")
	}
	return rows, l.metric, skips, nil
}

// blankRecord reports whether every field of rec is empty or white space.
func blankRecord(rec []string) bool {
	for _, f := range rec {
		if strings.TrimSpace(f) != "" {
			return false
		}
	}
	return true
}

// SubmitDriveTest stores the rows of a drive-test upload as cell signal
// samples with source drive_test. The rows take the form fields' context,
// and with tower_id the tower's position, height, and transmitter power
// and gain when its record states them (a form field wins); a row without
// ts gets the time of receipt.
func (s *Service) SubmitDriveTest(ctx context.Context, k *appliance.APIKey, dt DriveTest, c Client) (*Result, error) {
	if err := checkTier(k); err != nil {
		return nil, err
	}
	v0 := &appliance.ValidationError{}
	// With tower_id, the transmitter's height, and its power and gain when
	// the tower's record states them (regulator licences), come from the
	// tower: it is looked up once here, so that a missing one is named
	// once, not on every row.
	var tw *appliance.Tower
	if dt.TowerID != "" && (dt.TxPowerDBm == nil || dt.TxGainDBi == nil) {
		t, ok := s.towers(k, dt.TowerID)
		if !ok {
			v0.Add("tower_id", "no tower %q is visible to this key (give tx_lat, tx_lon, tx_height_m, tx_power_dbm and tx_gain_dbi instead)", truncate(dt.TowerID, 64))
		}
		tw = t
	}
	fromTower := tw != nil && tw.HasTx
	for _, f := range []struct {
		p    *float64
		name string
		need bool
	}{{dt.TxGainDBi, "tx_gain_dbi", !fromTower}, {dt.RxGainDBi, "rx_gain_dbi", true}, {dt.CableLossDB, "cable_loss_db", true},
		{dt.RxHeightM, "rx_height_m", true}, {dt.TxPowerDBm, "tx_power_dbm", !fromTower}, {dt.TxHeightM, "tx_height_m", dt.TowerID == ""}} {
		switch {
		case !f.need || f.p != nil:
		case tw != nil && (f.name == "tx_power_dbm" || f.name == "tx_gain_dbi"):
			v0.Add(f.name, "is required: tower %q has no transmitter power and gain on record", truncate(dt.TowerID, 64))
		default:
			v0.Add(f.name, "is required: drive-test rows need explicit gains, cable loss, RX height and the transmitter's power and height (or a tower_id whose record has them)")
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
