package api

import (
	"context"
	"net/http"
	"time"

	"github.com/gorilla/mux"

	"linkplan/appliance"
	"linkplan/appliance/calibration"
)

// Calibrations runs a tenant's measured-versus-predicted reports and its
// calibration (appliance/calibration).
type Calibrations interface {
	SubmitReport(ctx context.Context, k *appliance.APIKey, req calibration.ReportRequest) (*appliance.Job, error)
	Get(ctx context.Context, k *appliance.APIKey) (*calibration.Status, error)
	SetEnabled(ctx context.Context, k *appliance.APIKey, enabled bool) (*calibration.Status, *appliance.Job, error)
	SubmitFit(ctx context.Context, k *appliance.APIKey) (*appliance.Job, error)
}

// Routes of the calibration bodies.
const (
	routeObservationResiduals = "/coverage/observations/residuals"
	routeCalibration          = "/coverage/calibration"
	routeCalibrationFit       = "/coverage/calibration/fit"
)

func (a *API) registerCalibration(r *mux.Router) {
	if a.Calibration == nil {
		return
	}
	r.HandleFunc(routeObservationResiduals, a.wrap(a.ready(a.authed(a.postResiduals)))).Methods(http.MethodPost)
	r.HandleFunc(routeCalibration, a.wrap(a.ready(a.authed(a.getCalibration)))).Methods(http.MethodGet)
	r.HandleFunc(routeCalibration, a.wrap(a.ready(a.authed(a.putCalibration)))).Methods(http.MethodPut)
	r.HandleFunc(routeCalibrationFit, a.wrap(a.ready(a.authed(a.postCalibrationFit)))).Methods(http.MethodPost)
}

// residualsRequest is the body of POST /coverage/observations/residuals.
type residualsRequest struct {
	Engines []string `json:"engines"`
}

// JobAcceptedJSON is the 202 answer of a queued report or fit: the job
// object exactly as GET /jobs/{id} (Location) answers it.
type JobAcceptedJSON struct {
	JobJSON
}

func (a *API) accepted(w http.ResponseWriter, j *appliance.Job) {
	w.Header().Set("Location", "/jobs/"+j.ID)
	writeJSON(w, http.StatusAccepted, JobAcceptedJSON{JobJSON: jobJSON(j, time.Now())})
}

func (a *API) postResiduals(w http.ResponseWriter, r *http.Request) (any, error) {
	var q residualsRequest
	if err := decode(r, &q); err != nil {
		return nil, err
	}
	req := calibration.ReportRequest{}
	for _, e := range q.Engines {
		req.Engines = append(req.Engines, appliance.EngineID(e))
	}
	j, err := a.Calibration.SubmitReport(r.Context(), keyFrom(r.Context()), req)
	if err != nil {
		return nil, err
	}
	a.accepted(w, j)
	return nil, nil
}

// calibrationRequest is the body of PUT /coverage/calibration.
type calibrationRequest struct {
	Enabled *bool `json:"enabled"`
}

// CalibrationStatusJSON is the body of GET and PUT /coverage/calibration.
type CalibrationStatusJSON struct {
	Enabled bool `json:"enabled"`
	// ChangedAt is when enabled last changed (RFC 3339 UTC), null never.
	ChangedAt *string `json:"changed_at"`
	// FitJob is the last fit job queued since the appliance started (PUT:
	// the one turning calibration on queued), null none.
	FitJob *JobJSON `json:"fit_job"`
	// Calibration is the fitted calibration, areas left out; null none.
	Calibration *appliance.TenantCalibration `json:"calibration"`
}

func (a *API) statusJSON(ctx context.Context, k *appliance.APIKey, st *calibration.Status, job *appliance.Job) CalibrationStatusJSON {
	out := CalibrationStatusJSON{Enabled: st.Settings.Enabled, Calibration: st.Calibration}
	if st.Settings.ChangedAtUnix > 0 {
		out.ChangedAt = timeJSON(time.Unix(int64(st.Settings.ChangedAtUnix), 0))
	}
	if job == nil && st.FitJobID != "" && a.Jobs != nil {
		job, _ = a.Jobs.Get(ctx, k.TenantID, st.FitJobID)
	}
	if job != nil {
		j := jobJSON(job, time.Now())
		out.FitJob = &j
	}
	return out
}

func (a *API) getCalibration(_ http.ResponseWriter, r *http.Request) (any, error) {
	k := keyFrom(r.Context())
	st, err := a.Calibration.Get(r.Context(), k)
	if err != nil {
		return nil, err
	}
	return a.statusJSON(r.Context(), k, st, nil), nil
}

func (a *API) putCalibration(_ http.ResponseWriter, r *http.Request) (any, error) {
	var q calibrationRequest
	if err := decode(r, &q); err != nil {
		return nil, err
	}
	if q.Enabled == nil {
		return nil, appliance.Invalid("enabled", "is required: true turns the tenant's calibration on, false off")
	}
	k := keyFrom(r.Context())
	st, job, err := a.Calibration.SetEnabled(r.Context(), k, *q.Enabled)
	if err != nil {
		return nil, err
	}
	return a.statusJSON(r.Context(), k, st, job), nil
}

func (a *API) postCalibrationFit(w http.ResponseWriter, r *http.Request) (any, error) {
	if err := decodeEmpty(r); err != nil {
		return nil, err
	}
	j, err := a.Calibration.SubmitFit(r.Context(), keyFrom(r.Context()))
	if err != nil {
		return nil, err
	}
	a.accepted(w, j)
	return nil, nil
}
