package api

import (
	"context"
	"net/http"
	"time"

	"github.com/gorilla/mux"
)

func (a *API) registerHealth(r *mux.Router) {
	r.HandleFunc("/health", a.health).Methods(http.MethodGet)
	r.HandleFunc("/health/ready", a.wrap(a.readiness)).Methods(http.MethodGet)
	r.HandleFunc("/metrics", a.metricsHandler).Methods(http.MethodGet)
}

// health is liveness: a constant body, no I/O (SPEC §4.9).
func (a *API) health(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_, _ = w.Write([]byte(`{"status":"healthy"}` + "\n"))
}

// ReadyReport is the body of GET /health/ready.
type ReadyReport struct {
	Status  string            `json:"status"` // "ready" or "not_ready"
	State   string            `json:"state"`  // starting, ready, stopping
	Checks  map[string]string `json:"checks"` // check name -> "ok" or the reason it failed
	Offline bool              `json:"offline"`
	Version string            `json:"version"`
}

func (a *API) readiness(w http.ResponseWriter, r *http.Request) (any, error) {
	ctx, cancel := context.WithTimeout(r.Context(), 1500*time.Millisecond)
	defer cancel()
	rep := ReadyReport{Status: "ready", State: a.state.Load().(string), Checks: map[string]string{}, Offline: a.Offline, Version: a.Version}
	ok := rep.State == StateReady
	for _, c := range a.Checks {
		if err := c.Fn(ctx); err != nil {
			rep.Checks[c.Name] = err.Error()
			ok = false
		} else {
			rep.Checks[c.Name] = "ok"
		}
	}
	if !ok {
		rep.Status = "not_ready"
		writeJSON(w, http.StatusServiceUnavailable, rep)
		return nil, nil
	}
	return rep, nil
}

func (a *API) metricsHandler(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	a.metrics.WritePrometheus(w)
}
