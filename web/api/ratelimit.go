package api

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"linkplan/appliance"
	"linkplan/appliance/quota"
)

// Metering meters tenants: monthly quotas and rate limits (appliance/quota).
type Metering interface {
	// Admit meters one request of k on a route of group g.
	Admit(k *appliance.APIKey, g quota.Group) (quota.Decision, error)
	// Report is the quota picture of k (GET /v1/me/quota).
	Report(k *appliance.APIKey) (*quota.Report, error)
}

// routeGroup returns the rate-limit group of the route serving r (the
// table is in appliance/quota's doc): by path template and method, GET
// routes "read" and other methods "compute" unless named.
func routeGroup(r *http.Request) quota.Group {
	tpl := ""
	if rt := mux.CurrentRoute(r); rt != nil {
		tpl, _ = rt.GetPathTemplate()
	}
	switch {
	case tpl == "/v1/me/quota" || strings.HasPrefix(tpl, "/tenant/"):
		return quota.GroupTenant
	case strings.HasPrefix(tpl, "/coverage/observations"):
		return quota.GroupObservations
	case strings.HasPrefix(tpl, "/ai/"):
		return quota.GroupAI
	case r.Method == http.MethodGet || r.Method == http.MethodHead:
		return quota.GroupRead
	}
	switch tpl {
	case "/coverage/predict":
		return quota.GroupPrediction
	case "/coverage/heatmap", "/coverage/best_server", routeRaytraceMap, "/coverage/interference", "/coverage/viewshed":
		return quota.GroupMaps
	case "/batch_reports", "/jobs/{id}/cancel":
		return quota.GroupBatch
	case "/towers", "/buildings/layers", "/buildings/layers/{layer_id}":
		return quota.GroupWrite
	}
	return quota.GroupCompute
}

// meter admits an authenticated request through the metering service and
// sets the RateLimit-* headers (draft-ietf-httpapi-ratelimit-headers) of
// the limit closest to exhaustion, on the answer and on a refusal alike.
// Without a metering service nothing is metered.
func (a *API) meter(w http.ResponseWriter, r *http.Request, k *appliance.APIKey) error {
	if a.Quota == nil {
		return nil
	}
	d, err := a.Quota.Admit(k, routeGroup(r))
	if d.Metered {
		h := w.Header()
		h.Set("RateLimit-Limit", strconv.Itoa(d.Limit))
		h.Set("RateLimit-Remaining", strconv.Itoa(max(0, d.Remaining)))
		h.Set("RateLimit-Reset", strconv.FormatInt(ceilSeconds(d.Reset), 10))
	}
	return err
}

// ceilSeconds rounds d up to whole seconds (0 for none).
func ceilSeconds(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	return int64(math.Ceil(d.Seconds()))
}
