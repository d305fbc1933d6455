package buildings_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/admission"
	"linkplan/appliance/buildings"
	"linkplan/engines/raytrace"
	"linkplan/store"
)

// countingStore is the real store, counting the reads that decode a
// layer's buildings.
type countingStore struct {
	*store.DB
	decodes atomic.Int32
}

func (c *countingStore) BuildingLayer(tenantID, id string, withBuildings bool) (*appliance.BuildingLayer, []appliance.Building, error) {
	if withBuildings {
		c.decodes.Add(1)
	}
	return c.DB.BuildingLayer(tenantID, id, withBuildings)
}

// block is a GeoJSON layer of n×n buildings 30 m × 25 m on a 60 m pitch
// in Rio, 10 to 28 m tall (generated here).
func block(n int) []byte {
	f := raytrace.NewFrame(appliance.LatLon{Lat: -22.9519, Lon: -43.2105})
	var b strings.Builder
	b.WriteString(`{"type":"FeatureCollection","features":[`)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			x0, y0 := float64(i-n/2)*60+10, float64(j-n/2)*60+10
			var coords []string
			for _, p := range []appliance.LatLon{f.ToLatLon(x0, y0), f.ToLatLon(x0+30, y0), f.ToLatLon(x0+30, y0+25), f.ToLatLon(x0, y0+25), f.ToLatLon(x0, y0)} {
				coords = append(coords, fmt.Sprintf("[%.7f,%.7f]", p.Lon, p.Lat))
			}
			if i+j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"type":"Feature","id":"b%d_%d","properties":{"height":"%d"},"geometry":{"type":"Polygon","coordinates":[[%s]]}}`,
				i, j, 10+((i*5+j*3)%4)*6, strings.Join(coords, ","))
		}
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

type fixture struct {
	db    *countingStore
	index *raytrace.LayerIndex
	svc   *buildings.Service
	ent   *appliance.APIKey
}

func newFixture(t testing.TB, a appliance.Admitter) *fixture {
	t.Helper()
	db, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	cs := &countingStore{DB: db}
	index := &raytrace.LayerIndex{Cache: raytrace.NewSizedCache(1 << 30)}
	return &fixture{db: cs, index: index, svc: &buildings.Service{Store: cs, Index: index, Admitter: a},
		ent: &appliance.APIKey{ID: "k_ent", TenantID: "t_ent", Tier: appliance.TierEnterprise}}
}

func (f *fixture) upload(t testing.TB, name string, data []byte) *appliance.BuildingLayer {
	t.Helper()
	l, _, err := f.svc.Upload(context.Background(), f.ent, buildings.UploadRequest{Name: name}, data, appliance.AuditEntry{})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestIssue24_GetLoadsNoBuildings: GET of a layer whose scene is cached
// reads the layer's record only; the buildings are decoded only when the
// cache lost the scene, and the scene is then rebuilt once.
func TestIssue24_GetLoadsNoBuildings(t *testing.T) {
	f := newFixture(t, admission.New(admission.Options{Workers: 1}))
	l := f.upload(t, "block", block(20))
	f.db.decodes.Store(0)
	start := time.Now()
	for range 3 {
		_, ix, err := f.svc.Get(context.Background(), f.ent, l.ID)
		if err != nil || !ix.Cached {
			t.Fatalf("get: cached=%v err=%v", ix != nil && ix.Cached, err)
		}
	}
	t.Logf("3 GETs of a cached 400-building layer: %v, %d building decodes", time.Since(start), f.db.decodes.Load())
	if n := f.db.decodes.Load(); n != 0 {
		t.Fatalf("GET of a cached layer decoded its buildings %d times", n)
	}
	f.index.Forget(l)
	_, ix, err := f.svc.Get(context.Background(), f.ent, l.ID)
	if err != nil || ix.Cached || ix.Buildings != 400 || f.db.decodes.Load() != 1 {
		t.Fatalf("get after the cache lost the scene: %+v err=%v decodes=%d", ix, err, f.db.decodes.Load())
	}
}

// TestIssue24_SceneBuildAdmitted: a scene built on a miss is heavy work:
// with the scheduler's queue full of this tenant's work, GET of a layer
// the cache lost answers 503 + Retry-After (a *RetryAfterError) without
// decoding the buildings, while a cached layer still answers at once.
func TestIssue24_SceneBuildAdmitted(t *testing.T) {
	sched := admission.New(admission.Options{Workers: 1, MaxQueuePerTenant: 1})
	f := newFixture(t, sched)
	cold := f.upload(t, "cold", block(4))
	warm := f.upload(t, "warm", block(3))
	f.index.Forget(cold)
	// One running piece holds the only slot, one of the tenant waits.
	run, err := sched.Submit(appliance.HeavyWork{TenantID: f.ent.TenantID, Tier: f.ent.Tier, Kind: "heatmap", Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := run.Wait(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	defer run.Release()
	waiting, err := sched.Submit(appliance.HeavyWork{TenantID: f.ent.TenantID, Tier: f.ent.Tier, Kind: "heatmap", Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer waiting.Release()
	f.db.decodes.Store(0)
	_, _, err = f.svc.Get(context.Background(), f.ent, cold.ID)
	var ra *appliance.RetryAfterError
	if !errors.As(err, &ra) || !errors.Is(err, appliance.ErrUnavailable) || ra.After <= 0 {
		t.Fatalf("GET of an uncached layer with the queue full: %v, want a RetryAfterError", err)
	}
	if f.db.decodes.Load() != 0 {
		t.Fatal("a refused build decoded the buildings")
	}
	if _, ix, err := f.svc.Get(context.Background(), f.ent, warm.ID); err != nil || !ix.Cached {
		t.Fatalf("GET of a cached layer with the queue full: %v", err)
	}
	// An upload is heavy work too.
	if _, _, err := f.svc.Upload(context.Background(), f.ent, buildings.UploadRequest{Name: "late"}, block(2), appliance.AuditEntry{}); !errors.As(err, &ra) {
		t.Fatalf("upload with the queue full: %v, want a RetryAfterError", err)
	}
	// Once the slot frees, the build waits for it and runs.
	waiting.Release()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { _, _, err := f.svc.Get(ctx, f.ent, cold.ID); done <- err }()
	time.Sleep(50 * time.Millisecond)
	if st := sched.Stats(); st.Waiting != 1 {
		t.Fatalf("the build should wait for the slot: %+v", st)
	}
	run.Release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestIssue24_OverQuotaBeforeParse: the 21st layer of an Enterprise tenant
// is refused (ErrQuota, 429) before its file is parsed or its scene built:
// an unparseable file gets the quota answer, and the scene cache does not
// grow.
func TestIssue24_OverQuotaBeforeParse(t *testing.T) {
	f := newFixture(t, nil)
	for i := range 20 {
		f.upload(t, fmt.Sprint("l", i), block(2))
	}
	n := f.index.Cache.Len()
	_, _, err := f.svc.Upload(context.Background(), f.ent, buildings.UploadRequest{Name: "over"}, []byte("not a building file"), appliance.AuditEntry{})
	if !errors.Is(err, appliance.ErrQuota) {
		t.Fatalf("21st layer, unparseable: %v, want the quota refusal", err)
	}
	start := time.Now()
	_, _, err = f.svc.Upload(context.Background(), f.ent, buildings.UploadRequest{Name: "over"}, block(30), appliance.AuditEntry{})
	t.Logf("21st layer (900 buildings) refused in %v: %v", time.Since(start), err)
	if !errors.Is(err, appliance.ErrQuota) || f.index.Cache.Len() != n {
		t.Fatalf("21st layer: %v; cache %d scenes, was %d", err, f.index.Cache.Len(), n)
	}
}

// BenchmarkIssue24_GetCached is GET of a cached 40 000-building layer:
// "record" is the service's Get (the layer's record, the scene from the
// cache); "with_buildings" is what Get did before issue 24's review (the
// record and every building decoded, then the cached scene).
func BenchmarkIssue24_GetCached(b *testing.B) {
	f := newFixture(b, nil)
	data := block(200)
	start := time.Now()
	l := f.upload(b, "big", data)
	b.Logf("upload of %d bytes, %d buildings: %v; scene %d MiB estimated (EstimateBytes %d MiB)", len(data), l.Buildings, time.Since(start),
		f.index.Cache.Bytes()>>20, f.index.EstimateBytes(l)>>20)
	b.Run("record", func(b *testing.B) {
		for b.Loop() {
			if _, ix, err := f.svc.Get(context.Background(), f.ent, l.ID); err != nil || !ix.Cached {
				b.Fatal(err)
			}
		}
	})
	b.Run("with_buildings", func(b *testing.B) {
		for b.Loop() {
			l, bs, err := f.db.BuildingLayer(f.ent.TenantID, l.ID, true)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := f.index.Index(context.Background(), l, func() ([]appliance.Building, error) { return bs, nil }); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestIssue24_AdminKeyOneRule: the raytrace engine and the building layers
// follow one rule (appliance.RaytraceTier): an admin key of a Pro tenant,
// which may start raytrace work, may upload and list layers too, with
// Ultra's caps; a Pro key may do neither.
func TestIssue24_AdminKeyOneRule(t *testing.T) {
	f := newFixture(t, nil)
	admin := &appliance.APIKey{ID: "k_admin", TenantID: "t_pro", Tier: appliance.TierPro, Role: appliance.RoleAdmin}
	pro := &appliance.APIKey{ID: "k_pro", TenantID: "t_pro", Tier: appliance.TierPro}
	if tier, ok := appliance.RaytraceTier(admin); !ok || tier != appliance.TierUltra {
		t.Fatalf("admin key: %s %v", tier, ok)
	}
	if _, ok := appliance.RaytraceTier(pro); ok {
		t.Fatal("a Pro key may use the raytrace engine")
	}
	l, _, err := f.svc.Upload(context.Background(), admin, buildings.UploadRequest{Name: "admin"}, block(2), appliance.AuditEntry{})
	if err != nil {
		t.Fatalf("admin upload: %v", err)
	}
	_, u, err := f.svc.List(admin)
	if err != nil || u.Layers != 1 || u.LayersLimit != 100 {
		t.Fatalf("admin list: %+v %v (want Ultra's 100 layers)", u, err)
	}
	if _, _, err := f.svc.Get(context.Background(), admin, l.ID); err != nil {
		t.Fatalf("admin get: %v", err)
	}
	if _, _, err := f.svc.Upload(context.Background(), pro, buildings.UploadRequest{Name: "pro"}, block(2), appliance.AuditEntry{}); !errors.Is(err, appliance.ErrForbidden) {
		t.Fatalf("Pro upload: %v, want ErrForbidden", err)
	}
}

// TestRVBld_CheckUploadBeforeRead: what an upload must pass before a byte
// of its body is read (rvapi finding 3), in Upload's order, from its
// Content-Length: the tier (403), the tier's file cap (413), the
// parameters (422) and the quota (429); the answer is the key's own file
// cap, which bounds the read.
func TestRVBld_CheckUploadBeforeRead(t *testing.T) {
	f := newFixture(t, nil)
	full := &appliance.APIKey{ID: "k_full", TenantID: "t_full", Tier: appliance.TierEnterprise}
	for i := range 20 {
		if _, _, err := f.svc.Upload(context.Background(), full, buildings.UploadRequest{Name: fmt.Sprint("l", i)}, block(1), appliance.AuditEntry{}); err != nil {
			t.Fatal(err)
		}
	}
	key := func(tier appliance.Tier, role appliance.Role) *appliance.APIKey {
		return &appliance.APIKey{ID: "k_" + string(tier), TenantID: "t_" + string(tier), Tier: tier, Role: role}
	}
	ok := buildings.UploadRequest{Name: "x"}
	cases := []struct {
		name    string
		key     *appliance.APIKey
		req     buildings.UploadRequest
		size    int64
		wantCap int64
		wantErr error // nil: passes
		tooBig  bool  // a *TooLargeError (413)
		params  error // the route's refusal of its query parameters
	}{
		{name: "Free, a bad query parameter: the tier first", key: key(appliance.TierFree, appliance.RoleTenant), req: ok, size: 1000,
			params: appliance.Invalid("foo", "is not a parameter of this route"), wantErr: appliance.ErrForbidden},
		{name: "Enterprise, a bad query parameter", key: key(appliance.TierEnterprise, appliance.RoleTenant), req: ok, size: 1000,
			params: appliance.Invalid("foo", "is not a parameter of this route"), wantErr: appliance.ErrInvalid},
		{name: "Free, near the route's limit", key: key(appliance.TierFree, appliance.RoleTenant), req: ok, size: 128<<20 - 64, wantErr: appliance.ErrForbidden},
		{name: "Business", key: key(appliance.TierBusiness, appliance.RoleTenant), req: ok, size: 1000, wantErr: appliance.ErrForbidden},
		{name: "Free, no name, unknown length", key: key(appliance.TierFree, appliance.RoleTenant), size: -1, wantErr: appliance.ErrForbidden},
		{name: "Enterprise at its cap", key: key(appliance.TierEnterprise, appliance.RoleTenant), req: ok, size: 32 << 20, wantCap: 32 << 20},
		{name: "Enterprise, unknown length", key: key(appliance.TierEnterprise, appliance.RoleTenant), req: ok, size: -1, wantCap: 32 << 20},
		{name: "Enterprise one byte over its cap", key: key(appliance.TierEnterprise, appliance.RoleTenant), req: ok, size: 32<<20 + 1, wantErr: appliance.ErrQuota, tooBig: true},
		{name: "Enterprise, no name", key: key(appliance.TierEnterprise, appliance.RoleTenant), size: 1000, wantErr: appliance.ErrInvalid},
		{name: "Enterprise, empty body", key: key(appliance.TierEnterprise, appliance.RoleTenant), req: ok, size: 0, wantErr: appliance.ErrInvalid},
		{name: "Enterprise, layer quota full", key: full, req: ok, size: 1000, wantErr: appliance.ErrQuota},
		{name: "Ultra at its cap", key: key(appliance.TierUltra, appliance.RoleTenant), req: ok, size: 128 << 20, wantCap: 128 << 20},
		{name: "Ultra one byte over its cap", key: key(appliance.TierUltra, appliance.RoleTenant), req: ok, size: 128<<20 + 1, wantErr: appliance.ErrQuota, tooBig: true},
		{name: "admin key of a Pro tenant: Ultra's cap", key: key(appliance.TierPro, appliance.RoleAdmin), req: ok, size: 64 << 20, wantCap: 128 << 20},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := f.svc.CheckUpload(c.key, c.req, c.params, c.size)
			var tl *buildings.TooLargeError
			switch {
			case c.wantErr == nil && (err != nil || got != c.wantCap):
				t.Fatalf("cap %d, err %v; want cap %d", got, err, c.wantCap)
			case c.wantErr != nil && !errors.Is(err, c.wantErr):
				t.Fatalf("err %v, want one matching %v", err, c.wantErr)
			case errors.As(err, &tl) != c.tooBig:
				t.Fatalf("err %v: want a TooLargeError %v", err, c.tooBig)
			}
		})
	}
}

// TestRVBld_OwnLayersAtAnyTier: a tenant that moved below Enterprise
// (rvapi finding 9) still lists, inspects and deletes its own layers; it
// uploads none, and another tenant's layer stays a missing one.
func TestRVBld_OwnLayersAtAnyTier(t *testing.T) {
	f := newFixture(t, nil)
	l := f.upload(t, "kept", block(2))
	other := &appliance.APIKey{ID: "k_other", TenantID: "t_other", Tier: appliance.TierEnterprise}
	for _, tier := range []appliance.Tier{appliance.TierBusiness, appliance.TierPro, appliance.TierFree} {
		t.Run(string(tier), func(t *testing.T) {
			k := &appliance.APIKey{ID: f.ent.ID, TenantID: f.ent.TenantID, Tier: tier}
			ls, u, err := f.svc.List(k)
			if err != nil || len(ls) != 1 || ls[0].ID != l.ID || u.Layers != 1 || u.Bytes != l.SizeBytes || u.LayersLimit != 0 || u.FileBytesLimit != 0 {
				t.Fatalf("list: %d layers, %+v, %v", len(ls), u, err)
			}
			if got, ix, err := f.svc.Get(context.Background(), k, l.ID); err != nil || got.ID != l.ID || ix.Buildings != 4 {
				t.Fatalf("get: %v", err)
			}
			if _, _, err := f.svc.Upload(context.Background(), k, buildings.UploadRequest{Name: "new"}, block(1), appliance.AuditEntry{}); !errors.Is(err, appliance.ErrForbidden) {
				t.Fatalf("upload: %v, want ErrForbidden", err)
			}
			if _, _, err := f.svc.Get(context.Background(), &appliance.APIKey{ID: "k_o", TenantID: other.TenantID, Tier: tier}, l.ID); !errors.Is(err, appliance.ErrNotFound) {
				t.Fatalf("another tenant's get: %v, want ErrNotFound", err)
			}
		})
	}
	k := &appliance.APIKey{ID: f.ent.ID, TenantID: f.ent.TenantID, Tier: appliance.TierFree}
	if err := f.svc.Delete(other, l.ID, appliance.AuditEntry{}); !errors.Is(err, appliance.ErrNotFound) {
		t.Fatalf("another tenant's delete: %v, want ErrNotFound", err)
	}
	if err := f.svc.Delete(k, l.ID, appliance.AuditEntry{}); err != nil {
		t.Fatalf("delete at Free: %v", err)
	}
	if ls, u, err := f.svc.List(k); err != nil || len(ls) != 0 || u.Bytes != 0 {
		t.Fatalf("after delete: %d layers, %+v, %v", len(ls), u, err)
	}
}
