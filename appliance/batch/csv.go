package batch

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"

	"linkplan/appliance"
	"linkplan/appliance/sheetcsv"
)

// MaxCSVBytes is the largest CSV ParseCSV reads (the HTTP body limit of
// POST /batch_reports is 32 MiB).
const MaxCSVBytes = 64 << 20

// MaxCountedRows bounds how far ParseCSV counts the rows of a file over its
// limit, so that the 400 message states the real count.
const MaxCountedRows = 1_000_000

// Canonical column names (the JSON names of Row).
const (
	ColReceiverID  = "receiver_id"
	ColLat         = "lat"
	ColLon         = "lon"
	ColHeight      = "height_m"
	ColFreq        = "frequency_mhz"
	ColMaxDistance = "max_distance_km"
	ColRxGain      = "rx_gain_dbi"
	ColCableLoss   = "cable_loss_db"
	ColRxThreshold = "rx_threshold_dbm"
	ColAssumedEIRP = "assumed_eirp_dbm"
	ColOperator    = "operator"
	ColEngine      = "engine"
)

// aliases maps each canonical column to its accepted headers. Headers are
// compared after normalisation (sheetcsv.NormHeader): lower case, accents removed,
// everything but letters and digits dropped, so "Frequência (MHz)",
// "frequencia_mhz" and "FREQUENCIA MHZ" are the same header.
type alias struct {
	col     string
	headers []string
}

func aliasList() []alias {
	return []alias{
		{ColReceiverID, []string{"id", "receiver_id", "receiver", "name", "nome", "site", "cliente", "client", "customer"}},
		{ColLat, []string{"lat", "latitude", "latitud", "y", "lat_deg"}},
		{ColLon, []string{"lon", "lng", "long", "longitude", "longitud", "x", "lon_deg"}},
		{ColHeight, []string{"height", "height_m", "altura", "altura_m", "rx_height", "rx_height_m", "antenna_height", "antenna_height_m", "altura_antena"}},
		{ColFreq, []string{"frequency_mhz", "freq_mhz", "frequency", "freq", "frequencia", "frequencia_mhz", "frequência", "frequência_mhz"}},
		{ColMaxDistance, []string{"max_distance_km", "max_distance", "radius_km", "radius", "raio_km", "raio", "distance_km", "distancia_max_km"}},
		{ColRxGain, []string{"rx_gain_dbi", "rx_gain", "gain_dbi", "ganho", "ganho_dbi", "ganho_rx", "ganho_rx_dbi"}},
		{ColCableLoss, []string{"cable_loss_db", "cable_loss", "perda_cabo", "perda_cabo_db", "perda_db"}},
		{ColRxThreshold, []string{"rx_threshold_dbm", "rx_threshold", "threshold_dbm", "threshold", "sensibilidade", "sensibilidade_dbm", "limiar", "limiar_dbm"}},
		{ColAssumedEIRP, []string{"assumed_eirp_dbm", "assumed_eirp", "eirp", "eirp_dbm"}},
		{ColOperator, []string{"operator", "operadora", "operador", "carrier"}},
		{ColEngine, []string{"engine", "motor", "modelo", "propagation_engine"}},
	}
}

// Aliases returns the accepted headers of each canonical column (a copy),
// for documentation and error messages.
func Aliases() map[string][]string {
	out := map[string][]string{}
	for _, a := range aliasList() {
		out[a.col] = append([]string(nil), a.headers...)
	}
	return out
}

// aliasIndex maps normalised headers to canonical columns.
func aliasIndex() map[string]string {
	m := map[string]string{}
	for _, a := range aliasList() {
		for _, h := range a.headers {
			m[sheetcsv.NormHeader(h)] = a.col
		}
	}
	return m
}

// CSVFile is what ReadCSV found in a file.
type CSVFile struct {
	Rows []Row
	// Separator is the field separator detected from the header line.
	Separator rune
	// Encoding is "UTF-8" or "Windows-1252" (converted).
	Encoding string
	// Columns maps each recognised canonical column to the header that
	// gave it.
	Columns map[string]string
	// Unknown lists the headers that match no column, in file order: they
	// are ignored (a warning for the client).
	Unknown []string
}

// ParseCSV reads a batch CSV (doc.go, "CSV input") of at most maxRows data
// rows. See ReadCSV.
func ParseCSV(r io.Reader, maxRows int) ([]Row, error) {
	f, err := ReadCSV(r, maxRows)
	if err != nil {
		return nil, err
	}
	return f.Rows, nil
}

// ReadCSV reads a batch CSV of at most maxRows data rows. A bad value in a
// row does not reject the file: the row carries it in Row.Errors. The file
// is rejected with a *appliance.ValidationError (matching ErrInvalid) when
// it is empty, has no data rows, lacks a required column (lat, lon,
// frequency_mhz: named with the accepted headers), maps two headers to
// one column or holds a record longer than MaxRecordBytes; with a
// *LimitError (Tier empty) when it has more than maxRows data rows
// (counted up to MaxCountedRows); and wraps ErrInvalid when it exceeds
// MaxCSVBytes. An error of r is returned wrapped.
func ReadCSV(r io.Reader, maxRows int) (*CSVFile, error) {
	raw, err := io.ReadAll(io.LimitReader(r, MaxCSVBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read csv: %w", err)
	}
	return ReadCSVBytes(raw, maxRows)
}

// MaxRecordBytes is the longest record of a batch CSV (64 KiB: a line, or
// several when a quoted field holds line breaks; real rows are under
// 1 KiB). The CSV reader holds about three copies of a record, so one
// line of 32 MiB would have cost some 100 MB; such a file is refused
// before it is parsed.
const MaxRecordBytes = 64 << 10

// ReadCSVBytes is ReadCSV of a file already in memory; it does not keep
// raw.
func ReadCSVBytes(raw []byte, maxRows int) (*CSVFile, error) {
	if len(raw) > MaxCSVBytes {
		return nil, fmt.Errorf("read csv: the file is larger than %d bytes: %w", MaxCSVBytes, appliance.ErrInvalid)
	}
	out := &CSVFile{Columns: map[string]string{}}
	text := bytes.TrimPrefix(raw, []byte("\xef\xbb\xbf"))
	if line, n := longestRecord(text, byte(sheetcsv.DetectSeparator(text))); n > MaxRecordBytes {
		return nil, appliance.Invalid("file", "line %d starts a record longer than %d KiB (the limit; %d bytes or more)", line, MaxRecordBytes>>10, n)
	}
	if len(bytes.TrimSpace(text)) == 0 {
		return nil, appliance.Invalid("file", "is empty: a header line and at least one data row are expected")
	}
	cr, format := sheetcsv.OpenBytes(raw)
	out.Separator, out.Encoding = format.Separator, format.Encoding
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err != nil {
		return nil, appliance.Invalid("file", "unreadable header line: %v", err)
	}
	cols, err := mapHeader(header, out)
	if err != nil {
		return nil, err
	}
	count := 0
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, appliance.Invalid("file", "line %d: %v", count+2, err)
		}
		if blank(rec) {
			continue
		}
		count++
		if count > maxRows {
			if count >= MaxCountedRows {
				return nil, &LimitError{Limit: maxRows, Count: count, AtLeast: true}
			}
			continue
		}
		out.Rows = append(out.Rows, parseRecord(rec, cols))
	}
	if count > maxRows {
		return nil, &LimitError{Limit: maxRows, Count: count}
	}
	if count == 0 {
		return nil, appliance.Invalid("file", "has a header line but no data rows")
	}
	return out, nil
}

// longestRecord returns the line where the longest record of raw starts
// and its length in bytes, with records split as the CSV reader splits
// them (sheetcsv.Records). It stops once a record is longer than
// MaxRecordBytes.
func longestRecord(raw []byte, sep byte) (line, n int) {
	r := sheetcsv.NewRecords(sep)
	for _, c := range raw {
		if m := r.Feed(c); m > n {
			line, n = r.Line(), m
			if n > MaxRecordBytes {
				return line, n
			}
		}
	}
	return line, n
}

// blank reports whether every field of rec is empty or white space (Excel
// writes ";;;" lines for empty rows).
func blank(rec []string) bool {
	for _, f := range rec {
		if strings.TrimSpace(f) != "" {
			return false
		}
	}
	return true
}

// mapHeader maps header positions to canonical columns ("" ignored).
func mapHeader(header []string, out *CSVFile) ([]string, error) {
	idx := aliasIndex()
	cols := make([]string, len(header))
	v := &appliance.ValidationError{}
	for i, h := range header {
		col, ok := idx[sheetcsv.NormHeader(h)]
		if !ok {
			if strings.TrimSpace(h) != "" {
				out.Unknown = append(out.Unknown, h)
			}
			continue
		}
		if prev, dup := out.Columns[col]; dup {
			v.Add("header", "columns %q and %q are both %s", prev, h, col)
			continue
		}
		out.Columns[col] = h
		cols[i] = col
	}
	for _, col := range []string{ColLat, ColLon, ColFreq} {
		if _, ok := out.Columns[col]; !ok {
			var hs []string
			for _, a := range aliasList() {
				if a.col == col {
					hs = a.headers
				}
			}
			v.Add(col, "required column is missing (accepted headers: %s)", strings.Join(hs, ", "))
		}
	}
	sort.Strings(out.Unknown)
	return cols, v.Err()
}

// parseRecord converts one record; bad values go to Row.Errors.
func parseRecord(rec []string, cols []string) Row {
	var r Row
	num := func(col, s string) *float64 {
		s = strings.TrimSpace(s)
		if s == "" {
			return nil
		}
		x, ok := sheetcsv.ParseNumber(s)
		if !ok {
			if len(s) > 40 {
				s = s[:40] + "…"
			}
			r.Errors = append(r.Errors, appliance.FieldError{Field: col, Reason: fmt.Sprintf("not a number: %q", strings.ToValidUTF8(s, "?"))})
			return nil
		}
		return &x
	}
	for i, col := range cols {
		if col == "" || i >= len(rec) {
			continue
		}
		s := rec[i]
		switch col {
		case ColReceiverID:
			r.ReceiverID = clip(strings.TrimSpace(s), 128)
		case ColOperator:
			r.Operator = clip(strings.TrimSpace(s), 64)
		case ColEngine:
			r.Engine = clip(strings.TrimSpace(s), 64)
		case ColLat:
			r.Lat = num(col, s)
		case ColLon:
			r.Lon = num(col, s)
		case ColHeight:
			r.HeightM = num(col, s)
		case ColFreq:
			r.FreqMHz = num(col, s)
		case ColMaxDistance:
			r.MaxDistanceKm = num(col, s)
		case ColRxGain:
			r.RxGainDBi = num(col, s)
		case ColCableLoss:
			r.CableLossDB = num(col, s)
		case ColRxThreshold:
			r.RxThresholdDBm = num(col, s)
		case ColAssumedEIRP:
			r.AssumedEIRPDBm = num(col, s)
		}
	}
	return r
}

// clip cuts s to at most n bytes on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
