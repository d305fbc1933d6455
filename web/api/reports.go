package api

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"linkplan/appliance"
	"linkplan/appliance/report"
)

func (a *API) registerReports(r *mux.Router) {
	r.HandleFunc("/reports/link", a.wrap(a.ready(a.authed(a.reportLink)))).Methods(http.MethodPost)
}

// reportLinkRequest is the body of POST /reports/link: the body of
// /analyze_link, the tower to report (optional: the best) and the
// language.
type reportLinkRequest struct {
	renamed
	LinkFieldsJSON
	MaxAlternatives *int     `json:"max_alternatives"`
	Include         []string `json:"include"`
	TowerID         *string  `json:"tower_id"`
	Language        *string  `json:"language"`
}

// link is the /analyze_link part of q.
func (q *reportLinkRequest) link() analyzeLinkRequest {
	return analyzeLinkRequest{LinkFieldsJSON: q.LinkFieldsJSON, MaxAlternatives: q.MaxAlternatives, Include: q.Include}
}

// language returns the report language of q: English when absent, a 422
// naming "language" when unknown.
func (q *reportLinkRequest) language() (report.Language, error) {
	if q.Language == nil {
		return report.English, nil
	}
	switch l := report.Language(*q.Language); l {
	case report.English, report.Portuguese:
		return l, nil
	}
	return "", appliance.Invalid("language", "must be %q or %q, got %q", report.English, report.Portuguese, truncate(*q.Language, 40))
}

// chosenCandidate is the candidate of res that a report shows: the tower
// named towerID among the best and the alternatives, else the best. No
// best is a 422 no_tower (the analysis's reason); a tower_id that is not
// among the results is a 404 naming tower_id.
func chosenCandidate(res *appliance.LinkAnalysis, towerID *string) (*appliance.LinkCandidate, error) {
	if towerID == nil {
		if res.Best == nil {
			reason := res.Reason
			if reason == "" {
				reason = "no tower in range could be evaluated"
			}
			return nil, &httpError{status: http.StatusUnprocessableEntity, code: "no_tower", msg: "no tower can serve this receiver: " + reason,
				fields: []appliance.FieldError{{Field: "receiver", Reason: reason}}}
		}
		return res.Best, nil
	}
	if res.Best != nil && res.Best.Tower != nil && res.Best.Tower.ID == *towerID {
		return res.Best, nil
	}
	for i := range res.Alternatives {
		if c := &res.Alternatives[i]; c.Tower != nil && c.Tower.ID == *towerID {
			return c, nil
		}
	}
	return nil, &httpError{status: http.StatusNotFound, code: "not_found",
		msg:    fmt.Sprintf("tower %q is not among the results of this analysis (best and alternatives)", truncate(*towerID, 80)),
		fields: []appliance.FieldError{{Field: "tower_id", Reason: "is not among the towers this analysis returns; raise max_alternatives or max_distance_km, or check the operator filter"}}}
}

// fileSafe keeps the letters, digits, '-', '_' and '.' of s (for a file name).
func fileSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '_'
	}, s)
}

// reportLink is POST /reports/link: the PDF link report of one tower of the
// /analyze_link analysis, with its path check, in the branding of the
// key's tenant (neutral when it set none; an SVG logo is left out). Each
// report counts one PDF of the tenant's monthly quota (SPEC §8.1).
func (a *API) reportLink(w http.ResponseWriter, r *http.Request) (any, error) {
	var q reportLinkRequest
	if err := decode(r, &q); err != nil {
		return nil, err
	}
	lang, err := q.language()
	if err != nil {
		return nil, err
	}
	lq := q.link()
	res, err := a.analyzeLinkFor(r, &lq, true)
	if err != nil {
		return nil, err
	}
	c, err := chosenCandidate(res, q.TowerID)
	if err != nil {
		return nil, err
	}
	brand, err := a.reportBranding(keyFrom(r.Context()))
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer // whole, so that a renderer error is still a clean 500
	in := report.Input{Candidate: c, Request: res.Request, ReceiverGroundM: res.ReceiverGroundM}
	if c == res.Best {
		in.Caveats = res.BestTowerCaveats // what qualifies its choice travels with it
	}
	// The request's deprecated names (renames.go): listed after the
	// candidate's own warnings, like the caveats.
	in.Caveats = append(append([]appliance.Warning(nil), in.Caveats...), q.renames()...)
	if err := report.Write(&buf, in, report.Options{Language: lang, Branding: brand, Created: time.Now().UTC()}); err != nil {
		// The input came from the planner: a renderer error is a bug (500),
		// not the client's ErrInvalid, hence %v.
		return nil, fmt.Errorf("link report: %v", err)
	}
	// The PDF counts against the monthly PDF quota (with its report.pdf
	// audit entry) once it exists; a spent quota is a 429.
	if a.PDFs != nil {
		if err := a.PDFs.ReservePDF(r.Context(), keyFrom(r.Context()), "rpt_"+newID()); err != nil {
			return nil, err
		}
	}
	writeFile(w, "application/pdf", "link-report-"+fileSafe(c.Tower.ID)+".pdf", buf.Bytes())
	return nil, nil
}
