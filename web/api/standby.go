package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/gorilla/mux"

	"linkplan/appliance"
	"linkplan/appliance/standby"
)

// Failover reports GET /health/failover (appliance/standby: the primary's
// Source or the standby's Replica).
type Failover interface {
	Failover() appliance.FailoverStatus
}

// Replication serves the primary's side of the warm standby
// (appliance/standby.Source).
type Replication interface {
	IssueKey(audit appliance.AuditEntry) (appliance.StandbyKeyIssued, error)
	Snapshot(ctx context.Context, key string, c standby.Client) (*appliance.BackupFile, error)
}

func (a *API) registerStandby(r *mux.Router) {
	r.HandleFunc("/health/failover", a.wrap(a.failover)).Methods(http.MethodGet)
	r.HandleFunc("/replication/snapshot", a.wrap(a.replicationSnapshot)).Methods(http.MethodGet)
	r.HandleFunc("/admin/standby-key", a.wrap(a.authed(a.adminStandbyKey))).Methods(http.MethodPost)
}

// standbyRoutes are the routes a standby serves; every other route answers
// 409 standby (standbyGate).
var standbyRoutes = map[string]bool{"/health": true, "/health/ready": true, "/health/failover": true, "/metrics": true}

// standbyGate answers every route but the health ones with 409 on a
// standby: it holds the primary's snapshot, serves no tenant data and
// takes no write until it is promoted.
func (a *API) standbyGate(w http.ResponseWriter, r *http.Request, route string) bool {
	if a.StandbyOf == "" || standbyRoutes[route] {
		return false
	}
	a.writeError(w, r, &httpError{status: http.StatusConflict, code: "standby",
		msg: "this appliance is a warm standby of " + a.StandbyOf + " (role standby): it takes no writes and serves no data until it is promoted; send requests to the primary, or promote this standby (linkplan promote, docs/OPERATIONS.md)"})
	return true
}

// failover is GET /health/failover: public like /health, no tenant data.
func (a *API) failover(http.ResponseWriter, *http.Request) (any, error) {
	if a.Failover == nil {
		return nil, fmt.Errorf("the failover report is not configured: %w", appliance.ErrUnavailable)
	}
	return a.Failover.Failover(), nil
}

// adminStandbyKey issues the standby key (POST /admin/standby-key): admin
// key, TOTP step-up and a justification; audited as admin.standby_key.
func (a *API) adminStandbyKey(w http.ResponseWriter, r *http.Request) (any, error) {
	admin, justification, err := a.adminStepUp(r, "/admin/standby-key", func() error {
		if a.Replication == nil {
			return fmt.Errorf("the warm standby is not configured: %w", appliance.ErrUnavailable)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	k, err := a.Replication.IssueKey(appliance.AuditEntry{ActorKey: admin.ID, ActorEmail: admin.Email, TenantID: admin.TenantID,
		Route: "/admin/standby-key", Params: map[string]string{"justification": justification},
		IP: clientIP(r), UserAgent: r.UserAgent(), RequestID: requestID(r.Context())})
	if err != nil {
		return nil, err
	}
	return created{body: k}, nil
}

// replicationSnapshot streams a verified snapshot to a standby (GET
// /replication/snapshot, X-Standby-Key): the same file as POST
// /admin/backup, audited as standby.snapshot.
func (a *API) replicationSnapshot(w http.ResponseWriter, r *http.Request) (any, error) {
	if a.Replication == nil {
		return nil, fmt.Errorf("the warm standby is not configured: %w", appliance.ErrUnavailable)
	}
	f, err := a.Replication.Snapshot(r.Context(), r.Header.Get("X-Standby-Key"),
		standby.Client{IP: clientIP(r), UserAgent: r.UserAgent(), RequestID: requestID(r.Context())})
	if err != nil {
		return nil, err
	}
	defer f.Body.Close()
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(backupWriteWindow))
	h := w.Header()
	h.Set("Content-Type", "application/x-tar")
	h.Set("Content-Length", strconv.FormatInt(f.Bytes, 10))
	h.Set("X-Linkplan-Backup-Sha256", f.Manifest.DB.SHA256)
	h.Set("X-Linkplan-Backup-Schema", strconv.Itoa(f.Manifest.Schema))
	w.WriteHeader(http.StatusOK)
	if _, err := io.Copy(w, f.Body); err != nil && !errors.Is(err, context.Canceled) {
		a.log.Warn("snapshot download ended early", "err", err, "request_id", requestID(r.Context()))
	}
	return nil, nil
}
