package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"linkplan/appliance"
	"linkplan/appliance/batch"
	"linkplan/appliance/report"
)

// BatchSubmitter runs batch reports (appliance/batch): at most
// batch.SyncMaxRows rows synchronously, more as a queued job.
type BatchSubmitter interface {
	Submit(ctx context.Context, key *appliance.APIKey, rows []batch.Row, opt batch.Options) (*batch.SyncResult, *appliance.Job, error)
}

func (a *API) registerBatch(r *mux.Router) {
	r.HandleFunc(routeBatchReports, a.wrap(a.ready(a.authed(a.batchReports)))).Methods(http.MethodPost)
}

// batchRowJSON is one row of a JSON batch: the body of /analyze_link per
// row, plus an optional id.
type batchRowJSON struct {
	ID *string `json:"id"`
	LinkFieldsJSON
}

// batchOptionsJSON are the options of a batch.
type batchOptionsJSON struct {
	Engine   *string `json:"engine"`
	Language *string `json:"language"`
	PDFs     *bool   `json:"pdfs"`
}

type batchRequestJSON struct {
	renamed
	Rows    []batchRowJSON    `json:"rows"`
	Options *batchOptionsJSON `json:"options"`
}

// BatchSyncJSON is the 200 answer of a batch of at most 100 rows.
type BatchSyncJSON struct {
	Rows   []batch.RowResult `json:"rows"`
	Counts batch.Counts      `json:"counts"`
	// IgnoredColumns are the CSV header cells that matched no known
	// column (absent for JSON).
	IgnoredColumns []string `json:"ignored_columns,omitempty"`
	// Warnings are those of the request (deprecated_field); absent when
	// none.
	Warnings []appliance.Warning `json:"warnings,omitempty"`
}

// BatchAcceptedJSON is the 202 answer of a queued batch: the job object
// exactly as GET /jobs/{id} (Location) answers it, so a client reads both
// alike (issue 20), plus the CSV's ignored columns.
type BatchAcceptedJSON struct {
	JobJSON
	IgnoredColumns []string `json:"ignored_columns,omitempty"`
	// Warnings are those of the request (deprecated_field); absent when
	// none.
	Warnings []appliance.Warning `json:"warnings,omitempty"`
	// Job repeats the job object under the member older clients read;
	// deprecated (OpenAPI), removed in a later version.
	Job *JobJSON `json:"job"`
}

// batchReports is POST /batch_reports.
func (a *API) batchReports(w http.ResponseWriter, r *http.Request) (any, error) {
	k := keyFrom(r.Context())
	if batch.Limit(k.Tier) == 0 {
		return nil, batch.CheckTier(k.Tier, 1)
	}
	rows, opt, ignored, warnings, err := readBatch(r, k.Tier)
	if err != nil {
		return nil, err
	}
	if opt.Branding, err = a.reportBranding(k); err != nil { // the PDFs carry the tenant's branding
		return nil, err
	}
	res, job, err := a.Batches.Submit(r.Context(), k, rows, opt)
	if err != nil {
		return nil, err
	}
	if job == nil {
		return BatchSyncJSON{Rows: res.Rows, Counts: res.Counts, IgnoredColumns: ignored, Warnings: warnings}, nil
	}
	w.Header().Set("Location", "/jobs/"+job.ID)
	j := jobJSON(job, time.Now())
	writeJSON(w, http.StatusAccepted, BatchAcceptedJSON{JobJSON: j, IgnoredColumns: ignored, Warnings: warnings, Job: &j})
	return nil, nil
}

// readBatch reads the rows and options of a batch in any accepted form,
// the CSV header cells it ignored and the request's warnings (deprecated
// member names of a JSON batch).
func readBatch(r *http.Request, tier appliance.Tier) ([]batch.Row, batch.Options, []string, []appliance.Warning, error) {
	opt := batch.DefaultOptions()
	mt, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch mt {
	case "multipart/form-data":
		rows, opt, ignored, err := readBatchMultipart(r, params["boundary"], tier, opt)
		return rows, opt, ignored, nil, err
	case "text/csv":
		if err := optionsFromValues(r.URL.Query(), &opt); err != nil {
			return nil, opt, nil, nil, err
		}
		body, err := readBody(r)
		if err != nil {
			return nil, opt, nil, nil, err
		}
		rows, ignored, err := readBatchCSV(body, tier)
		return rows, opt, ignored, nil, err
	}
	if len(r.URL.Query()) > 0 {
		return nil, opt, nil, nil, appliance.Invalid("query", "a JSON batch takes its options in the body (options object), not in the query")
	}
	rows, warnings, err := readBatchJSON(r, tier, &opt)
	return rows, opt, nil, warnings, err
}

// readBatchJSON decodes a JSON batch. The rows are counted before they are
// decoded, so that a batch over the tier's limit is refused with its count
// (400) without the per-row work.
func readBatchJSON(r *http.Request, tier appliance.Tier, opt *batch.Options) ([]batch.Row, []appliance.Warning, error) {
	body, err := readBody(r)
	if err != nil {
		return nil, nil, err
	}
	// Elements decode into struct{}: counted without a copy of the body.
	var count struct {
		Rows []struct{} `json:"rows"`
	}
	err = json.Unmarshal(body, &count)
	var ute *json.UnmarshalTypeError
	if err == nil || errors.As(err, &ute) && len(count.Rows) > 0 {
		if err := limitErr(tier, len(count.Rows)); err != nil {
			return nil, nil, err
		}
	}
	var q batchRequestJSON
	if err := decodeBytes(body, &q, batch.Limit(tier)); err != nil {
		return nil, nil, err
	}
	if len(q.Rows) == 0 {
		return nil, nil, appliance.Invalid("rows", "is required: an array of 1 to %d rows", batch.Limit(tier))
	}
	if o := q.Options; o != nil {
		if o.Engine != nil {
			opt.Engine = *o.Engine
		}
		if o.Language != nil {
			opt.Language = report.Language(*o.Language)
		}
		if o.PDFs != nil {
			opt.PDFs = *o.PDFs
		}
	}
	rows := make([]batch.Row, len(q.Rows))
	for i, in := range q.Rows {
		rows[i] = in.row(i)
	}
	return rows, q.renames(), nil
}

// row converts a JSON row; a missing required value is the row's error
// (status error in its result), never the batch's.
func (in *batchRowJSON) row(i int) batch.Row {
	out := batch.Row{ReceiverID: fmt.Sprintf("row-%d", i+1), FreqMHz: in.FrequencyMHz, MaxDistanceKm: in.MaxDistanceKm,
		RxGainDBi: in.RxGainDBi, CableLossDB: in.CableLossDB, RxThresholdDBm: in.RxThresholdDBm, AssumedEIRPDBm: in.AssumedEIRPDBm}
	if in.ID != nil {
		out.ReceiverID = truncate(*in.ID, 64)
	}
	if in.Operator != nil {
		out.Operator = *in.Operator
	}
	if in.Engine != nil {
		out.Engine = *in.Engine
	}
	if in.Receiver == nil {
		out.Errors = append(out.Errors, appliance.FieldError{Field: "receiver", Reason: "is required: an object with lat, lon and height_m"})
	} else {
		out.Lat, out.Lon, out.HeightM = in.Receiver.Lat, in.Receiver.Lon, in.Receiver.HeightM
		if out.Lat == nil {
			out.Errors = append(out.Errors, appliance.FieldError{Field: "receiver.lat", Reason: "is required"})
		}
		if out.Lon == nil {
			out.Errors = append(out.Errors, appliance.FieldError{Field: "receiver.lon", Reason: "is required"})
		}
	}
	if out.FreqMHz == nil {
		out.Errors = append(out.Errors, appliance.FieldError{Field: "frequency_mhz", Reason: "is required"})
	}
	return out
}

// limitErr is the 400 of a batch over the tier's row limit.
func limitErr(tier appliance.Tier, n int) error {
	if err := batch.CheckTier(tier, n); err != nil {
		var le *batch.LimitError
		if errors.As(err, &le) {
			le.Tier = tier
		}
		return err
	}
	return nil
}

// readBatchCSV reads a CSV batch (appliance/batch: header aliases, `,` `;`
// or tab, pt-BR decimal commas, UTF-8 or Windows-1252).
func readBatchCSV(raw []byte, tier appliance.Tier) ([]batch.Row, []string, error) {
	f, err := batch.ReadCSVBytes(raw, batch.Limit(tier))
	if err != nil {
		var le *batch.LimitError
		if errors.As(err, &le) {
			le.Tier = tier
		}
		return nil, nil, err
	}
	return f.Rows, f.Unknown, nil
}

// readBatchMultipart reads a multipart/form-data batch: the CSV in the
// part named "file", options in the parts engine, language and pdfs (or in
// the query).
func readBatchMultipart(r *http.Request, boundary string, tier appliance.Tier, opt batch.Options) ([]batch.Row, batch.Options, []string, error) {
	if boundary == "" {
		return nil, opt, nil, appliance.Invalid("Content-Type", "multipart/form-data needs a boundary parameter")
	}
	vals := r.URL.Query()
	mr := multipart.NewReader(r.Body, boundary)
	var (
		rows    []batch.Row
		ignored []string
		gotFile bool
	)
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, opt, nil, multipartErr(err)
		}
		switch name := p.FormName(); name {
		case "file":
			if gotFile {
				return nil, opt, nil, appliance.Invalid("file", "must be given once")
			}
			gotFile = true
			b, err := bodyFrom(r.Context()).lease.ReadAll(p, r.ContentLength, "the file part") // the body's length bounds the part's
			if err != nil {
				return nil, opt, nil, multipartErr(err)
			}
			if rows, ignored, err = readBatchCSV(b, tier); err != nil {
				return nil, opt, nil, err
			}
		case "engine", "language", "pdfs":
			b, err := io.ReadAll(io.LimitReader(p, 65))
			if err != nil {
				return nil, opt, nil, multipartErr(err)
			}
			if len(b) > 64 {
				return nil, opt, nil, appliance.Invalid(name, "must be at most 64 bytes")
			}
			vals.Set(name, strings.TrimSpace(string(b)))
		case "":
			return nil, opt, nil, appliance.Invalid(unnamedPart, "has no name: every part needs Content-Disposition: form-data; name=\"…\"")
		default:
			return nil, opt, nil, appliance.Invalid(truncate(name, 40), "is not a known part: send the CSV as \"file\" and the options engine, language and pdfs")
		}
		_ = p.Close()
	}
	if !gotFile {
		return nil, opt, nil, appliance.Invalid("file", "is required: the CSV file as the form part named \"file\"")
	}
	if err := optionsFromValues(vals, &opt); err != nil {
		return nil, opt, nil, err
	}
	return rows, opt, ignored, nil
}

// optionsFromValues reads the options of a CSV batch from the query or the
// form parts.
func optionsFromValues(v url.Values, opt *batch.Options) error {
	ve := &appliance.ValidationError{}
	for name := range v {
		switch name {
		case "engine", "language", "pdfs":
		default:
			ve.Add(truncate(name, 40), "is not a known option (engine, language, pdfs)")
		}
	}
	if s := v.Get("engine"); s != "" {
		opt.Engine = s
	}
	if s := v.Get("language"); s != "" {
		opt.Language = report.Language(s)
	}
	if s := v.Get("pdfs"); s != "" {
		b, err := strconv.ParseBool(s)
		if err != nil {
			ve.Add("pdfs", "must be true or false, got %q", truncate(s, 20))
		}
		opt.PDFs = b
	}
	return ve.Err()
}

// batchLimitBody carries the limit and the count of a batch over its tier's
// limit into the error body, and returns its field ("rows"); nil for
// another error.
func batchLimitBody(err error, d *ErrorDetail) []appliance.FieldError {
	var le *batch.LimitError
	if !errors.As(err, &le) {
		return nil
	}
	limit, count := le.Limit, le.Count
	d.Limit, d.Count = &limit, &count
	return []appliance.FieldError{{Field: "rows", Reason: le.Error()}}
}
