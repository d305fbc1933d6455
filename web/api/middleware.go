package api

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/gorilla/mux"

	"linkplan/appliance"
)

type ctxKey int

const (
	ctxRequestID ctxKey = iota
	ctxAPIKey
)

func requestID(ctx context.Context) string {
	s, _ := ctx.Value(ctxRequestID).(string)
	return s
}

func keyFrom(ctx context.Context) *appliance.APIKey {
	k, _ := ctx.Value(ctxAPIKey).(*appliance.APIKey)
	return k
}

// saneID accepts a client request id of 1..128 visible ASCII characters.
func saneID(s string) bool {
	if len(s) == 0 || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}

func newID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// statusWriter records the status code for metrics.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// outer is the middleware around every request: request id, panic recovery,
// body limit and metrics.
func (a *API) outer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rid := r.Header.Get("X-Request-Id")
		if !saneID(rid) {
			rid = newID()
		}
		w.Header().Set("X-Request-Id", rid)
		r = r.WithContext(context.WithValue(r.Context(), ctxRequestID, rid))
		if r.Body != nil {
			r.Body = http.MaxBytesReader(w, r.Body, a.MaxBodyBytes)
		}
		route := "unmatched"
		var m mux.RouteMatch
		if a.router.Match(r, &m) && m.Route != nil {
			if t, err := m.Route.GetPathTemplate(); err == nil {
				route = t
			}
		}
		sw := &statusWriter{ResponseWriter: w}
		defer func() {
			if p := recover(); p != nil {
				a.log.Error("panic", "request_id", rid, "path", r.URL.Path, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				if sw.status == 0 {
					http.Error(sw, "Internal Server Error", http.StatusInternalServerError)
				}
			}
			a.observe(r.Method, route, sw.status, time.Since(start))
		}()
		next.ServeHTTP(sw, r)
	})
}

// metricMethod maps a request method onto a closed set, so that clients
// cannot mint metric series with invented methods.
func metricMethod(m string) string {
	switch m {
	case http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodHead, http.MethodOptions, http.MethodPatch:
		return m
	}
	return "other"
}

func (a *API) observe(method, route string, status int, d time.Duration) {
	method = metricMethod(method)
	if status == 0 {
		status = http.StatusOK
	}
	a.metrics.GetOrCreateCounter(fmt.Sprintf(`linkplan_http_requests_total{method=%q,route=%q,status="%d"}`, method, route, status)).Inc()
	a.metrics.GetOrCreateHistogram(fmt.Sprintf(`linkplan_http_request_duration_seconds{method=%q,route=%q}`, method, route)).Update(d.Seconds())
}

// handler is a route handler that returns its result or an error.
type handler func(w http.ResponseWriter, r *http.Request) (any, error)

// wrap adapts a handler: a non-nil result is written as 200 JSON (or the
// status carried by a created value), an error through writeError.
func (a *API) wrap(h handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		v, err := h(w, r)
		if err != nil {
			a.writeError(w, r, err)
			return
		}
		if c, ok := v.(created); ok {
			writeJSON(w, http.StatusCreated, c.body)
			return
		}
		if v != nil {
			writeJSON(w, http.StatusOK, v)
		}
	}
}

// created marks a 201 response.
type created struct{ body any }

// authed requires a valid API key and stores it in the request context.
func (a *API) authed(h handler) handler {
	return func(w http.ResponseWriter, r *http.Request) (any, error) {
		k, err := a.Auth.Authenticate(r.Header.Get("X-API-Key"))
		if err != nil {
			return nil, err
		}
		return h(w, r.WithContext(context.WithValue(r.Context(), ctxAPIKey, k)))
	}
}

// ready refuses data routes with 503 until the appliance is ready.
func (a *API) ready(h handler) handler {
	return func(w http.ResponseWriter, r *http.Request) (any, error) {
		if !a.isReady() {
			return nil, fmt.Errorf("the appliance is starting or stopping: %w", appliance.ErrUnavailable)
		}
		return h(w, r)
	}
}
