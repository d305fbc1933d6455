package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"linkplan/appliance"
	"linkplan/appliance/basemap"
	"linkplan/appliance/batch"
	"linkplan/appliance/quota"
)

func quotaErrorJSON(e *quota.LimitError) *QuotaErrorJSON {
	out := &QuotaErrorJSON{Kind: "monthly", Tier: string(e.Tier), Limit: e.Limit, Used: e.Used,
		ResetAt: e.Reset.UTC().Format(time.RFC3339Nano), Timezone: "America/Sao_Paulo"}
	if e.Counter == "" {
		out.Kind, out.Group, out.WindowS = "rate", strp(string(e.Group)), int(quota.RateWindow/time.Second)
	} else {
		out.Counter = strp(string(e.Counter))
	}
	return out
}

// ErrorBody is the structured error document of every 4xx and 503 response.
type ErrorBody struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail describes one error. Fields names at most
// appliance.MaxFieldErrors bad fields; MoreErrors counts the others, so an
// error body stays small whatever the request held (issue 7, finding 5).
type ErrorDetail struct {
	Code       string                 `json:"code"`
	Message    string                 `json:"message"`
	RequestID  string                 `json:"request_id"`
	Fields     []appliance.FieldError `json:"fields,omitempty"`
	MoreErrors int                    `json:"more_errors,omitempty"`
	// Limit and Count are the tier's row limit and the batch's row count
	// of a batch_over_limit error; absent otherwise.
	Limit *int `json:"limit,omitempty"`
	Count *int `json:"count,omitempty"`
	// Quota details a quota_exceeded or rate_limited refusal by the
	// metering service; absent otherwise.
	Quota *QuotaErrorJSON `json:"quota,omitempty"`
}

// QuotaErrorJSON is the parseable part of a 429 from the metering service
// (appliance/quota): which limit, its size, what was used and when a retry
// can succeed.
type QuotaErrorJSON struct {
	Kind     string  `json:"kind"`    // "monthly" (a counter is spent) or "rate" (a route group's rate)
	Counter  *string `json:"counter"` // calls, pdfs or ai; null for a rate
	Group    *string `json:"group"`   // the route group of a rate; null for a monthly counter
	Tier     string  `json:"tier"`
	Limit    int     `json:"limit"` // the monthly cap, or requests per minute
	Used     int     `json:"used"`
	ResetAt  string  `json:"reset_at"` // RFC 3339 UTC: when a retry can succeed
	WindowS  int     `json:"window_s"` // 60 for a rate; 0 for a monthly counter
	Timezone string  `json:"timezone"` // the month's zone, America/Sao_Paulo
}

// Bounds of the echoed text of an error body, in bytes, after sanitising.
// With appliance.MaxFieldErrors fields the body stays well under 64 KiB
// even when JSON escaping doubles every byte.
const (
	maxMessageBytes = 2048
	maxFieldBytes   = 160
	maxReasonBytes  = 320
)

// httpError is an error that already knows its status and code (for errors
// born in this package: malformed JSON, body too large, unknown route).
type httpError struct {
	status int
	code   string
	msg    string
	fields []appliance.FieldError
}

func (e *httpError) Error() string { return e.msg }

// status is classify's HTTP status and error code, for the callers that
// do not need the deciding sentinel.
func status(err error) (int, string) {
	st, code, _ := classify(err)
	return st, code
}

// classify maps an error to its HTTP status, its error code and the
// sentinel that decided them (nil for an httpError or an unknown error).
func classify(err error) (int, string, error) {
	var he *httpError
	if errors.As(err, &he) {
		return he.status, he.code, nil
	}
	if errors.As(err, new(*basemap.AddressError)) { // a tile address is path syntax, like a malformed body
		return http.StatusBadRequest, "invalid_tile", appliance.ErrInvalid
	}
	var le *batch.LimitError
	if errors.As(err, &le) { // SPEC §7: a batch over the tier's row limit is a 400
		return http.StatusBadRequest, "batch_over_limit", nil
	}
	var qe *quota.LimitError
	if errors.As(err, &qe) && qe.Counter == "" {
		return http.StatusTooManyRequests, "rate_limited", appliance.ErrQuota
	}
	if diskFull(err) { // not a bug: the operator's disk (RFC 4918's status)
		return http.StatusInsufficientStorage, "storage_full", nil
	}
	for _, c := range statusTable {
		if errors.Is(err, c.sentinel) {
			return c.status, c.code, c.sentinel
		}
	}
	return http.StatusInternalServerError, "internal", nil
}

// statusTable is the order in which sentinels are matched: the first one an
// error matches decides its status.
var statusTable = [...]struct {
	sentinel error
	status   int
	code     string
}{
	{context.Canceled, statusClientClosed, "client_closed"},
	{context.DeadlineExceeded, http.StatusServiceUnavailable, "timeout"},
	{appliance.ErrErased, http.StatusUnauthorized, "key_erased"},
	{appliance.ErrTooManyRows, http.StatusBadRequest, "batch_over_limit"},
	{appliance.ErrUnauthenticated, http.StatusUnauthorized, "unauthenticated"},
	{appliance.ErrForbidden, http.StatusForbidden, "forbidden"},
	{appliance.ErrTerrainMissing, http.StatusUnprocessableEntity, "terrain_missing"},
	{appliance.ErrInvalid, http.StatusUnprocessableEntity, "invalid_input"},
	{appliance.ErrOutsideEnvelope, http.StatusUnprocessableEntity, "outside_envelope"},
	{appliance.ErrNotFound, http.StatusNotFound, "not_found"},
	{appliance.ErrConflict, http.StatusConflict, "conflict"},
	{appliance.ErrQuota, http.StatusTooManyRequests, "quota_exceeded"},
	{appliance.ErrUnavailable, http.StatusServiceUnavailable, "unavailable"},
}

// diskFull reports an error of a write the data directory's file system
// refused for space (ENOSPC, EDQUOT): 507 storage_full, never a 500.
func diskFull(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// storageFullMessage is the message of a 507 storage_full.
const storageFullMessage = "the appliance's disk is full: nothing of this request was stored; its operator must free space (GET /health/ready, check disk)"

// userMessage is the sentence the client reads for err. It comes from the
// typed error that carries the meaning, never from the whole wrapped chain,
// whose outer layers are operation names for the logs ("analyze link: ",
// "parse case: "): the message of an httpError or a ValidationError, else
// the message of the innermost error that wraps (or is) the sentinel that
// decided the status, e.g. "tower \"x\": not found" out of
// "analyze pair: tower \"x\": not found".
func userMessage(err error, sentinel error) string {
	var (
		he *httpError
		ve *appliance.ValidationError
	)
	switch {
	case errors.As(err, &he):
		return he.msg
	case errors.As(err, new(*batch.LimitError)):
		var le *batch.LimitError
		errors.As(err, &le)
		return le.Error()
	case errors.As(err, &ve):
		return summary(ve)
	case diskFull(err):
		return storageFullMessage
	case sentinel == context.DeadlineExceeded:
		return "the request did not finish within its time limit"
	case sentinel == nil:
		return "internal error"
	}
	msg := sentinel.Error()
	for e := err; e != nil && e != sentinel; e = unwrapToward(e, sentinel) {
		msg = e.Error()
	}
	// A refusal for a tier or role is a whole sentence ("observations need
	// tier Pro or higher (this key is Free)"); the wrapped sentinel's
	// ": forbidden" at its end is Go's error chain, not English, and the
	// code says it already (issue 20). Other sentinels end messages that
	// need them ("engine raytrace: unavailable", "tower \"x\": not found").
	if m, ok := strings.CutSuffix(msg, ": "+appliance.ErrForbidden.Error()); ok && sentinel == appliance.ErrForbidden && m != "" {
		msg = m
	}
	return msg
}

// messageFields is how many bad fields the message of a validation error
// names; the fields array names up to appliance.MaxFieldErrors.
const messageFields = 10

// summary is the message of a validation error: its first fields, and how
// many more the fields array and more_errors hold.
func summary(ve *appliance.ValidationError) string {
	n := min(len(ve.Fields), messageFields)
	parts := make([]string, n)
	for i, f := range ve.Fields[:n] {
		parts[i] = clean(f.Error(), maxFieldBytes)
	}
	msg := "invalid input: " + strings.Join(parts, "; ")
	if more := ve.Len() - n; more > 0 {
		msg += fmt.Sprintf("; and %d more", more)
	}
	return msg
}

// unwrapToward returns the error e wraps on the way to target: the single
// wrapped error, or the first of several that matches target.
func unwrapToward(e, target error) error {
	switch u := e.(type) {
	case interface{ Unwrap() error }:
		return u.Unwrap()
	case interface{ Unwrap() []error }:
		for _, x := range u.Unwrap() {
			if errors.Is(x, target) {
				return x
			}
		}
	}
	return nil
}

// clean makes text safe to echo in an error body, in one place for every
// message, field and reason: invalid UTF-8 becomes U+FFFD, control and
// bidirectional control characters (U+0000, U+202E ...) are written as
// their \uXXXX escape in plain ASCII, and the result is cut to limit bytes
// on a character boundary, marked with an ellipsis.
func clean(s string, limit int) string {
	var b strings.Builder
	for _, r := range s { // ranging yields U+FFFD for each invalid byte
		if b.Len() > limit {
			break // enough to know it is cut; the rest is never read
		}
		if isControl(r) || isBidiControl(r) {
			fmt.Fprintf(&b, "\\u%04x", r)
			continue
		}
		b.WriteRune(r)
	}
	out := b.String()
	if len(out) <= limit {
		return out
	}
	cut := limit - len("…")
	for cut > 0 && !utf8.RuneStart(out[cut]) {
		cut--
	}
	return out[:cut] + "…"
}

// writeError writes err as the structured body, or a plain-text 500 for bugs.
func (a *API) writeError(w http.ResponseWriter, r *http.Request, err error) {
	st, code, sentinel := classify(err)
	rid := requestID(r.Context())
	if st == statusClientClosed {
		// The client went away (or the server is shutting down): nobody
		// reads the answer, and it is not a bug.
		a.log.Debug("request cancelled", "request_id", rid, "path", r.URL.Path)
		w.WriteHeader(st)
		return
	}
	if st == http.StatusInternalServerError {
		a.log.Error("internal error", "request_id", rid, "method", r.Method, "path", r.URL.Path, "err", err)
		http.Error(w, "Internal Server Error", http.StatusInternalServerError)
		return
	}
	body := ErrorBody{Error: ErrorDetail{Code: code, Message: clean(userMessage(err, sentinel), maxMessageBytes), RequestID: rid}}
	var fields []appliance.FieldError
	var ve *appliance.ValidationError
	if errors.As(err, &ve) {
		fields, body.Error.MoreErrors = ve.Fields, ve.Omitted
	}
	var he *httpError
	if errors.As(err, &he) {
		fields = he.fields
	}
	var qe *quota.LimitError
	if errors.As(err, &qe) {
		body.Error.Quota = quotaErrorJSON(qe)
	}
	if f := batchLimitBody(err, &body.Error); f != nil {
		fields = f
	}
	if n := len(fields); n > appliance.MaxFieldErrors { // appended past the cap
		fields, body.Error.MoreErrors = fields[:appliance.MaxFieldErrors], body.Error.MoreErrors+n-appliance.MaxFieldErrors
	}
	for _, f := range fields {
		body.Error.Fields = append(body.Error.Fields, appliance.FieldError{Field: clean(f.Field, maxFieldBytes), Reason: clean(f.Reason, maxReasonBytes)})
	}
	if st == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `APIKey header="X-API-Key"`)
	}
	var ra *appliance.RetryAfterError
	if errors.As(err, &ra) && ra.After > 0 {
		w.Header().Set("Retry-After", strconv.FormatInt(int64(math.Ceil(ra.After.Seconds())), 10))
	}
	a.log.Debug("request refused", slog.Int("status", st), "request_id", rid, "err", err)
	writeJSON(w, st, body)
}

// statusClientClosed is nginx's 499: the client closed the request.
const statusClientClosed = 499

// writeJSON encodes v before writing anything, so that an encoding failure
// (a bug: a NaN or an infinity that escaped the rounding) is a 500 instead
// of an empty 200. It panics with the reason: the middleware's recover
// (outer) is the one place that logs a bug at ERROR with the request id and
// its stack, and answers the plain-text 500 (issue 20: the 500 of a batch
// row of 1e308 left no log line).
func writeJSON(w http.ResponseWriter, st int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("encode the %d answer (%T): %v", st, v, err))
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(st)
	_, _ = w.Write(buf.Bytes())
}
