package api

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/gorilla/mux"

	"linkplan/appliance"
	"linkplan/appliance/tenancy"
)

type ctxKey int

const (
	ctxRequestID ctxKey = iota
	ctxAPIKey
	ctxAccess
	ctxBody
)

// Keys of the access log records (one per request, component "access").
const (
	LogKeyRequestID = "request_id"
	LogKeyKeyID     = "key_id"
	LogKeyRoute     = "route"
	LogKeyMethod    = "method"
	LogKeyStatus    = "status"
	LogKeyDuration  = "duration_ms"
	LogKeyBytes     = "bytes"
)

// access is what inner layers tell the access log about a request: the id
// of the key that authenticated it (never the key).
type access struct {
	keyID string
}

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

// statusWriter records the status code and the body bytes for the
// metrics and the access log.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
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
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the connection (streams
// extend their write deadline through it).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// outer is the middleware around every request: request id, panic recovery,
// body limit, HEAD on GET routes, the Content-Type of request bodies,
// metrics and the access log.
func (a *API) outer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rid := r.Header.Get("X-Request-Id")
		if !saneID(rid) {
			rid = newID()
		}
		w.Header().Set("X-Request-Id", rid)
		acc := &access{}
		ctx := appliance.WithRequestID(context.WithValue(r.Context(), ctxRequestID, rid), rid)
		r = r.WithContext(context.WithValue(ctx, ctxAccess, acc))
		method := r.Method
		route, matched := a.match(r)
		if !matched && r.Method == http.MethodHead {
			// HEAD is GET without the body: the handler runs as GET and
			// net/http sends its headers (Content-Length included) but no
			// body.
			get := r.Clone(r.Context())
			get.Method = http.MethodGet
			if rt, ok := a.match(get); ok {
				r, route, matched = get, rt, true
			}
		}
		if r.Body != nil {
			limit := a.bodyLimit(route)
			r.Body = http.MaxBytesReader(w, r.Body, limit)
			lease := a.budget(route, r.Method).Lease() // the request's share of the decode budget
			defer lease.Release()
			r = r.WithContext(context.WithValue(r.Context(), ctxBody, requestBody{limit: limit, lease: lease}))
		}
		sw := &statusWriter{ResponseWriter: w}
		defer func() {
			if p := recover(); p != nil {
				a.Recover.Recovered(r.Context(), "http", p)
				if sw.status == 0 {
					http.Error(sw, "Internal Server Error", http.StatusInternalServerError)
				}
			}
			d, st := time.Since(start), sw.status
			if st == 0 { // nothing written: net/http answers 200
				st = http.StatusOK
			}
			a.observe(method, route, st, d)
			a.accessLog(r.Context(), rid, acc, method, route, st, sw.bytes, d)
		}()
		if a.standbyGate(sw, r, route) {
			return
		}
		if matched && (r.Method == http.MethodPost || r.Method == http.MethodPut || r.Method == http.MethodPatch) {
			if err := a.bodyContentType(route, r.Header.Get("Content-Type")); err != nil {
				a.writeError(sw, r, err)
				return
			}
		}
		next.ServeHTTP(sw, r)
	})
}

// match returns the path template of the route that serves r, and whether
// one does with r's method.
func (a *API) match(r *http.Request) (string, bool) {
	var m mux.RouteMatch
	if !a.router.Match(r, &m) || m.Route == nil || m.MatchErr != nil {
		return "unmatched", false
	}
	t, err := m.Route.GetPathTemplate()
	if err != nil {
		return "unmatched", false
	}
	return t, true
}

// allowed lists the methods that some route serves on r's path, for the
// Allow header of a 405; HEAD is listed with GET.
func (a *API) allowed(r *http.Request) []string {
	var out []string
	for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		probe := r.Clone(r.Context())
		probe.Method = m
		if m == http.MethodHead {
			probe.Method = http.MethodGet
		}
		if _, ok := a.match(probe); ok {
			out = append(out, m)
		}
	}
	return out
}

// accessLog writes the one access log record of a request: enough to find
// it from the X-Request-Id a client reports, and never the API key itself
// (key_id is the key's public id, empty when no key authenticated).
func (a *API) accessLog(ctx context.Context, rid string, acc *access, method, route string, st int, bytes int64, d time.Duration) {
	a.access.LogAttrs(ctx, slog.LevelInfo, "request",
		slog.String(LogKeyRequestID, rid),
		slog.String(LogKeyKeyID, acc.keyID),
		slog.String(LogKeyRoute, route),
		slog.String(LogKeyMethod, metricMethod(method)),
		slog.Int(LogKeyStatus, st),
		slog.Float64(LogKeyDuration, float64(d.Microseconds())/1000),
		slog.Int64(LogKeyBytes, bytes))
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
	a.http.observe(metricMethod(method), route, status, d.Seconds())
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

// authed requires a valid API key (or a bearer ID token bound to one)
// whose tenant role allows the route's permission (roles.go), meters the
// request (quotas and rate limits, a 429 when spent) and stores the key
// and the audit actor in the request context. A request its role refuses
// is not metered.
func (a *API) authed(h handler) handler {
	return func(w http.ResponseWriter, r *http.Request) (any, error) {
		k, err := a.credential(r) // X-API-Key, or a bearer ID token (sso.go)
		if err != nil {
			return nil, err
		}
		if acc, ok := r.Context().Value(ctxAccess).(*access); ok {
			acc.keyID = k.ID
		}
		if err := tenancy.Authorize(k, routePermission(r)); err != nil {
			return nil, err
		}
		if err := a.meter(w, r, k); err != nil {
			return nil, err
		}
		route := ""
		if rt := mux.CurrentRoute(r); rt != nil {
			route, _ = rt.GetPathTemplate()
		}
		ctx := context.WithValue(r.Context(), ctxAPIKey, k)
		ctx = appliance.WithActor(ctx, appliance.Actor{KeyID: k.ID, Email: k.Email, TenantID: k.TenantID, Route: route,
			IP: clientIP(r), UserAgent: r.UserAgent(), RequestID: requestID(r.Context())})
		return h(w, r.WithContext(ctx))
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
