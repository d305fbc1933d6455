package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"

	"linkplan/appliance"
)

// ErrorBody is the structured error document of every 4xx and 503 response.
type ErrorBody struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail describes one error.
type ErrorDetail struct {
	Code      string                 `json:"code"`
	Message   string                 `json:"message"`
	RequestID string                 `json:"request_id"`
	Fields    []appliance.FieldError `json:"fields,omitempty"`
}

// httpError is an error that already knows its status and code (for errors
// born in this package: malformed JSON, body too large, unknown route).
type httpError struct {
	status int
	code   string
	msg    string
	fields []appliance.FieldError
}

func (e *httpError) Error() string { return e.msg }

// status maps an error to its HTTP status and error code. It is the only
// place where that decision is made.
func status(err error) (int, string) {
	var he *httpError
	switch {
	case errors.As(err, &he):
		return he.status, he.code
	case errors.Is(err, context.Canceled):
		return statusClientClosed, "client_closed"
	case errors.Is(err, context.DeadlineExceeded):
		return http.StatusServiceUnavailable, "timeout"
	case errors.Is(err, appliance.ErrErased):
		return http.StatusUnauthorized, "key_erased"
	case errors.Is(err, appliance.ErrUnauthenticated):
		return http.StatusUnauthorized, "unauthenticated"
	case errors.Is(err, appliance.ErrForbidden):
		return http.StatusForbidden, "forbidden"
	case errors.Is(err, appliance.ErrTerrainMissing):
		return http.StatusUnprocessableEntity, "terrain_missing"
	case errors.Is(err, appliance.ErrInvalid):
		return http.StatusUnprocessableEntity, "invalid_input"
	case errors.Is(err, appliance.ErrOutsideEnvelope):
		return http.StatusUnprocessableEntity, "outside_envelope"
	case errors.Is(err, appliance.ErrNotFound):
		return http.StatusNotFound, "not_found"
	case errors.Is(err, appliance.ErrConflict):
		return http.StatusConflict, "conflict"
	case errors.Is(err, appliance.ErrQuota):
		return http.StatusTooManyRequests, "quota_exceeded"
	case errors.Is(err, appliance.ErrUnavailable):
		return http.StatusServiceUnavailable, "unavailable"
	}
	return http.StatusInternalServerError, "internal"
}

// writeError writes err as the structured body, or a plain-text 500 for bugs.
func (a *API) writeError(w http.ResponseWriter, r *http.Request, err error) {
	st, code := status(err)
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
	body := ErrorBody{Error: ErrorDetail{Code: code, Message: err.Error(), RequestID: rid}}
	var ve *appliance.ValidationError
	if errors.As(err, &ve) {
		body.Error.Fields = ve.Fields
	}
	var he *httpError
	if errors.As(err, &he) {
		body.Error.Fields = he.fields
	}
	if st == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `APIKey header="X-API-Key"`)
	}
	a.log.Debug("request refused", slog.Int("status", st), "request_id", rid, "err", err)
	writeJSON(w, st, body)
}

// statusClientClosed is nginx's 499: the client closed the request.
const statusClientClosed = 499

// writeJSON encodes v before writing anything, so an encoding failure (a
// bug: a NaN that escaped) becomes a 500 instead of an empty 200.
func writeJSON(w http.ResponseWriter, st int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		http.Error(w, "Internal Server Error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(st)
	_, _ = w.Write(buf.Bytes())
}
