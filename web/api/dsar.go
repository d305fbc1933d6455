package api

import (
	"net/http"

	"github.com/gorilla/mux"

	"linkplan/appliance"
	"linkplan/appliance/privacy"
)

func (a *API) registerDSAR(r *mux.Router) {
	if a.Privacy == nil {
		return
	}
	r.HandleFunc("/admin/dsar/overdue", a.wrap(a.authed(a.overdueDSAR))).Methods(http.MethodGet)
	r.HandleFunc("/admin/dsar/{api_key_prefix}/export", a.wrap(a.authed(a.adminExport))).Methods(http.MethodPost)
	r.HandleFunc("/admin/dsar/{api_key_prefix}/erase", a.wrap(a.authed(a.adminErase))).Methods(http.MethodPost)
}

type adminDSARRequest struct {
	TOTP                *string `json:"totp"`
	Justification       string  `json:"justification"`
	ConfirmSubjectEmail string  `json:"confirm_subject_email"`
}

// adminRequest decodes the body of an admin DSAR route. The TOTP code is
// the X-Admin-Totp header, else the body field totp.
func adminRequest(r *http.Request) (privacy.AdminRequest, error) {
	if keyFrom(r.Context()).Role != appliance.RoleAdmin {
		return privacy.AdminRequest{}, &httpError{status: http.StatusForbidden, code: "forbidden", msg: "an admin key is required"}
	}
	var body adminDSARRequest
	if err := decode(r, &body); err != nil {
		return privacy.AdminRequest{}, err
	}
	code := r.Header.Get("X-Admin-Totp")
	if code == "" && body.TOTP != nil {
		code = *body.TOTP
	}
	return privacy.AdminRequest{Prefix: mux.Vars(r)["api_key_prefix"], TOTP: code, Justification: body.Justification,
		ConfirmSubjectEmail: body.ConfirmSubjectEmail, Client: privacyClient(r)}, nil
}

func (a *API) adminExport(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := adminRequest(r)
	if err != nil {
		return nil, err
	}
	ans, err := a.Privacy.AdminExport(r.Context(), keyFrom(r.Context()), q)
	if err != nil {
		return nil, err
	}
	return ExportJSON{DSARRequestID: ans.Request.ID, Bundle: bundleJSON(ans.Bundle)}, nil
}

func (a *API) adminErase(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := adminRequest(r)
	if err != nil {
		return nil, err
	}
	ans, err := a.Privacy.AdminErase(r.Context(), keyFrom(r.Context()), q)
	if err != nil {
		return nil, err
	}
	return erasureJSON(ans.Request), nil
}

// OverdueJSON is one overdue request. Times are epoch seconds; null when
// not happened.
type OverdueJSON struct {
	DSARRequestID    string `json:"dsar_request_id"`
	RequestType      string `json:"request_type"`
	Status           string `json:"status"`
	Reason           string `json:"reason"` // answer_due or hard_delete_due
	Subject          string `json:"subject"`
	KeyPrefix        string `json:"key_prefix"`
	RequestedBy      string `json:"requested_by"`
	CreatedUnix      int64  `json:"created_unix"`
	DueBy            int64  `json:"due_by"`
	EraseScheduledAt *int64 `json:"erase_scheduled_at"`
	EraseExecutedAt  *int64 `json:"erase_executed_at"`
}

// OverdueList is the body of GET /admin/dsar/overdue.
type OverdueList struct {
	Count    int           `json:"count"`
	Requests []OverdueJSON `json:"requests"`
}

func (a *API) overdueDSAR(w http.ResponseWriter, r *http.Request) (any, error) {
	rs, err := a.Privacy.Overdue(keyFrom(r.Context()))
	if err != nil {
		return nil, err
	}
	out := OverdueList{Count: len(rs), Requests: make([]OverdueJSON, len(rs))}
	for i, o := range rs {
		q := o.Request
		out.Requests[i] = OverdueJSON{DSARRequestID: q.ID, RequestType: string(q.Type), Status: string(q.Status), Reason: o.Reason,
			Subject: q.Subject, KeyPrefix: q.KeyPrefix, RequestedBy: q.RequestedBy, CreatedUnix: q.CreatedUnix, DueBy: q.DueByUnix,
			EraseScheduledAt: optUnix(q.EraseScheduledUnix), EraseExecutedAt: optUnix(q.EraseExecutedUnix)}
	}
	return out, nil
}
