package api

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"linkplan/appliance"
)

// JobService reads, cancels and serves the results of queued jobs
// (appliance/jobs). Every method is scoped to a tenant: another tenant's job
// is appliance.ErrNotFound, exactly like a missing one.
type JobService interface {
	Get(ctx context.Context, tenantID, id string) (*appliance.Job, error)
	Cancel(ctx context.Context, tenantID, id string) (*appliance.Job, error)
	// Open returns the finished job and its result file, which the caller
	// closes; a job without a result is appliance.ErrConflict.
	Open(ctx context.Context, tenantID, id string) (*appliance.Job, *os.File, error)
}

func (a *API) registerJobs(r *mux.Router) {
	r.HandleFunc("/jobs/{id}", a.wrap(a.ready(a.authed(a.getJob)))).Methods(http.MethodGet)
	r.HandleFunc("/jobs/{id}/download", a.wrap(a.ready(a.authed(a.downloadJob)))).Methods(http.MethodGet)
	r.HandleFunc("/jobs/{id}/cancel", a.wrap(a.ready(a.authed(a.cancelJob)))).Methods(http.MethodPost)
}

// JobJSON is a job record (GET /jobs/{id}). Times are RFC 3339 UTC, null
// until they happen.
type JobJSON struct {
	ID       string `json:"id"`
	Kind     string `json:"kind"`
	State    string `json:"state"`
	Lane     string `json:"lane"`
	Progress struct {
		Done     int64   `json:"done"`     // work units (batch rows) committed
		Total    int64   `json:"total"`    // work units of the job
		Fraction float64 `json:"fraction"` // done / total, 0..1 (3 decimals)
	} `json:"progress"`
	// ETASeconds estimates the seconds left of a running job from its rate
	// so far; null when the job is not running or has no rate yet.
	ETASeconds      *float64        `json:"eta_seconds"`
	Attempts        int             `json:"attempts"`
	MaxAttempts     int             `json:"max_attempts"`
	Interruptions   int             `json:"interruptions"`
	Error           *string         `json:"error"`
	CancelRequested bool            `json:"cancel_requested"`
	CreatedAt       string          `json:"created_at"`
	StartedAt       *string         `json:"started_at"`
	UpdatedAt       string          `json:"updated_at"`
	FinishedAt      *string         `json:"finished_at"`
	NotBefore       *string         `json:"not_before"` // queued for a retry: not started before this time
	ExpiresAt       *string         `json:"expires_at"` // when the result (or the record) is removed
	Result          *JobResultJSON  `json:"result"`
	Summary         json.RawMessage `json:"summary"` // kind-specific summary of a finished job; null before

	// QueuePosition is, while a running job waits for the appliance's
	// heavy-work budget (CPU workers and memory), its 1-based place in
	// that queue (1: admitted next); null otherwise.
	QueuePosition *int `json:"queue_position"`
}

// JobResultJSON describes a succeeded job's downloadable result.
type JobResultJSON struct {
	Bytes       int64  `json:"bytes"`
	SHA256      string `json:"sha256"` // hex SHA-256 of the file
	DownloadURL string `json:"download_url"`
}

func timeJSON(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.UTC().Format(time.RFC3339Nano)
	return &s
}

// jobJSON renders j as seen at now.
func jobJSON(j *appliance.Job, now time.Time) JobJSON {
	out := JobJSON{ID: j.ID, Kind: string(j.Kind), State: string(j.State), Lane: string(j.Lane),
		Attempts: j.Attempts, MaxAttempts: j.MaxAttempts, Interruptions: j.Interruptions, CancelRequested: j.CancelRequested,
		StartedAt: timeJSON(j.Started), FinishedAt: timeJSON(j.Finished), ExpiresAt: timeJSON(j.Expires), Summary: json.RawMessage("null")}
	out.CreatedAt = *timeJSON(j.Created)
	out.UpdatedAt = *timeJSON(j.Updated)
	if j.State == appliance.JobQueued && j.NotBefore.After(now) {
		out.NotBefore = timeJSON(j.NotBefore)
	}
	out.Progress.Done, out.Progress.Total = j.Done, j.Total
	if j.Total > 0 {
		out.Progress.Fraction = r3(float64(j.Done) / float64(j.Total))
	}
	if j.State == appliance.JobRunning && j.Done > 0 && !j.Started.IsZero() && j.Done < j.Total {
		// The rate since the first lease: restarts make it pessimistic,
		// never optimistic.
		perUnit := now.Sub(j.Started).Seconds() / float64(j.Done)
		eta := math.Round(perUnit*float64(j.Total-j.Done)*10) / 10
		out.ETASeconds = &eta
	}
	if j.Error != "" {
		e := j.Error
		out.Error = &e
	}
	if j.QueuePosition > 0 {
		pos := j.QueuePosition
		out.QueuePosition = &pos
	}
	if j.Result != nil {
		if j.State == appliance.JobSucceeded {
			out.Result = &JobResultJSON{Bytes: j.Result.Bytes, SHA256: j.Result.SHA256, DownloadURL: "/jobs/" + j.ID + "/download"}
		}
		if len(j.Result.Summary) > 0 && json.Valid(j.Result.Summary) {
			out.Summary = j.Result.Summary
		}
	}
	return out
}

func (a *API) getJob(_ http.ResponseWriter, r *http.Request) (any, error) {
	k := keyFrom(r.Context())
	j, err := a.Jobs.Get(r.Context(), k.TenantID, mux.Vars(r)["id"])
	if err != nil {
		return nil, err
	}
	return jobJSON(j, time.Now()), nil
}

// cancelJob cancels a job: 200 with the job when it is canceled at once
// (it was queued), 202 when it is running and stops at its next checkpoint.
func (a *API) cancelJob(w http.ResponseWriter, r *http.Request) (any, error) {
	if err := decodeEmpty(r); err != nil {
		return nil, err
	}
	k := keyFrom(r.Context())
	j, err := a.Jobs.Cancel(r.Context(), k.TenantID, mux.Vars(r)["id"])
	if err != nil {
		return nil, err
	}
	if j.State == appliance.JobRunning {
		writeJSON(w, http.StatusAccepted, jobJSON(j, time.Now()))
		return nil, nil
	}
	return jobJSON(j, time.Now()), nil
}

// downloadJob streams a succeeded job's bundle with its length and
// checksum (Digest, RFC 3230, and X-Checksum-SHA256, hex); Range and
// If-None-Match requests are served by http.ServeContent.
func (a *API) downloadJob(w http.ResponseWriter, r *http.Request) (any, error) {
	k := keyFrom(r.Context())
	j, f, err := a.Jobs.Open(r.Context(), k.TenantID, mux.Vars(r)["id"])
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sum, err := hex.DecodeString(j.Result.SHA256)
	if err != nil {
		return nil, fmt.Errorf("download job %s: stored checksum: %w", j.ID, err)
	}
	h := w.Header()
	// A batch report is a zip bundle; a repeater plan is the JSON a
	// synchronous plan answers; a raytrace link job its JSON result.
	ctype, ext := "application/zip", ".zip"
	if j.Kind == appliance.JobKindRepeaterPlan || j.Kind == appliance.JobKindRaytraceLink {
		ctype, ext = "application/json", ".json"
	}
	h.Set("Content-Type", ctype)
	h.Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", "linkplan-"+j.ID+ext))
	h.Set("Digest", "sha-256="+base64.StdEncoding.EncodeToString(sum))
	h.Set("X-Checksum-SHA256", j.Result.SHA256)
	h.Set("ETag", `"`+j.Result.SHA256+`"`)
	h.Set("Cache-Control", "private, no-cache")
	http.ServeContent(w, r, "", j.Finished, f)
	return nil, nil
}

// decodeEmpty accepts the body of an action route that takes no input:
// empty, or an empty JSON object.
func decodeEmpty(r *http.Request) error {
	if r.Body == nil || r.ContentLength == 0 {
		return nil
	}
	var v struct{}
	err := decode(r, &v)
	if he, ok := err.(*httpError); ok && he.code == "malformed_json" && strings.Contains(he.msg, "is empty") {
		return nil
	}
	return err
}
