package api

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/VictoriaMetrics/metrics"
	"github.com/gorilla/mux"

	"linkplan/appliance"
	"linkplan/appliance/decodebudget"
	"linkplan/appliance/registry"
	"linkplan/appliance/telemetry"
	"linkplan/appliance/tenancy"
)

// Authenticator verifies and issues keys (appliance/tenancy).
type Authenticator interface {
	Authenticate(plain string) (*appliance.APIKey, error)
	// VerifyAdminFrom checks an admin key's TOTP step-up code; the client's
	// address, user agent and request id feed the per-address throttle and
	// the audit entries of refused attempts.
	VerifyAdminFrom(k *appliance.APIKey, code string, c tenancy.Client) error
	Issue(req tenancy.IssueRequest) (string, *appliance.APIKey, error)
}

// LinkAnalyzer runs link analyses (appliance/planner).
type LinkAnalyzer interface {
	AnalyzeLink(ctx context.Context, req appliance.LinkRequest) (*appliance.LinkAnalysis, error)
}

// TowerStore persists user-registered towers (store): the store of the
// registry service (registry.Store).
type TowerStore = registry.Store

// TowerRegistrar registers user towers (appliance/registry): validation,
// the per-key cap, the antenna check, the audit entry, the live set.
type TowerRegistrar interface {
	Register(ctx context.Context, key *appliance.APIKey, in registry.Input, c registry.Client) (*appliance.Tower, error)
}

// RefreshLog lists tower source refreshes (store).
type RefreshLog interface {
	TowerRefreshes(limit int) ([]appliance.TowerRefresh, error)
}

// Check is one named readiness check; nil error means healthy.
type Check struct {
	Name string
	Fn   func(ctx context.Context) error
	// Advisory: a failure is reported (checks and details) but does not
	// make the appliance not ready: the backup freshness, which says
	// nothing about serving requests.
	Advisory bool
	// Details, when set, is written under details[Name] of GET
	// /health/ready (a JSON object with status and reason); without it
	// the check's details are a CheckReadiness.
	Details func() any
	// Probe, when set, takes the place of Fn and Details: one call gives
	// both the check's verdict and its details (the queue, whose details
	// are read from the same look at the queue as its verdict).
	Probe func(ctx context.Context) (details any, err error)
	// Kind is the dependency's kind in GET /platform/maturity: "" or
	// "embedded" (in the process or its data directory), "external" (a
	// service it connects to: an external NATS server, workers), "local_process"
	// (a process serve starts and supervises: the raytrace worker, itself
	// Advisory: only the routes that need it fail without it).
	Kind string
}

// Backups takes verified backups for POST /admin/backup
// (appliance/backup): the file is written and verified first, then
// streamed; the service writes audit (completed with the backup's
// hash) in the same step.
type Backups interface {
	Take(ctx context.Context, trigger string, audit *appliance.AuditEntry) (*appliance.BackupFile, error)
}

// Deps are the services the API calls, by area: each handler group reads
// the 2 to 5 services of its area (the group's doc names its handler
// files), and PlatformDeps holds what every request shares. A nil service
// leaves its routes unserved or answering 503, as each field says. The
// assembly (appliance/cmd/linkplan/assemble) fills every group.
type Deps struct {
	PlatformDeps
	AccessDeps
	CatalogueDeps
	LinkDeps
	JobDeps
	PlanningDeps
	ModelDeps
	TenantDeps
	OperationsDeps
}

// PlatformDeps are the process's identity and plumbing, read by the
// middleware (api.go, middleware.go), health.go and platform.go: no
// service of a route.
type PlatformDeps struct {
	Checks  []Check      // readiness checks, in order
	Metrics *metrics.Set // the appliance's one metrics set
	Log     *slog.Logger
	// Recover recovers a request's panic (component "http": logged once
	// with its stack under the request id, counted); nil logs it to the
	// API's log without counting.
	Recover *appliance.Recoverer
	Version string
	Offline bool // true: the appliance makes no outbound calls
	// OfflineReason says why the appliance is, or is not, offline (the
	// outbound dependencies configured), for details.offline of GET
	// /health/ready.
	OfflineReason string
	// StandbyOf is the primary's URL when this appliance is a warm
	// standby: every route but /health, /health/ready, /health/failover
	// and /metrics answers 409 standby. "" on a primary.
	StandbyOf string
	// Decode is the appliance-wide budget of memory for decoding request
	// bodies (appliance/decodebudget); nil: a budget of
	// decodebudget.DefaultLimit of the API's own.
	Decode *decodebudget.Budget
	// Data lists the terrain packs and tower sources in use by SHA-256
	// (appliance/datamanifest) for GET /platform/maturity; nil: its
	// data_manifest is null.
	Data DataManifests
}

// AccessDeps are who may call and how much (appliance/tenancy,
// appliance/quota, appliance/auditlog): the authentication and metering
// middleware, tenantkeys.go, tenants.go, tenant.go, admin.go.
type AccessDeps struct {
	Auth    Authenticator
	Keys    KeyManager   // a tenant's own keys (appliance/tenancy); nil: no /tenant/keys routes
	Tenants TenantLister // the admin tenant listing (appliance/tenancy); nil: no GET /admin/tenants
	// Quota meters tenants (appliance/quota); nil: nothing is metered and
	// GET /v1/me/quota is not served.
	Quota Metering
	// Audit pages the audit log (appliance/auditlog); nil: the audit
	// routes are not served.
	Audit AuditReader
}

// CatalogueDeps are the towers and places the console's map shows:
// towers.go, places.go, tiles.go, the refresh history of admin.go.
type CatalogueDeps struct {
	Towers    func() appliance.TowerIndex // current tower snapshot
	Registry  TowerRegistrar              // POST /towers (appliance/registry); nil: the route answers 503
	Refreshes RefreshLog                  // tower source refresh history
	Search    Searcher                    // full-text search over towers and places
	// Basemap renders the public hillshade tiles of the console's map
	// (appliance/basemap); nil: the tile route answers 503.
	Basemap Basemap
	// ExternalBasemap serves the operator's PMTiles archive (serve
	// --basemap, appliance/basemap.External); nil: GET /basemap/ext says
	// configured false and its tiles answer 404.
	ExternalBasemap ExternalBasemap
}

// LinkDeps answer the synchronous link and engine routes: links.go,
// coverage.go, terrain.go, exports.go.
type LinkDeps struct {
	Links   LinkAnalyzer         // /analyze_link (appliance/planner)
	Pairs   PairAnalyzer         // one tower–receiver link budget (appliance/planner)
	Engines Engines              // engine registry and its tier rule (engines)
	Terrain PointTerrain         // for engine cases in terrain mode and point queries
	Clutter appliance.ClutterMap // land cover; nil when no pack has the layer
	// TerrainDescription names the loaded terrain for data provenance.
	TerrainDescription string
}

// JobDeps run the asynchronous work: jobs.go, batch.go, heatmap.go,
// repeater.go, interference.go.
type JobDeps struct {
	Jobs      JobService      // queued jobs (appliance/jobs)
	Batches   BatchSubmitter  // batch reports (appliance/batch)
	Heatmaps  Heatmaps        // coverage maps and their streams (appliance/coverage); nil: no map routes
	Repeaters RepeaterPlanner // relay routes (appliance/repeater); nil: no route
	// LinkInterference checks a link against the interferers around its
	// ends (appliance/interference); nil: no route.
	LinkInterference LinkInterference
	// NetworkMaps starts interference maps and viewsheds in the map
	// registry (appliance/interference.Maps); nil, or Heatmaps nil: no
	// POST /coverage/interference and /coverage/viewshed.
	NetworkMaps NetworkMaps
}

// PlanningDeps plan point-to-point links and their documents: ptp.go,
// reports.go, equipment.go, buildings.go, raytrace.go.
type PlanningDeps struct {
	// PTP plans point-to-point links (appliance/ptp); nil: the /links/ptp,
	// /reports/ptp and /exports/ptp routes answer 503.
	PTP PTPPlanner
	// PDFs reserves synchronous PDF reports against the monthly quota
	// (appliance/quota); nil: reports are not counted.
	PDFs      PDFReserver
	Equipment Equipment // the tenants' radio and antenna catalogues (appliance/equipment); nil: routes answer 503
	// Buildings keeps the tenants' building layers (appliance/buildings);
	// nil: the routes answer 503.
	Buildings BuildingLayers
	// Raytrace runs the asynchronous raytrace engine on the raytrace
	// worker (appliance/raytracing); nil: requests that name it answer
	// 503 and the engine is listed unavailable.
	Raytrace Raytracer
}

// ModelDeps serve the learned models and what feeds them: prediction.go,
// observations.go, calibration.go, ai.go.
type ModelDeps struct {
	// Predictions serves the learned coverage models
	// (appliance/prediction); nil: the prediction and model routes are
	// not served.
	Predictions Predictions
	// Observations ingests drive-test observations
	// (appliance/observations); nil: no observation routes.
	Observations Observations
	// Calibration runs the tenants' measured-versus-predicted reports and
	// calibrations (appliance/calibration); nil: the routes are not
	// served.
	Calibration Calibrations
	// Explainer answers the AI routes (appliance/ai); nil: the AI routes
	// are not served.
	Explainer Explainer
}

// TenantDeps are the tenant features: sso.go, branding.go, billing.go,
// dsar.go.
type TenantDeps struct {
	SSO      SSO       // bearer ID tokens and hosted login (appliance/sso); nil: SSO not configured (routes answer 503)
	Branding Brandings // white-label branding (appliance/branding); nil: routes answer 503, reports neutral
	Billing  Billing   // payment webhook and key claims (appliance/billing); nil: not configured (routes answer 503)
	Privacy  Privacy   // data-subject requests (appliance/privacy); nil: no privacy routes
}

// OperationsDeps keep the appliance's data safe: backup.go, standby.go.
type OperationsDeps struct {
	// Backups serves POST /admin/backup (appliance/backup); nil: the
	// route answers 503.
	Backups Backups
	// Failover reports GET /health/failover (appliance/standby); nil: 503.
	Failover Failover
	// Replication is the primary's side of the warm standby: the standby
	// key (POST /admin/standby-key) and the snapshots (GET
	// /replication/snapshot); nil: those routes answer 503.
	Replication Replication
}

// API is the HTTP handler of the appliance.
type API struct {
	Deps
	// MaxBodyBytes limits request bodies; larger bodies get 413.
	MaxBodyBytes int64

	log     *slog.Logger
	access  *slog.Logger // the access log: one record per request
	metrics *metrics.Set
	http    *httpMetrics
	// exposition writes metrics under the families declared in
	// appliance/telemetry.
	exposition *telemetry.Exposition
	state      atomic.Value // "starting" | "ready" | "stopping"
	router     *mux.Router
	decode     *decodebudget.Budget
	// uploads is the building-layer uploads' own decode budget
	// (MaxBuildingLayerBodyBytes; buildings.go): their bodies never take
	// the other routes' share.
	uploads *decodebudget.Budget
}

// Readiness states.
const (
	StateStarting = "starting"
	StateReady    = "ready"
	StateStopping = "stopping"
)

// DefaultMaxBodyBytes is the default request body limit (1 MiB).
const DefaultMaxBodyBytes = 1 << 20

// New builds the API. It starts in state "starting": data routes answer 503
// until SetState(StateReady).
func New(d Deps) *API {
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	if d.Metrics == nil {
		d.Metrics = metrics.NewSet()
	}
	a := &API{Deps: d, MaxBodyBytes: DefaultMaxBodyBytes, log: d.Log.With("component", "api"), access: d.Log.With("component", "access"), metrics: d.Metrics, http: newHTTPMetrics(),
		exposition: telemetry.New(telemetry.Families())}
	d.Metrics.RegisterMetricsWriter(a.http.write)
	if a.Recover == nil {
		a.Recover = &appliance.Recoverer{Log: a.log}
	}
	a.decode = d.Decode
	if a.decode == nil {
		a.decode = decodebudget.New(decodebudget.DefaultLimit)
	}
	a.uploads = decodebudget.New(MaxBuildingLayerBodyBytes).Shared("the building-layer uploads")
	a.state.Store(StateStarting)
	r := mux.NewRouter()
	r.NotFoundHandler = a.wrap(func(http.ResponseWriter, *http.Request) (any, error) {
		return nil, &httpError{status: http.StatusNotFound, code: "not_found", msg: "no such route"}
	})
	r.MethodNotAllowedHandler = a.wrap(func(w http.ResponseWriter, r *http.Request) (any, error) {
		allow := strings.Join(a.allowed(r), ", ")
		w.Header().Set("Allow", allow)
		return nil, &httpError{status: http.StatusMethodNotAllowed, code: "method_not_allowed", msg: "method not allowed on this route; allowed: " + allow}
	})
	a.registerHealth(r)
	a.registerStandby(r)
	a.registerAdmin(r)
	a.registerTenantKeys(r)
	a.registerTenants(r)
	a.registerDSAR(r)
	a.registerSSO(r)
	a.registerBranding(r)
	a.registerEquipment(r)
	a.registerBilling(r)
	a.registerLinks(r)
	a.registerPTP(r)
	a.registerExports(r)
	a.registerHeatmaps(r)
	a.registerNetworkMaps(r)
	a.registerRepeater(r)
	a.registerInterference(r)
	a.registerObservations(r)
	a.registerReports(r)
	a.registerBatch(r)
	a.registerJobs(r)
	a.registerTowers(r)
	a.registerCoverage(r)
	a.registerPrediction(r)
	a.registerPlaces(r)
	a.registerTerrain(r)
	a.registerDocs(r)
	a.registerTenant(r)
	a.registerLimits(r)
	a.registerPlatform(r)
	a.registerAI(r)
	a.registerTiles(r)
	a.registerBuildings(r)
	a.registerRaytrace(r)
	a.registerCalibration(r)
	a.router = r
	return a
}

// SetState moves the readiness state machine.
func (a *API) SetState(s string) { a.state.Store(s) }

func (a *API) isReady() bool { return a.state.Load() == StateReady }

// ServeHTTP implements http.Handler.
func (a *API) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.outer(a.router).ServeHTTP(w, r)
}
