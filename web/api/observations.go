package api

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"reflect"
	"strconv"
	"strings"

	"github.com/gorilla/mux"

	"linkplan/appliance"
	"linkplan/appliance/observations"
	"linkplan/appliance/sheetcsv"
)

// Observations ingests drive-test observations (appliance/observations).
type Observations interface {
	Submit(ctx context.Context, k *appliance.APIKey, sub observations.Submission, c observations.Client) (*observations.Result, error)
	SubmitDriveTest(ctx context.Context, k *appliance.APIKey, dt observations.DriveTest, c observations.Client) (*observations.Result, error)
	Stats(k *appliance.APIKey) (appliance.ObservationCounts, error)
}

// Routes of the observation bodies (body.go: limits and content types).
const (
	routeObservationsBatch     = "/coverage/observations/batch"
	routeObservationsDriveTest = "/coverage/observations/drivetest"
)

// MaxObservationBodyBytes is the request body limit of the observation
// batch and drive-test routes (16 MiB): 10,000 rows of JSON or CSV with
// room to spare.
const MaxObservationBodyBytes = 16 << 20

func (a *API) registerObservations(r *mux.Router) {
	if a.Observations == nil {
		return
	}
	r.HandleFunc("/coverage/observations", a.wrap(a.ready(a.authed(a.postObservation)))).Methods(http.MethodPost)
	r.HandleFunc(routeObservationsBatch, a.wrap(a.ready(a.authed(a.postObservationBatch)))).Methods(http.MethodPost)
	r.HandleFunc(routeObservationsDriveTest, a.wrap(a.ready(a.authed(a.postDriveTest)))).Methods(http.MethodPost)
	r.HandleFunc("/coverage/observations/stats", a.wrap(a.ready(a.authed(a.observationStats)))).Methods(http.MethodGet)
}

// observationJSON is one observation on the wire (SPEC §2.7).
type observationJSON struct {
	TowerID     *string  `json:"tower_id"`
	TxLat       *float64 `json:"tx_lat"`
	TxLon       *float64 `json:"tx_lon"`
	TxHeightM   *float64 `json:"tx_height_m"`
	TxPowerDBm  *float64 `json:"tx_power_dbm"`
	TxGainDBi   *float64 `json:"tx_gain_dbi"`
	RxLat       *float64 `json:"rx_lat"`
	RxLon       *float64 `json:"rx_lon"`
	RxHeightM   *float64 `json:"rx_height_m"`
	RxGainDBi   *float64 `json:"rx_gain_dbi"`
	CableLossDB *float64 `json:"cable_loss_db"`
	// FrequencyMHz is the carrier frequency, MHz; freq_hz (Hz, SPEC
	// §2.7's name) is its deprecated name (renames.go).
	FrequencyMHz *float64 `json:"frequency_mhz"`
	FreqHz       *float64 `json:"freq_hz" deprecated:"frequency_mhz,div=1e6"`
	ObservedDBm  *float64 `json:"observed_dbm"`
	Source       *string  `json:"source"`
	Ts           *tsJSON  `json:"ts"`
}

// tsJSON is an observation's ts: epoch seconds as a JSON number, or a
// string that observations.ParseTs reads (RFC 3339 / ISO 8601 with its UTC
// offset, or epoch seconds); any other JSON type is a 422 naming ts.
type tsJSON struct {
	unix *float64
	text *string
}

func (t *tsJSON) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		t.text = &s
		return nil
	}
	var x float64
	if err := json.Unmarshal(b, &x); err != nil {
		return &json.UnmarshalTypeError{Value: string(b), Type: reflect.TypeFor[float64]()}
	}
	t.unix = &x
	return nil
}

func (o *observationJSON) input() observations.Input {
	in := observations.Input{TowerID: o.TowerID, TxLat: o.TxLat, TxLon: o.TxLon, TxHeightM: o.TxHeightM, TxPowerDBm: o.TxPowerDBm,
		TxGainDBi: o.TxGainDBi, RxLat: o.RxLat, RxLon: o.RxLon, RxHeightM: o.RxHeightM, RxGainDBi: o.RxGainDBi,
		CableLossDB: o.CableLossDB, FreqMHz: o.FrequencyMHz, ObservedDBm: o.ObservedDBm, Source: o.Source}
	if o.Ts != nil {
		in.TsUnix, in.TsText = o.Ts.unix, o.Ts.text
	}
	return in
}

// singleObservation is the body of POST /coverage/observations: one
// observation, with an optional consent declaration.
type singleObservation struct {
	renamed
	observationJSON
	ConsentForTraining     *bool `json:"consent_for_training"`
	ConsentForWispTraining *bool `json:"consent_for_wisp_training"`
}

type observationBatch struct {
	renamed
	Observations           []observationJSON `json:"observations"`
	ConsentForTraining     *bool             `json:"consent_for_training"`
	ConsentForWispTraining *bool             `json:"consent_for_wisp_training"`
}

func obsClient(r *http.Request, route string) observations.Client {
	return observations.Client{IP: clientIP(r), UserAgent: r.UserAgent(), RequestID: requestID(r.Context()), Route: route}
}

// ObservationResultJSON is the answer of the observation routes: the
// service's result and the request's warnings (deprecated_field).
type ObservationResultJSON struct {
	*observations.Result
	Warnings []appliance.Warning `json:"warnings,omitempty"`
}

// postObservation is POST /coverage/observations.
func (a *API) postObservation(w http.ResponseWriter, r *http.Request) (any, error) {
	var q singleObservation
	if err := decode(r, &q); err != nil {
		return nil, err
	}
	res, err := a.Observations.Submit(r.Context(), keyFrom(r.Context()), observations.Submission{
		Rows: []observations.Input{q.input()}, Consent: q.ConsentForTraining, WispConsent: q.ConsentForWispTraining}, obsClient(r, "/coverage/observations"))
	if err != nil {
		return nil, err
	}
	return ObservationResultJSON{Result: res, Warnings: q.renames()}, nil
}

// postObservationBatch is POST /coverage/observations/batch: the raw body
// is kept for the signature check.
func (a *API) postObservationBatch(w http.ResponseWriter, r *http.Request) (any, error) {
	body, err := readBody(r)
	if err != nil {
		return nil, err
	}
	if path, n := longArray(body, observations.MaxBatchRows); path == "observations" {
		return nil, observations.TooManyRows(observations.MaxBatchRows, n > observations.MaxBatchRows)
	}
	var q observationBatch
	if err := decodeBytes(body, &q, observations.MaxBatchRows); err != nil {
		return nil, err
	}
	if q.Observations == nil {
		return nil, appliance.Invalid("observations", "is required: an array of observations")
	}
	rows := make([]observations.Input, len(q.Observations))
	for i := range q.Observations {
		rows[i] = q.Observations[i].input()
	}
	res, err := a.Observations.Submit(r.Context(), keyFrom(r.Context()), observations.Submission{
		Rows: rows, Consent: q.ConsentForTraining, WispConsent: q.ConsentForWispTraining, Prefix: "observations", Body: body,
		Signature: r.Header.Get("X-Observation-Signature"), SignatureTs: r.Header.Get("X-Observation-Signature-Ts"),
		APIKey: r.Header.Get("X-API-Key")}, obsClient(r, routeObservationsBatch))
	if err != nil {
		return nil, err
	}
	return ObservationResultJSON{Result: res, Warnings: q.renames()}, nil
}

// driveTestParts are the form parts of a drive-test upload besides the
// file, with the field each fills.
var driveTestParts = []string{"tower_id", "device", "tx_lat", "tx_lon", "tx_height_m", "tx_power_dbm", "tx_gain_dbi",
	"rx_gain_dbi", "cable_loss_db", "rx_height_m", "frequency_mhz", "freq_hz", "consent_for_training"}

// postDriveTest is POST /coverage/observations/drivetest (multipart/form-
// data: csv_file and the context fields).
func (a *API) postDriveTest(w http.ResponseWriter, r *http.Request) (any, error) {
	dt, warnings, err := readDriveTest(r)
	if err != nil {
		return nil, err
	}
	res, err := a.Observations.SubmitDriveTest(r.Context(), keyFrom(r.Context()), dt, obsClient(r, routeObservationsDriveTest))
	if err != nil {
		return nil, err
	}
	return ObservationResultJSON{Result: res, Warnings: warnings}, nil
}

// readDriveTest reads the parts of a drive-test upload; the warnings are
// those of deprecated part names (freq_hz: frequency_mhz).
func readDriveTest(r *http.Request) (observations.DriveTest, []appliance.Warning, error) {
	var (
		dt       observations.DriveTest
		warnings []appliance.Warning
	)
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		return dt, nil, &httpError{status: http.StatusUnsupportedMediaType, code: "unsupported_media_type",
			msg:    "a drive test is multipart/form-data with the CSV in the part csv_file",
			fields: []appliance.FieldError{{Field: "Content-Type", Reason: "must be multipart/form-data with a boundary"}}}
	}
	mr := multipart.NewReader(r.Body, params["boundary"])
	lease := bodyFrom(r.Context()).lease
	dt.Memory = lease // the service charges its gzip stream to it
	v := &appliance.ValidationError{}
	seen := map[string]bool{}
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return dt, nil, multipartErr(err)
		}
		name := p.FormName()
		if name == "" {
			v.Add(unnamedPart, "has no name: every part needs Content-Disposition: form-data; name=\"…\"")
			_ = p.Close()
			continue
		}
		if seen[name] {
			v.Add(truncate(name, 40), "must be given once")
			_ = p.Close()
			continue
		}
		seen[name] = true
		if name == "csv_file" {
			b, err := lease.ReadAll(p, r.ContentLength, "the csv_file part") // the body's length bounds the part's
			if err != nil {
				return dt, nil, multipartErr(err)
			}
			dt.CSV = bytes.NewReader(b)
			continue
		}
		known := false
		for _, k := range driveTestParts {
			known = known || k == name
		}
		if !known {
			v.Add(truncate(name, 40), "is not a known part (csv_file, %s)", strings.Join(driveTestParts, ", "))
			_ = p.Close()
			continue
		}
		b, err := io.ReadAll(io.LimitReader(p, 129))
		if err != nil {
			return dt, nil, multipartErr(err)
		}
		if len(b) > 128 {
			v.Add(name, "must be at most 128 bytes")
			continue
		}
		s := strings.TrimSpace(string(b))
		switch name {
		case "tower_id":
			dt.TowerID = s
		case "device":
			dt.Device = s
		case "consent_for_training":
			c, err := strconv.ParseBool(s)
			if err != nil {
				v.Add(name, "must be true or false")
			}
			dt.Consent = &c
		default:
			x, ok := decimal(s)
			if !ok {
				v.Add(name, "must be a finite decimal number (like -22.95, -22,95 or 1.8e9), got %q", truncate(s, 40))
				continue
			}
			if name == "freq_hz" { // deprecated: frequency_mhz, in MHz
				name, x = "frequency_mhz", x/1e6
				warnings = append(warnings, appliance.Warning{Code: appliance.WarnDeprecatedField,
					Message: "freq_hz is a deprecated name, read as frequency_mhz: send frequency_mhz (MHz), the old name will be removed"})
			}
			*map[string]**float64{"tx_lat": &dt.TxLat, "tx_lon": &dt.TxLon, "tx_height_m": &dt.TxHeightM,
				"tx_power_dbm": &dt.TxPowerDBm, "tx_gain_dbi": &dt.TxGainDBi, "rx_gain_dbi": &dt.RxGainDBi,
				"cable_loss_db": &dt.CableLossDB, "rx_height_m": &dt.RxHeightM, "frequency_mhz": &dt.FreqMHz}[name] = &x
		}
	}
	if err := v.Err(); err != nil {
		return dt, nil, err
	}
	if dt.CSV == nil {
		return dt, nil, appliance.Invalid("csv_file", "is required: the CSV file as the form part named csv_file")
	}
	if seen["freq_hz"] && seen["frequency_mhz"] {
		return dt, nil, appliance.Invalid("freq_hz", "is the deprecated name of frequency_mhz, also given: send frequency_mhz only")
	}
	return dt, warnings, nil
}

// decimal parses a form field as a finite decimal number, with a decimal
// point or a decimal comma ("43,5", as spreadsheets and pt-BR users write
// it: sheetcsv.ParseNumber). Only digits, signs, '.', ',' and an exponent
// are taken: strconv.ParseFloat alone also reads "NaN", "Inf",
// hexadecimal ("0x1p-2") and digit separators ("1_000"), which no
// drive-test tool writes.
func decimal(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	for i := 0; i < len(s); i++ {
		if strings.IndexByte("0123456789+-.,eE", s[i]) < 0 {
			return 0, false
		}
	}
	return sheetcsv.ParseNumber(s)
}

// observationStats is GET /coverage/observations/stats.
func (a *API) observationStats(w http.ResponseWriter, r *http.Request) (any, error) {
	return a.Observations.Stats(keyFrom(r.Context()))
}
