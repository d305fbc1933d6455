package api_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"linkplan/appliance/basemap"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"linkplan/appliance"
	"linkplan/appliance/admission"
	"linkplan/appliance/ai"
	"linkplan/appliance/backup"
	"linkplan/appliance/batch"
	"linkplan/appliance/calibration"
	"linkplan/appliance/cmd/linkplan/assemble"
	"linkplan/appliance/coverage"
	"linkplan/appliance/decodebudget"
	"linkplan/appliance/jobs"
	"linkplan/appliance/prediction"
	"linkplan/appliance/privacy"
	"linkplan/appliance/quota"
	"linkplan/appliance/raytracing"
	"linkplan/appliance/sso/ssotest"
	"linkplan/appliance/standby"
	"linkplan/appliance/tenancy"
	"linkplan/engines/raytrace/worker"
	"linkplan/store"
	"linkplan/store/search"
	"linkplan/store/spatial"
	"linkplan/terrain-packs/terrain"
	"linkplan/web/api"
)

// clock is the time source of the harness's tenancy service. Admin TOTP
// codes are accepted once per 30 s step (replay protection), so every admin
// scenario moves the clock to a fresh step instead of sleeping.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// set moves the clock to t (forward only: TOTP steps are accepted once).
func (c *clock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// advance moves the clock on by d.
func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// nextStep advances the clock by one TOTP step (30 s) and returns the new
// time.
func (c *clock) nextStep() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(30 * time.Second)
	return c.t
}

// harnessOptions change how the harness composes the API. The zero value is
// the composition of appliance/cmd/linkplan serve.
type harnessOptions struct {
	state   string                                   // readiness state after start; "" = ready
	towerDB func(real api.TowerStore) api.TowerStore // wraps the store's tower writer
	auth    func(real api.Authenticator) api.Authenticator
	towers  func(real appliance.TowerIndex) appliance.TowerIndex
	enqueue func(real batch.Enqueuer) batch.Enqueuer // wraps the batch service's queue
	// unmetered leaves out the quota service (fuzzing sends more requests
	// than any rate limit admits at the harness's fixed clock).
	unmetered bool
	sso       bool // a real OIDC issuer (ssotest) and the SSO service
	billing   bool // the billing service with billingSecret
	// aiProvider is the language model of the AI routes; nil: the
	// template explainer only, as serve without --ai-provider-url.
	aiProvider ai.Provider
	// heavy is the budget of heavy work (appliance/admission) the maps go
	// through; nil: its defaults.
	heavy *admission.Options
	// decode is the appliance-wide decode budget; nil: the API's default.
	decode *decodebudget.Budget
}

// harness is the appliance as serve assembles it (assemble.New, the one
// wiring of the binary), in-process: bbolt store in a temp dir, the tenancy
// bootstrap, the embedded Rio sample terrain, the embedded sample towers
// through the refresh service, the R-tree and search indexes, the engine
// registry and every service, behind httptest. The test options of
// assemble.TestOptions give it a fake clock, a fast job poll and no
// periodic schedules; the raytrace engine runs in process.
type harness struct {
	app     *assemble.App
	api     *api.API
	srv     *httptest.Server
	db      *store.DB
	auth    *tenancy.Service
	clock   *clock
	index   *spatial.Index
	jobs    *jobs.Service
	privacy *privacy.Service
	maps    *coverage.Maps
	// raytrace serves the raytrace engine's jobs and maps.
	raytrace *raytracing.Service
	quota    *quota.Service
	search   *search.Index
	terrain  *terrain.Layered
	preds    *prediction.Service
	backups  *backup.Service
	calib    *calibration.Service
	// standby is the primary's side of the warm standby; standbyKey a
	// standby key it issued at setup.
	standby    *standby.Source
	standbyKey string
	dataDir    string
	desc       string // terrain description, as the composition root words it

	issuer *ssotest.Issuer // with harnessOptions.sso

	adminKey, adminSecret string
	keys                  map[string]string // role name in scenarios -> plain key
	keyIDs                map[string]string // role name -> key id
}

const terrainDesc = "embedded sample pack: SRTM3 v2.1 tiles S23W044 and S22W043 (Rio de Janeiro), 3 arc-second grid"

func newHarness(tb testing.TB, opt harnessOptions) *harness {
	tb.Helper()
	h := &harness{dataDir: tb.TempDir(), clock: &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)},
		keys: map[string]string{}, keyIDs: map[string]string{}, desc: terrainDesc}
	cfg := assemble.Config{DataDir: h.dataDir, Version: "test", AI: opt.aiProvider,
		// The raytrace engine on the in-process executor (the CPU backend
		// in this process; the worker process is tested on the binary).
		Raytrace: assemble.RaytraceConfig{Executor: worker.NewInProcess(4)},
		Test: assemble.TestOptions{Now: h.clock.Now, JobPollInterval: 20 * time.Millisecond, JobWorkers: 1,
			Unmetered: opt.unmetered, NoSchedules: true, Offline: true, Decode: opt.decode, WrapTowerStore: opt.towerDB, WrapAuth: opt.auth,
			WrapTowers: opt.towers, WrapBatchQueue: opt.enqueue}}
	if opt.heavy != nil {
		cfg.Heavy = *opt.heavy
	}
	// The operator's basemap: a small raster archive written here.
	ext, err := basemap.OpenExternal(writeExtArchive(tb, h.dataDir))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = ext.Close() })
	cfg.Basemap = ext
	secrets := tb.TempDir()
	if opt.sso {
		h.issuer = ssotest.New(tb, "linkplan-console", nil)
		cfg.SSO = assemble.SSOConfig{Issuer: h.issuer.URL, ClientID: h.issuer.ClientID, ClientSecretFile: writeSecret(tb, secrets, "oidc", h.issuer.ClientSecret),
			RedirectURL: "https://console.example/auth/oidc/callback", HTTPClient: h.issuer.Client()}
	}
	if opt.billing {
		cfg.BillingSecret = writeSecret(tb, secrets, "billing", string(billingSecret))
	}
	app, err := assemble.New(context.Background(), cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(app.Stop)
	if err := app.Start(context.Background()); err != nil {
		tb.Fatal(err)
	}
	// Scenarios do not depend on the timing of the search index's first
	// build: the harness waits for it.
	deadline := time.Now().Add(60 * time.Second)
	for st := app.Search.TowerState(); !st.Ready || st.Building; st = app.Search.TowerState() {
		if st.Err != nil || time.Now().After(deadline) {
			tb.Fatalf("tower search index: %+v", st)
		}
		time.Sleep(10 * time.Millisecond)
	}
	h.app, h.api, h.db, h.auth, h.index, h.search = app, app.API, app.DB, app.Auth, app.Index, app.Search
	h.jobs, h.privacy, h.maps, h.raytrace, h.quota = app.Jobs, app.Privacy, app.Maps, app.Raytrace, app.Quota
	h.terrain, h.preds, h.backups, h.calib, h.standby = app.Terrain.Layered, app.Predictions, app.Backups, app.Calibration, app.Standby
	raw, err := os.ReadFile(filepath.Join(h.dataDir, tenancy.CredentialsFile))
	if err != nil {
		tb.Fatal(err)
	}
	var cred tenancy.Credentials
	if err := json.Unmarshal(raw, &cred); err != nil {
		tb.Fatal(err)
	}
	h.adminKey, h.adminSecret = cred.APIKey, cred.TOTPSecret
	h.keys["admin"] = cred.APIKey
	sk, err := h.standby.IssueKey(appliance.AuditEntry{ActorKey: "harness"})
	if err != nil {
		tb.Fatal(err)
	}
	h.standbyKey = sk.StandbyKey
	state := opt.state
	if state == "" {
		state = api.StateReady
	}
	h.api.SetState(state)
	h.srv = httptest.NewServer(h.api)
	tb.Cleanup(h.srv.Close)

	for _, k := range []struct {
		name string
		tier appliance.Tier
		role appliance.Role
	}{
		{"pro", appliance.TierPro, appliance.RoleTenant},
		{"free", appliance.TierFree, appliance.RoleTenant},
		{"internal", appliance.TierBusiness, appliance.RoleInternal},
		{"enterprise", appliance.TierEnterprise, appliance.RoleTenant},
		{"revoked", appliance.TierPro, appliance.RoleTenant},
		{"erased", appliance.TierPro, appliance.RoleTenant},
	} {
		h.issue(tb, k.name, k.tier, k.role)
	}
	h.keys["unknown"] = appliance.KeyPrefixTenant + strings.Repeat("0", 40)
	return h
}

// writeSecret writes a secret file, as an operator gives serve its
// --oidc-client-secret-file and --billing-webhook-secret-file.
func writeSecret(tb testing.TB, dir, name, secret string) string {
	tb.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(secret+"\n"), 0o600); err != nil {
		tb.Fatal(err)
	}
	return path
}

// issue issues a key through the tenancy service. The revoked and erased
// keys are stored directly in the state that a revocation and the privacy
// erase leave behind (tenant_test.go goes through those routes).
func (h *harness) issue(tb testing.TB, name string, tier appliance.Tier, role appliance.Role) string {
	tb.Helper()
	req := tenancy.IssueRequest{Tier: tier, Role: role, Owner: "harness " + name, Email: name + "@example.com"}
	if name != "revoked" && name != "erased" {
		plain, k, err := h.auth.Issue(req)
		if err != nil {
			tb.Fatal(err)
		}
		h.keys[name], h.keyIDs[name] = plain, k.ID
		return plain
	}
	var raw [20]byte
	_, _ = rand.Read(raw[:])
	plain := appliance.KeyPrefixTenant + hex.EncodeToString(raw[:])
	hash := tenancy.Hash(plain)
	k := &appliance.APIKey{ID: hash[:12], HashHex: hash, Prefix: plain[:14], Tier: tier, Role: role,
		Owner: req.Owner, Email: req.Email, TenantID: "t_" + hash[:12], CreatedUnix: h.clock.Now().Unix()}
	if name == "revoked" {
		k.RevokedUnix = h.clock.Now().Unix()
	} else {
		k.Tier = appliance.TierErased
	}
	if err := h.db.PutKey(k); err != nil {
		tb.Fatal(err)
	}
	h.keys[name], h.keyIDs[name] = plain, k.ID
	return plain
}

// freshTOTP moves the clock to a new step and returns the admin code for it.
func (h *harness) freshTOTP(tb testing.TB) string {
	tb.Helper()
	code, err := totp.GenerateCode(h.adminSecret, h.clock.nextStep())
	if err != nil {
		tb.Fatal(err)
	}
	return code
}

// response is a finished exchange.
type response struct {
	status int
	header http.Header
	body   []byte
}

func (r *response) json(tb testing.TB) map[string]any {
	tb.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		tb.Fatalf("body is not a JSON object: %v\n%s", err, r.body)
	}
	return m
}

// do sends one request to the harness server.
func (h *harness) do(tb testing.TB, method, url, key string, header map[string]string, body string) *response {
	tb.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, h.srv.URL+url, rd)
	if err != nil {
		tb.Fatal(err)
	}
	if key != "" {
		req.Header.Set("X-API-Key", key)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := h.srv.Client().Do(req)
	if err != nil {
		tb.Fatalf("%s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return &response{status: res.StatusCode, header: res.Header, body: b}
}
