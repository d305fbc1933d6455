package api

import (
	"net/http"

	"github.com/gorilla/mux"

	"linkplan/appliance"
)

// Tenant roles are enforced on every authenticated route by authed: each
// route needs one appliance.Permission, and tenancy.Authorize checks the
// key's tenant role against it. A route not named in routePermissions needs
// PermRead when it is a GET (or HEAD) and PermWrite otherwise, so a new
// route is never open to a read-only key by accident.
var routePermissions = map[string]appliance.Permission{
	// Computations that store nothing: a read-only key may run them.
	"POST /analyze_link":             appliance.PermRead,
	"POST /analyze":                  appliance.PermRead,
	"POST /coverage/engines/predict": appliance.PermRead,
	"POST /coverage/engines/compare": appliance.PermRead,
	"POST /exports/link":             appliance.PermRead,
	"POST /reports/link":             appliance.PermRead,
	"POST /links/ptp":                appliance.PermRead,
	"POST /reports/ptp":              appliance.PermRead,
	"POST /exports/ptp":              appliance.PermRead,
	"POST /ai/chat":                  appliance.PermRead,
	"POST /ai/suggest-height":        appliance.PermRead,
	"POST /ai/compare":               appliance.PermRead,
	"POST /ai/batch-analyze":         appliance.PermRead,
	// Key management and privacy requests (the services check the rest:
	// another key's rotation needs PermManageKeys).
	"POST /tenant/keys":                        appliance.PermManageKeys,
	"POST /tenant/keys/{key_id}/rotate":        appliance.PermRotateOwnKey,
	"POST /tenant/keys/{key_id}/revoke":        appliance.PermManageKeys,
	"PUT /tenant/branding":                     appliance.PermTenantSettings,
	"PUT /coverage/calibration":                appliance.PermTenantSettings,
	"POST /tenant/sso/bindings":                appliance.PermTenantSettings,
	"DELETE /tenant/sso/bindings":              appliance.PermTenantSettings,
	"POST /tenant/sso/binding_intents":         appliance.PermTenantSettings,
	"GET /tenant/me/data/export":               appliance.PermPrivacy,
	"POST /tenant/me/data/forget":              appliance.PermPrivacy,
	"POST /admin/dsar/{api_key_prefix}/export": appliance.PermRead, // admin keys only (checked by the service)
	"POST /admin/dsar/{api_key_prefix}/erase":  appliance.PermRead, // admin keys only (checked by the service)
}

// routePermission returns the permission the route serving r needs.
func routePermission(r *http.Request) appliance.Permission {
	tpl := ""
	if cr := mux.CurrentRoute(r); cr != nil {
		tpl, _ = cr.GetPathTemplate()
	}
	return RoutePermission(r.Method, tpl)
}

// RoutePermission returns the permission that method on the route template
// tpl needs (for the documentation and the role tests).
func RoutePermission(method, tpl string) appliance.Permission {
	if p, ok := routePermissions[method+" "+tpl]; ok {
		return p
	}
	if method == http.MethodGet || method == http.MethodHead {
		return appliance.PermRead
	}
	return appliance.PermWrite
}
