package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"linkplan/appliance"
)

// backupWriteWindow is how long the answer of POST /admin/backup may take
// to stream (the server's write timeout, two minutes, is too short for a
// large database on a slow link).
const backupWriteWindow = time.Hour

// adminBackup streams a verified backup of the database (POST
// /admin/backup): admin key, TOTP step-up and a justification, like every
// admin action; audited as admin.backup.
func (a *API) adminBackup(w http.ResponseWriter, r *http.Request) (any, error) {
	admin, justification, err := a.adminStepUp(r, "/admin/backup", func() error {
		if a.Backups == nil {
			return fmt.Errorf("backups are not configured: %w", appliance.ErrUnavailable)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	f, err := a.Backups.Take(r.Context(), appliance.BackupTriggerRoute, &appliance.AuditEntry{Action: "admin.backup",
		ActorKey: admin.ID, ActorEmail: admin.Email, TenantID: admin.TenantID, Route: "/admin/backup",
		Params: map[string]string{"justification": justification},
		IP:     clientIP(r), UserAgent: r.UserAgent(), RequestID: requestID(r.Context())})
	if err != nil {
		return nil, err
	}
	defer f.Body.Close()
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(backupWriteWindow))
	h := w.Header()
	h.Set("Content-Type", "application/x-tar")
	h.Set("Content-Length", strconv.FormatInt(f.Bytes, 10))
	h.Set("Content-Disposition", `attachment; filename="linkplan-`+f.Manifest.CreatedAt.UTC().Format("20060102T150405Z")+`.lpbackup"`)
	h.Set("X-Linkplan-Backup-Sha256", f.Manifest.DB.SHA256)
	h.Set("X-Linkplan-Backup-Schema", strconv.Itoa(f.Manifest.Schema))
	w.WriteHeader(http.StatusOK)
	if _, err := io.Copy(w, f.Body); err != nil && !errors.Is(err, context.Canceled) {
		a.log.Warn("backup download ended early", "err", err, "request_id", requestID(r.Context()))
	}
	return nil, nil
}

// BackupReadiness is details.backup of GET /health/ready: the state of the
// scheduled backups. Times are RFC 3339 UTC, null when none.
type BackupReadiness struct {
	Status           string   `json:"status"` // ok, pending, failed, stale
	Reason           string   `json:"reason"` // "" when ok
	EveryS           float64  `json:"every_s"`
	Keep             int      `json:"keep"`
	LastSuccessAt    *string  `json:"last_success_at"`
	LastSuccessAgeS  *float64 `json:"last_success_age_s"`
	LastAttemptAt    *string  `json:"last_attempt_at"`
	LastResult       string   `json:"last_result"` // ok, failed or none
	LastBytes        int64    `json:"last_bytes"`
	LastAttemptTookS float64  `json:"last_duration_s"`
}

// BackupCheck is the advisory readiness check of the scheduled backups:
// its status is "ok" or the reason of Freshness, and its details a
// BackupReadiness. now nil: time.Now.
func BackupCheck(status func() appliance.BackupStatus, now func() time.Time) Check {
	if now == nil {
		now = time.Now
	}
	return Check{Name: "backup", Advisory: true,
		Fn: func(context.Context) error {
			if st, why := status().Freshness(now()); st != appliance.BackupFresh {
				return fmt.Errorf("%s: %s", st, why)
			}
			return nil
		},
		Details: func() any { return backupReadiness(status(), now()) }}
}

func backupReadiness(s appliance.BackupStatus, now time.Time) BackupReadiness {
	st, why := s.Freshness(now)
	out := BackupReadiness{Status: st, Reason: why, EveryS: s.Every.Seconds(), Keep: s.Keep, LastResult: "none",
		LastBytes: s.LastBytes, LastAttemptTookS: s.LastDuration.Seconds()}
	rfc := func(t time.Time) *string { v := t.UTC().Format(time.RFC3339); return &v }
	if !s.LastSuccess.IsZero() {
		out.LastSuccessAt = rfc(s.LastSuccess)
		age := now.Sub(s.LastSuccess).Seconds()
		out.LastSuccessAgeS = &age
	}
	if !s.LastAttempt.IsZero() {
		out.LastAttemptAt = rfc(s.LastAttempt)
		out.LastResult = "ok"
		if s.LastError != "" {
			out.LastResult = "failed"
		}
	}
	return out
}

// adminStepUp is the preamble of an admin action with a body of
// {justification, totp}: an admin key, a justification of 10 to 1000
// characters (422), the service configured (available; 503), then the
// TOTP step-up from X-Admin-Totp or the body's totp. It returns the admin
// key and the justification.
func (a *API) adminStepUp(r *http.Request, route string, available func() error) (*appliance.APIKey, string, error) {
	admin := keyFrom(r.Context())
	if admin.Role != appliance.RoleAdmin {
		return nil, "", &httpError{status: http.StatusForbidden, code: "forbidden", msg: "an admin key is required"}
	}
	var req struct {
		TOTP          *string `json:"totp"`
		Justification string  `json:"justification"`
	}
	if err := decode(r, &req); err != nil {
		return nil, "", err
	}
	v := &appliance.ValidationError{}
	if j := strings.TrimSpace(req.Justification); len(j) < 10 || len(j) > 1000 {
		v.Add("justification", "a justification of 10 to 1000 characters is required for admin actions")
	}
	if err := v.Err(); err != nil {
		return nil, "", err
	}
	if err := available(); err != nil {
		return nil, "", err
	}
	code := r.Header.Get("X-Admin-Totp")
	if code == "" && req.TOTP != nil {
		code = *req.TOTP
	}
	if err := a.verifyAdmin(r, admin, code, route); err != nil {
		return nil, "", err
	}
	return admin, req.Justification, nil
}
