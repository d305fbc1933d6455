package batch

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/klauspost/compress/zip"

	"linkplan/appliance"
	"linkplan/appliance/geoexport"
)

// MaxResultsCSVBytes caps the results.csv ReadResults reads (a 100,000-row
// job writes about 25 MB).
const MaxResultsCSVBytes = 256 << 20

// ReadResults reads the rows of results.csv back from a job bundle (the
// zip of size bytes at r): the fields of RowResult that results.csv holds
// (not the field errors of a bad row). A bundle without results.csv, or a
// results.csv whose header is not ResultColumns, is an error matching
// appliance.ErrInvalid.
func ReadResults(r io.ReaderAt, size int64) ([]RowResult, error) {
	z, err := zip.NewReader(r, size)
	if err != nil {
		return nil, fmt.Errorf("read bundle: %w: %w", appliance.ErrInvalid, err)
	}
	f, err := z.Open(FileResultsCSV)
	if err != nil {
		return nil, fmt.Errorf("read bundle: no %s: %w", FileResultsCSV, appliance.ErrInvalid)
	}
	defer f.Close()
	cr := csv.NewReader(io.LimitReader(f, MaxResultsCSVBytes))
	head, err := cr.Read()
	if h := strings.Join(head, ","); err != nil || h != strings.Join(ResultColumns(), ",") && h != strings.Join(legacyResultColumns(), ",") {
		return nil, fmt.Errorf("read bundle: %s header is not the expected columns: %w", FileResultsCSV, appliance.ErrInvalid)
	}
	cr.FieldsPerRecord = len(head)
	var out []RowResult
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read bundle: %s: %w: %w", FileResultsCSV, appliance.ErrInvalid, err)
		}
		row, err := parseResult(rec)
		if err != nil {
			return nil, fmt.Errorf("read bundle: %s line %d: %w", FileResultsCSV, len(out)+2, err)
		}
		out = append(out, row)
	}
}

// parseResult maps one results.csv record (ResultColumns order, or the
// legacy columns without the caveats) onto a RowResult. Warnings of a
// legacy record, which kept only the codes, have no message.
func parseResult(rec []string) (RowResult, error) {
	var bad error
	num := func(s string) *float64 {
		if s == "" {
			return nil
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil && bad == nil {
			bad = fmt.Errorf("%q is not a number: %w", s, appliance.ErrInvalid)
		}
		return &v
	}
	n, err := strconv.Atoi(rec[0])
	if err != nil || n < 1 {
		return RowResult{}, fmt.Errorf("row %q: %w", rec[0], appliance.ErrInvalid)
	}
	txt := geoexport.SpreadsheetText // text cells were written with SpreadsheetSafe
	r := RowResult{Index: n - 1, Row: n, ReceiverID: txt(rec[1]), Lat: num(rec[2]), Lon: num(rec[3]), HeightM: num(rec[4]), FreqMHz: num(rec[5]),
		MaxDistanceKm: num(rec[6]), RxGainDBi: num(rec[7]), CableLossDB: num(rec[8]), RxThresholdDBm: num(rec[9]), AssumedEIRPDBm: num(rec[10]),
		OperatorFilter: txt(rec[11]), TowerID: txt(rec[12]), Operator: txt(rec[13]), DistanceKm: num(rec[14]), AzimuthDeg: num(rec[15]),
		RxPowerDBm: num(rec[16]), MarginDB: num(rec[17]), EIRPAssumed: rec[18] == "true", Engine: txt(rec[19]), EngineVersion: txt(rec[20]),
		Status: txt(rec[21]), Reason: txt(rec[23])}
	var messages []string
	if len(rec) > 26 {
		r.Synthetic = rec[24] == "true"
		r.PositionUncertaintyM = num(rec[25])
		if m := txt(rec[26]); m != "" {
			messages = strings.Split(m, WarningMessageSep)
		}
	}
	if c := txt(rec[22]); c != "" {
		codes := strings.Split(c, ";")
		for i, c := range codes {
			w := appliance.Warning{Code: c}
			if len(messages) == len(codes) {
				w.Message = messages[i]
			}
			r.Warnings = append(r.Warnings, w)
		}
	}
	return r, bad
}
