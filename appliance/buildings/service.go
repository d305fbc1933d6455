package buildings

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"linkplan/appliance"
)

// Store keeps the layers (store/buildings.go).
type Store interface {
	PutBuildingLayer(l *appliance.BuildingLayer, bs []appliance.Building, maxLayers int, maxBytes int64, audit ...appliance.AuditEntry) error
	BuildingLayers(tenantID string) ([]*appliance.BuildingLayer, error)
	BuildingLayer(tenantID, id string, withBuildings bool) (*appliance.BuildingLayer, []appliance.Building, error)
	DeleteBuildingLayer(tenantID, id string, audit ...appliance.AuditEntry) error
	BuildingLayerUsage(tenantID string) (int, int64, error)
}

// Indexer builds the traceable, indexed scene of a layer once and keeps it
// (engines/raytrace's scene cache, wired in the composition root). Index
// builds the scene from load's buildings only when it does not hold it,
// and refuses a layer the engine cannot trace with an error matching
// appliance.ErrInvalid. EstimateBytes is the peak memory of a build from
// the layer's record, bytes.
type Indexer interface {
	Index(ctx context.Context, l *appliance.BuildingLayer, load func() ([]appliance.Building, error)) (appliance.BuildingIndex, error)
	EstimateBytes(l *appliance.BuildingLayer) int64
	// Built reports whether l's scene is built (waiting for a build in
	// progress), building nothing.
	Built(l *appliance.BuildingLayer) bool
	Forget(l *appliance.BuildingLayer)
}

// Service is the building-layer service. Construct it with its fields set;
// Now and NewID default to the clock and random ids.
type Service struct {
	Store Store
	Index Indexer
	// Admitter admits the heavy work of uploads (parse and scene build)
	// and of scenes built on a cache miss (package doc, "Heavy work"); nil:
	// none.
	Admitter appliance.Admitter
	Now      func() time.Time
	NewID    func() string
}

// Kinds of the heavy work of building layers (appliance.HeavyWork.Kind).
const (
	KindUpload     = "building_layer_upload"
	KindSceneBuild = "building_scene_build"
)

// uploadBytesPerFileByte is an upload's peak memory per byte of its file
// (decoded features, the buildings and the scene they build): measured
// on a 40 000-building city block (BenchmarkIssue24_GetCached: a 9.6 MB
// GeoJSON file, an 806 MiB scene), rounded up.
const uploadBytesPerFileByte = 100

// admitBuild admits the build of l's scene on a cache miss for k's
// tenant; release after the build.
func (s *Service) admitBuild(ctx context.Context, k *appliance.APIKey, l *appliance.BuildingLayer) (func(), error) {
	return appliance.AdmitNow(ctx, s.Admitter, appliance.HeavyWork{TenantID: k.TenantID, Tier: k.Tier, Kind: KindSceneBuild,
		Workers: 1, MemBytes: s.Index.EstimateBytes(l)})
}

// UploadRequest holds the choices of an upload; zero values take the
// defaults (concrete, medium dry ground, 3 m storeys, 9 m default height).
type UploadRequest struct {
	Name           string
	Material       string
	Ground         string
	ClassMaterials map[string]string
	StoreyHeightM  float64
	DefaultHeightM float64
}

// TooLargeError is a file over the tier's size cap.
type TooLargeError struct {
	Size, Limit int64
	Tier        appliance.Tier
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("the file is %d bytes; building layers of the %s tier are limited to %d bytes", e.Size, e.Tier, e.Limit)
}

// Is makes a TooLargeError match appliance.ErrQuota.
func (e *TooLargeError) Is(target error) bool { return target == appliance.ErrQuota }

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Service) newID() string {
	if s.NewID != nil {
		return s.NewID()
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "bl_" + hex.EncodeToString(b[:])
}

// allowed refuses keys without building layers (appliance.RaytraceTier,
// the raytrace engine's rule) and returns the caps of the tier they use.
func allowed(k *appliance.APIKey) (int64, int64, int, error) {
	tier, ok := appliance.RaytraceTier(k)
	f, t, n := tier.BuildingLayerLimits()
	if !ok || n == 0 {
		return 0, 0, 0, fmt.Errorf("building layers serve the raytrace engine, which needs the Enterprise or Ultra tier (this key is %s): %w", k.Tier, appliance.ErrForbidden)
	}
	return f, t, n, nil
}

func (r *UploadRequest) validate(v *appliance.ValidationError) {
	r.Name = strings.TrimSpace(r.Name)
	if r.Name == "" || utf8.RuneCountInString(r.Name) > 100 || !utf8.ValidString(r.Name) {
		v.Add("name", "must be 1 to 100 characters of UTF-8")
	}
	if r.Material == "" {
		r.Material = "concrete"
	}
	if !slices.Contains(appliance.BuildingMaterials, r.Material) {
		v.Add("material", "must be one of %v, got %q", appliance.BuildingMaterials, r.Material)
	}
	if r.Ground == "" {
		r.Ground = "medium_dry_ground"
	}
	if !slices.Contains(appliance.GroundTypes, r.Ground) {
		v.Add("ground", "must be one of %v, got %q", appliance.GroundTypes, r.Ground)
	}
	if len(r.ClassMaterials) > 50 {
		v.Add("class_materials", "may map at most 50 building classes")
	}
	for c, m := range r.ClassMaterials {
		if c == "" || len(c) > 64 || !slices.Contains(appliance.BuildingMaterials, m) {
			v.Add("class_materials", "class %q → %q: the class must be 1–64 bytes and the material one of %v", c, m, appliance.BuildingMaterials)
			break
		}
	}
	for _, f := range []struct {
		name string
		x    *float64
		def  float64
	}{{"storey_height_m", &r.StoreyHeightM, DefaultStoreyHeightM}, {"default_height_m", &r.DefaultHeightM, DefaultHeightM}} {
		if *f.x == 0 {
			*f.x = f.def
		}
		if math.IsNaN(*f.x) || *f.x < 1 || *f.x > 200 {
			v.Add(f.name, "must be between 1 and 200 metres, got %g", *f.x)
		}
	}
}

// CheckUpload is what an upload of size bytes (its Content-Length; < 0
// when unknown) must pass before a byte of it is read, in Upload's order:
// k's tier allows building layers (ErrForbidden, 403), the file is within
// the tier's file cap (*TooLargeError, 413), req is valid (422) and the
// tenant's layer and byte quota has room for the file (ErrQuota, 429). It
// returns the tier's file cap, which bounds the read (package doc,
// "Uploads"), so that a key never holds memory for a body it may not
// upload. Upload checks the same again on the bytes read. paramsErr is
// the route's own refusal of its parameters (a *ValidationError), which
// comes at req's turn, after the tier and the file cap. A body of unknown
// length counts as one byte against the byte quota: a tenant whose layers
// fill it is refused before reading.
func (s *Service) CheckUpload(k *appliance.APIKey, req UploadRequest, paramsErr error, size int64) (int64, error) {
	fileCap, totalCap, layersCap, err := allowed(k)
	if err != nil {
		return 0, err
	}
	if size > fileCap {
		tier, _ := appliance.RaytraceTier(k)
		return 0, &TooLargeError{Size: size, Limit: fileCap, Tier: tier}
	}
	if paramsErr != nil {
		return 0, fmt.Errorf("upload building layer: %w", paramsErr)
	}
	v := &appliance.ValidationError{}
	req.validate(v)
	if size == 0 {
		v.Add("file", "the request body must be the building file")
	}
	if err := v.Err(); err != nil {
		return 0, fmt.Errorf("upload building layer: %w", err)
	}
	if size < 0 {
		size = 1 // unknown (chunked): at least one byte
	}
	return fileCap, s.checkSize(k, size, fileCap, totalCap, layersCap)
}

// checkSize refuses a file of size bytes over the file cap, and one the
// tenant's quota has no room for.
func (s *Service) checkSize(k *appliance.APIKey, size, fileCap, totalCap int64, layersCap int) error {
	if size > fileCap {
		tier, _ := appliance.RaytraceTier(k)
		return &TooLargeError{Size: size, Limit: fileCap, Tier: tier}
	}
	// The quota before any parse (the store checks it again in its
	// transaction, for uploads that race).
	n, used, err := s.Store.BuildingLayerUsage(k.TenantID)
	if err != nil {
		return fmt.Errorf("upload building layer: %w", err)
	}
	if n >= layersCap {
		return fmt.Errorf("the tenant holds %d building layers, the most its tier allows; delete one first: %w", n, appliance.ErrQuota)
	}
	if used+size > totalCap {
		return fmt.Errorf("the tenant's building layers hold %d bytes; %d more would pass its tier's %d: %w", used, size, totalCap, appliance.ErrQuota)
	}
	return nil
}

// Upload imports a file as a new layer of k's tenant: tier and size
// checks, the tenant's layer quota (before the parse, and again in the
// store's transaction), parse (features refused one by one) and the
// index built once (and cached) under admission, and the audit entry.
// The layer is stored only when its index builds.
func (s *Service) Upload(ctx context.Context, k *appliance.APIKey, req UploadRequest, data []byte, audit appliance.AuditEntry) (*appliance.BuildingLayer, *appliance.BuildingIndex, error) {
	fileCap, totalCap, layersCap, err := allowed(k)
	if err != nil {
		return nil, nil, err
	}
	if int64(len(data)) > fileCap {
		tier, _ := appliance.RaytraceTier(k)
		return nil, nil, &TooLargeError{Size: int64(len(data)), Limit: fileCap, Tier: tier}
	}
	v := &appliance.ValidationError{}
	req.validate(v)
	if len(data) == 0 {
		v.Add("file", "the request body must be the building file")
	}
	if err := v.Err(); err != nil {
		return nil, nil, fmt.Errorf("upload building layer: %w", err)
	}
	if err := s.checkSize(k, int64(len(data)), fileCap, totalCap, layersCap); err != nil {
		return nil, nil, err
	}
	release, err := appliance.AdmitNow(ctx, s.Admitter, appliance.HeavyWork{TenantID: k.TenantID, Tier: k.Tier, Kind: KindUpload,
		Workers: 1, MemBytes: int64(len(data)) * uploadBytesPerFileByte})
	if err != nil {
		return nil, nil, fmt.Errorf("upload building layer: %w", err)
	}
	defer release()
	im, err := Parse(ctx, data, Options{StoreyHeightM: req.StoreyHeightM, DefaultHeightM: req.DefaultHeightM, MaxBytes: fileCap})
	if err != nil {
		return nil, nil, fmt.Errorf("upload building layer: %w", err)
	}
	sum := sha256.Sum256(data)
	l := &appliance.BuildingLayer{ID: s.newID(), TenantID: k.TenantID, Name: req.Name, Format: im.Format, Compressed: im.Compressed,
		SizeBytes: int64(len(data)), SHA256: hex.EncodeToString(sum[:]), CreatedUnix: s.now().Unix(),
		Buildings: len(im.Buildings), Refused: im.Refused, HeightsTagged: im.Tagged, HeightsFromLevels: im.Levels,
		HeightsAssumed: im.Assumed, StoreyHeightM: req.StoreyHeightM, DefaultHeightM: req.DefaultHeightM,
		Material: req.Material, ClassMaterials: req.ClassMaterials, Ground: req.Ground, Refusals: im.Refusals, Warnings: im.Warnings,
		Bounds: boundsOf(im.Buildings)}
	for i := range im.Buildings {
		b := &im.Buildings[i]
		if b.Material == "" {
			if m, ok := req.ClassMaterials[b.Class]; ok {
				b.Material = m
			}
		}
	}
	st, err := s.Index.Index(ctx, l, func() ([]appliance.Building, error) { return im.Buildings, nil })
	if err != nil {
		return nil, nil, fmt.Errorf("upload building layer: %w", err)
	}
	audit.Action = "buildings.layer.upload"
	audit.TenantID = k.TenantID
	audit.Params = map[string]string{"layer_id": l.ID, "name": l.Name, "format": l.Format,
		"bytes": fmt.Sprint(l.SizeBytes), "buildings": fmt.Sprint(l.Buildings), "refused": fmt.Sprint(l.Refused)}
	if err := s.Store.PutBuildingLayer(l, im.Buildings, layersCap, totalCap, audit); err != nil {
		s.Index.Forget(l)
		return nil, nil, fmt.Errorf("upload building layer: %w", err)
	}
	return l, &st, nil
}

func boundsOf(bs []appliance.Building) appliance.BBox {
	b := appliance.BBox{MinLat: math.Inf(1), MinLon: math.Inf(1), MaxLat: math.Inf(-1), MaxLon: math.Inf(-1)}
	for _, x := range bs {
		for _, fp := range x.Footprints {
			for _, p := range fp.Outer {
				b.MinLat, b.MaxLat = math.Min(b.MinLat, p.Lat), math.Max(b.MaxLat, p.Lat)
				b.MinLon, b.MaxLon = math.Min(b.MinLon, p.Lon), math.Max(b.MaxLon, p.Lon)
			}
		}
	}
	return b
}

// List returns k's tenant's layers, oldest first, and the quota picture,
// at any tier: a tenant below Enterprise (one that moved down) still sees
// the layers it keeps, with limits of zero (it may upload none).
func (s *Service) List(k *appliance.APIKey) ([]*appliance.BuildingLayer, Usage, error) {
	tier, _ := appliance.RaytraceTier(k)
	fileCap, totalCap, layersCap := tier.BuildingLayerLimits()
	ls, err := s.Store.BuildingLayers(k.TenantID)
	if err != nil {
		return nil, Usage{}, fmt.Errorf("list building layers: %w", err)
	}
	u := Usage{Layers: len(ls), LayersLimit: layersCap, BytesLimit: totalCap, FileBytesLimit: fileCap}
	for _, l := range ls {
		u.Bytes += l.SizeBytes
	}
	return ls, u, nil
}

// Usage is a tenant's building-layer quota picture.
type Usage struct {
	Layers         int   `json:"layers"`
	LayersLimit    int   `json:"layers_limit"`
	Bytes          int64 `json:"bytes"`
	BytesLimit     int64 `json:"bytes_limit"`
	FileBytesLimit int64 `json:"file_bytes_limit"`
}

// Get returns one of k's tenant's layers with its index, at any tier (it
// changes nothing). The buildings are read from the store only when the
// cache lost the scene, and the scene is then built under admission
// (package doc, "Heavy work").
func (s *Service) Get(ctx context.Context, k *appliance.APIKey, id string) (*appliance.BuildingLayer, *appliance.BuildingIndex, error) {
	l, _, err := s.Store.BuildingLayer(k.TenantID, id, false)
	if err != nil {
		return nil, nil, err
	}
	// admitted before the build starts, never inside it: a raytrace job
	// holding a grant may wait for a build in progress, whose builder must
	// not be waiting for that grant
	if !s.Index.Built(l) {
		release, err := s.admitBuild(ctx, k, l)
		if err != nil {
			return nil, nil, fmt.Errorf("building layer %s: %w", id, err)
		}
		defer release()
	}
	st, err := s.Index.Index(ctx, l, func() ([]appliance.Building, error) {
		_, bs, err := s.Store.BuildingLayer(k.TenantID, id, true)
		return bs, err
	})
	if err != nil {
		return nil, nil, fmt.Errorf("building layer %s: %w", id, err)
	}
	return l, &st, nil
}

// Layer returns one of the tenant's layers and its buildings, for the
// engines (the future raytrace worker names layers by id and hash).
func (s *Service) Layer(tenantID, id string) (*appliance.BuildingLayer, []appliance.Building, error) {
	return s.Store.BuildingLayer(tenantID, id, true)
}

// Delete deletes one of k's tenant's layers and drops its cached index,
// at any tier: erasing its own data never depends on the tier.
func (s *Service) Delete(k *appliance.APIKey, id string, audit appliance.AuditEntry) error {
	l, _, err := s.Store.BuildingLayer(k.TenantID, id, false)
	if err != nil {
		return err
	}
	audit.Action = "buildings.layer.delete"
	audit.TenantID = k.TenantID
	audit.Params = map[string]string{"layer_id": id, "name": l.Name}
	if err := s.Store.DeleteBuildingLayer(k.TenantID, id, audit); err != nil {
		return err
	}
	s.Index.Forget(l)
	return nil
}
