package api_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"github.com/VictoriaMetrics/metrics"
	"io"
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
	"linkplan/appliance/auditlog"
	"linkplan/appliance/backup"
	"linkplan/appliance/basemap"
	"linkplan/appliance/batch"
	"linkplan/appliance/billing"
	"linkplan/appliance/branding"
	"linkplan/appliance/buildings"
	"linkplan/appliance/calibration"
	"linkplan/appliance/catalog"
	"linkplan/appliance/coverage"
	"linkplan/appliance/datamanifest"
	"linkplan/appliance/decodebudget"
	"linkplan/appliance/equipment"
	"linkplan/appliance/interference"
	"linkplan/appliance/jobs"
	"linkplan/appliance/observations"
	"linkplan/appliance/planner"
	"linkplan/appliance/prediction"
	"linkplan/appliance/privacy"
	"linkplan/appliance/ptp"
	"linkplan/appliance/quota"
	"linkplan/appliance/raytracing"
	"linkplan/appliance/refresh"
	"linkplan/appliance/repeater"
	"linkplan/appliance/sampledata"
	"linkplan/appliance/sso"
	"linkplan/appliance/sso/ssotest"
	"linkplan/appliance/standby"
	"linkplan/appliance/tenancy"
	"linkplan/engines"
	"linkplan/engines/itur"
	"linkplan/engines/ml/shipped"
	"linkplan/engines/raytrace"
	"linkplan/engines/raytrace/worker"
	"linkplan/store"
	"linkplan/store/search"
	"linkplan/store/spatial"
	"linkplan/terrain-packs/sample"
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

// harness is the real API composed in-process like the composition root
// (appliance/cmd/linkplan/serve.go): bbolt store in a temp dir, tenancy
// bootstrap, the embedded Rio sample terrain, the embedded sample towers
// through the refresh service, the R-tree index, the engine registry (fspl
// unwrapped, the others behind the fspl fallback) and the planner, behind
// httptest.
type harness struct {
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

// loadTowers reproduces the default branch of the composition root's boot
// (appliance/cmd/linkplan/app.go): the refresh service imports the embedded
// Anatel and OpenCelliD samples (placed, snapped, kept when on loaded
// terrain), appends synthetic towers inside the terrain bounds and the
// user towers from the store, records the refresh in the store and swaps
// the catalogue into the index.
func (h *harness) loadTowers(tb testing.TB, pack *terrain.Pack) {
	tb.Helper()
	gaz, err := catalog.EmbeddedGazetteer()
	if err != nil {
		tb.Fatal(err)
	}
	onTerrain := func(t *appliance.Tower) bool { _, err := h.terrain.ElevationM(t.Pos()); return err == nil }
	in := pack.Info().Bounds
	box := appliance.BBox{MinLat: float64(in.MinLat), MinLon: float64(in.MinLon), MaxLat: float64(in.MaxLat), MaxLon: float64(in.MaxLon)}
	var synthetic []*appliance.Tower
	syn := catalog.SyntheticInBox(box, 3, 1)
	for i := range syn {
		if onTerrain(&syn[i]) {
			synthetic = append(synthetic, &syn[i])
		}
	}
	h.index = spatial.New(nil)
	ms := gaz.All()
	places := make([]search.Place, len(ms))
	for i, m := range ms {
		places[i] = search.Place{IBGECode: m.IBGECode, Name: m.Name, UF: m.UF, Region: string(m.Region), Lat: m.Lat, Lon: m.Lon, Capital: m.Capital}
	}
	h.search = search.New(places, search.Options{Dir: filepath.Join(h.dataDir, "search"), Address: func(t *appliance.Tower) string { return t.Address }})
	if err := h.search.Open(context.Background()); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = h.search.Close() })
	rs := refresh.New(gaz, nil)
	rs.Recorder = h.db
	// As the composition root: the R-tree swap, then the full-text index
	// rebuilt in the background (the harness waits for it below, so that
	// scenarios do not depend on the build's timing).
	rs.Apply = func(ts []*appliance.Tower) error {
		user, err := h.db.UserTowers()
		if err != nil {
			return err
		}
		all := append(append(append([]*appliance.Tower(nil), ts...), synthetic...), user...)
		h.index.Replace(all)
		return h.search.ReplaceTowersInBackground("", all)
	}
	rs.Sources = []refresh.Source{
		{Name: "embedded:anatel_erbs_sample.csv", Read: refresh.ReadAllFrom(sampledata.AnatelERBs()), Keep: onTerrain},
		{Name: "embedded:opencellid_724_sample.csv", Read: refresh.ReadAllFrom(sampledata.OpenCelliD()), Keep: onTerrain},
	}
	if _, err := rs.RefreshOnce(context.Background(), true); err != nil {
		tb.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for st := h.search.TowerState(); !st.Ready || st.Building; st = h.search.TowerState() {
		if st.Err != nil || time.Now().After(deadline) {
			tb.Fatalf("tower search index: %+v", st)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

var (
	ituOnce sync.Once
	ituMap  *itur.Maps
	ituErr  error
)

// ituMaps are the embedded ITU-R maps, loaded once for every harness.
func ituMaps(tb testing.TB) *itur.Maps {
	ituOnce.Do(func() { ituMap, ituErr = itur.LoadMaps() })
	if ituErr != nil {
		tb.Fatal(ituErr)
	}
	return ituMap
}

func newHarness(tb testing.TB, opt harnessOptions) *harness {
	tb.Helper()
	h := &harness{dataDir: tb.TempDir(), clock: &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)},
		keys: map[string]string{}, keyIDs: map[string]string{}, desc: terrainDesc}
	db, err := store.Open(h.dataDir, store.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	h.db = db
	tb.Cleanup(func() { _ = db.Close() })
	h.auth = tenancy.New(db, h.clock.Now)
	if _, created, err := h.auth.Bootstrap(h.dataDir); err != nil || !created {
		tb.Fatalf("bootstrap: created=%v err=%v", created, err)
	}
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

	pack, err := terrain.OpenBytes(sample.Pack())
	if err != nil {
		tb.Fatal(err)
	}
	h.terrain = terrain.NewLayered(pack)
	h.loadTowers(tb, pack)
	reg, err := engines.New(engines.Config{})
	if err != nil {
		tb.Fatal(err)
	}
	var ix appliance.TowerIndex = h.index
	if opt.towers != nil {
		ix = opt.towers(h.index)
	}
	towers := func() appliance.TowerIndex { return ix }
	plan := planner.New(h.terrain, towers, reg.WithFallback)
	equip := equipment.New(db, h.clock.Now)
	plan.Antennas = equip
	links := ptp.New(h.terrain, reg.WithFallback, equip, ituMaps(tb))
	links.TerrainDescription = h.desc
	var towerDB api.TowerStore = db
	if opt.towerDB != nil {
		towerDB = opt.towerDB(db)
	}
	var auth api.Authenticator = h.auth
	if opt.auth != nil {
		auth = opt.auth(h.auth)
	}
	var clutter appliance.ClutterMap = h.terrain
	mset := metrics.NewSet()
	// One heavy-work scheduler for maps and jobs, as serve composes it.
	heavy := admission.Options{}
	if opt.heavy != nil {
		heavy = *opt.heavy
	}
	heavy.Metrics = mset
	sched := admission.New(heavy)
	var (
		bsvc  *batch.Service
		plans *repeater.Submitter
	)
	jobCost := func(j *appliance.Job) (appliance.HeavyWork, bool) {
		switch j.Kind {
		case appliance.JobKindRepeaterPlan:
			return plans.Cost(j)
		case appliance.JobKindObservationResiduals, appliance.JobKindCalibrationFit:
			return h.calib.Cost(j)
		}
		return bsvc.Cost(j)
	}
	h.jobs = jobs.New(db, filepath.Join(h.dataDir, "jobs"), jobs.Options{PollInterval: 20 * time.Millisecond, Workers: 1, Metrics: mset,
		Admission: sched, Cost: jobCost})
	var enq batch.Enqueuer = h.jobs
	if opt.enqueue != nil {
		enq = opt.enqueue(h.jobs)
	}
	bsvc = batch.New(batch.Deps{Analyzer: plan, Queue: enq, Quota: db, Terrain: h.desc, NewID: jobs.NewID,
		ResolveEngine: func(k *appliance.APIKey, id appliance.EngineID) (appliance.EngineID, string, error) {
			return api.ResolveEngine(reg, k, id)
		}})
	h.jobs.Register(appliance.JobKindBatchReport, bsvc.Handler())
	relays := repeater.New(h.terrain, towers, reg.WithFallback, 0)
	relays.Antennas = equip
	plans = &repeater.Submitter{Plans: relays, Queue: h.jobs, NewID: jobs.NewID}
	h.jobs.Register(appliance.JobKindRepeaterPlan, plans.Handler())
	h.privacy = privacy.New(db, h.jobs, func(k *appliance.APIKey, code string, c privacy.Client) error {
		return h.auth.VerifyAdminFrom(k, code, tenancy.Client(c))
	}, privacy.Options{Clock: h.clock.Now, TowersDeleted: func(ids []string) {
		h.index.Delete(ids...)
		for _, id := range ids {
			if err := h.search.DeleteTower(context.Background(), "", id); err != nil {
				panic(err) // the harness's index is open for the whole test
			}
		}
	}})
	h.jobs.Register(appliance.JobKindDSARHardDelete, h.privacy.Handler())
	// The raytrace engine on the in-process executor (the CPU backend in
	// this process; the worker process is tested on the binary).
	layerIndex := &raytrace.LayerIndex{Cache: raytrace.NewCache(4), Terrain: h.terrain}
	h.raytrace = &raytracing.Service{Layers: db, Scenes: layerIndex, Executor: worker.NewInProcess(4), Queue: h.jobs, Towers: towers, NewID: jobs.NewID, Metrics: mset}
	h.jobs.Register(appliance.JobKindRaytraceLink, h.raytrace.Handler())
	// The tenants' residual reports and calibrations, as the composition
	// root composes them (the planner and the maps apply them).
	h.calib = calibration.New(calibration.Deps{Store: db, Queue: h.jobs, NewID: jobs.NewID, TerrainDescription: h.desc, Now: h.clock.Now,
		Predictor: &calibration.Predictor{Terrain: h.terrain, Engine: reg.WithFallback, Choose: reg.Choose}})
	if err := h.calib.Open(context.Background()); err != nil {
		tb.Fatal(err)
	}
	plan.Calibrations = h.calib
	h.jobs.Register(appliance.JobKindObservationResiduals, h.calib.ReportHandler())
	h.jobs.Register(appliance.JobKindCalibrationFit, h.calib.FitHandler())
	if err := h.jobs.Start(context.Background()); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { // before the database closes (cleanups run last first)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := h.jobs.Close(ctx); err != nil {
			tb.Errorf("jobs drain: %v", err)
		}
	})
	h.maps = coverage.NewMaps(coverage.New(h.terrain, reg.Get), coverage.MapsOptions{Admitter: sched,
		Dir: filepath.Join(h.dataDir, "maps")})
	if err := h.maps.Open(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(h.maps.Close)
	h.raytrace.Maps = h.maps
	var (
		meter api.Metering
		pdfs  api.PDFReserver
	)
	if !opt.unmetered {
		h.quota = quota.New(db, quota.Options{Now: h.clock.Now})
		if err := h.quota.Start(context.Background()); err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { // before the database closes
			if err := h.quota.Close(context.Background()); err != nil {
				tb.Errorf("quota flush: %v", err)
			}
		})
		meter, pdfs = h.quota, h.quota
	}
	var ssoDep api.SSO
	if opt.sso {
		h.issuer = ssotest.New(tb, "linkplan-console", nil)
		svc, err := sso.New(sso.Config{IssuerURL: h.issuer.URL, ClientID: h.issuer.ClientID, ClientSecret: h.issuer.ClientSecret,
			RedirectURL: "https://console.example/auth/oidc/callback", HTTPClient: h.issuer.Client()}, db)
		if err != nil {
			tb.Fatal(err)
		}
		ssoDep = svc
	}
	var billingDep api.Billing
	if opt.billing {
		svc, err := billing.New(billing.Config{Secret: billingSecret}, db, func(tier appliance.Tier, owner, email string) (string, *appliance.APIKey, error) {
			return h.auth.Mint(tenancy.IssueRequest{Tier: tier, Owner: owner, Email: email})
		})
		if err != nil {
			tb.Fatal(err)
		}
		billingDep = svc
	}
	var aiQuota ai.Quota
	if h.quota != nil {
		aiQuota = h.quota
	}
	tiles, err := basemap.New(h.terrain, basemap.Options{Identity: h.desc})
	if err != nil {
		tb.Fatal(err)
	}
	// The operator's basemap: a small raster archive written here.
	ext, err := basemap.OpenExternal(writeExtArchive(tb, h.dataDir))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = ext.Close() })
	// The learned models as the composition root serves them: the shipped
	// set while the state directory has no models/current/.
	gaz, err := catalog.EmbeddedGazetteer()
	if err != nil {
		tb.Fatal(err)
	}
	preds, err := prediction.New(prediction.Deps{Terrain: h.terrain, Clutter: clutter, Engines: reg.WithFallback,
		Tower: func(tenantID, id string) (*appliance.Tower, bool) {
			t, ok := towers().Get(id)
			if !ok || !t.VisibleTo(tenantID) {
				return nil, false
			}
			return t, true
		},
		RegionAt:  func(p appliance.LatLon) string { return string(gaz.RegionAt(p)) },
		ModelsDir: filepath.Join(h.dataDir, "models"), Shipped: shipped.FS(), Now: h.clock.Now, Metrics: mset})
	if err != nil {
		tb.Fatal(err)
	}
	if err := preds.Reload(context.Background()); err != nil {
		tb.Fatal(err)
	}
	h.preds = preds
	// Backups as the composition root takes them, on demand into the data
	// directory; the structural check runs in process here (the harness's
	// files are sound; the child-process check is the binary's).
	h.backups, err = backup.New(&backup.Writer{DB: db, Version: "test",
		Check: func(_ context.Context, path string) (appliance.DBCheck, error) { return store.CheckFile(path) }},
		backup.Options{Scratch: h.dataDir, Audit: db.AppendAudit, Metrics: mset})
	if err != nil {
		tb.Fatal(err)
	}
	// The data manifest over what the harness serves: the embedded pack and
	// tower samples (hashed from memory, never pending), with the refresh
	// records of loadTowers.
	data := datamanifest.New(datamanifest.Deps{Refreshes: db, Inputs: func() ([]datamanifest.Input, error) {
		return []datamanifest.Input{
			{Kind: appliance.DataKindTerrainPack, Name: "embedded:rio.ltp", Data: sample.Pack(), Tiles: len(pack.Entries()),
				Bounds: &appliance.BBox{MinLat: -23, MinLon: -44, MaxLat: -21, MaxLon: -42}},
			{Kind: appliance.DataKindTowerSource, Name: "embedded:anatel_erbs_sample.csv", Data: sampledata.AnatelERBs()},
			{Kind: appliance.DataKindTowerSource, Name: "embedded:opencellid_724_sample.csv", Data: sampledata.OpenCelliD()},
		}, nil
	}})
	h.standby = standby.NewSource(standby.SourceDeps{DataDir: h.dataDir, Take: h.backups.Take, Audit: db.AppendAudit, Version: "test", Now: h.clock.Now})
	sk, err := h.standby.IssueKey(appliance.AuditEntry{ActorKey: "harness"})
	if err != nil {
		tb.Fatal(err)
	}
	h.standbyKey = sk.StandbyKey
	h.api = api.New(api.Deps{
		Failover:        h.standby,
		Replication:     h.standby,
		Data:            data,
		Decode:          opt.decode,
		Backups:         h.backups,
		Predictions:     preds,
		Basemap:         tiles,
		ExternalBasemap: ext,
		Explainer:       ai.New(ai.Deps{Provider: opt.aiProvider, Links: plan, Heights: plan, Compare: reg, Terrain: h.terrain, Jobs: h.jobs, Quota: aiQuota, Metrics: mset}),
		SSO:             ssoDep, Billing: billingDep, Branding: branding.New(db, h.clock.Now), Equipment: equip, PTP: links,
		Quota: meter, PDFs: pdfs, Audit: auditlog.New(db),
		Jobs: h.jobs, Batches: bsvc, Metrics: mset,
		Heatmaps: &coverage.Starter{Maps: h.maps, Towers: towers, Antennas: equip, Audit: db.AppendAudit, Calibrations: h.calib}, Repeaters: plans,
		Calibration:      h.calib,
		LinkInterference: &interference.LinkService{Terrain: h.terrain, Towers: towers, Engines: reg.WithFallback, Antennas: equip},
		NetworkMaps: &interference.Maps{Starter: &coverage.Starter{Maps: h.maps, Towers: towers, Antennas: equip, Audit: db.AppendAudit, Calibrations: h.calib},
			Service: interference.New(h.terrain, reg.Get), Coverage: coverage.New(h.terrain, reg.Get)},
		Keys: h.auth, Tenants: h.auth, Privacy: h.privacy,
		Buildings: &buildings.Service{Store: db, Index: layerIndex, Now: h.clock.Now},
		Raytrace:  h.raytrace,
		Observations: observations.New(refittingStore{DB: db, calib: h.calib}, func(k *appliance.APIKey, id string) (*appliance.Tower, bool) {
			t, ok := towers().Get(id)
			if !ok || !t.VisibleTo(k.TenantID) {
				return nil, false
			}
			return t, true
		}, observations.Config{Now: h.clock.Now, Metrics: mset}),
		Clutter: clutter,
		Auth:    auth, Links: plan, Towers: towers, Search: h.search,
		Upsert: func(t *appliance.Tower) {
			h.index.Upsert(t)
			if err := h.search.UpsertTower(context.Background(), "", t); err != nil {
				panic(err) // the harness's index is open for the whole test
			}
		},
		TowerDB: towerDB, Refreshes: db, Engines: reg, Pairs: plan, Terrain: h.terrain, Version: "test", Offline: true, TerrainDescription: h.desc,
		Checks: []api.Check{
			{Name: "database", Fn: func(context.Context) error { return db.Ping() }},
			{Name: "terrain", Fn: func(context.Context) error {
				ents := pack.Entries()
				if len(ents) == 0 {
					return errors.New("terrain pack has no tile")
				}
				_, err := pack.ReadTile(ents[0].Tile)
				return err
			}},
			{Name: "towers", Fn: func(context.Context) error {
				if h.index.Len() == 0 {
					return errors.New("no tower loaded")
				}
				return nil
			}},
			api.QueueCheck(h.jobs),
		},
	})
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

// refittingStore is the observation store of the harness: the store, and
// the calibration service told of the consented rows each submission
// stored (the composition root's observingStore does the same).
type refittingStore struct {
	*store.DB
	calib *calibration.Service
}

func (s refittingStore) PutObservations(tenant string, kind appliance.ObservationKind, rows []appliance.Observation, keys []string,
	dividends []*appliance.DividendEvent, audit ...appliance.AuditEntry) ([]bool, error) {
	stored, err := s.DB.PutObservations(tenant, kind, rows, keys, dividends, audit...)
	if err != nil {
		return stored, err
	}
	n := 0
	for i, ok := range stored {
		if ok && rows[i].Consent == appliance.ConsentConsented {
			n++
		}
	}
	s.calib.ObservationsStored(context.Background(), tenant, n)
	return stored, nil
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
