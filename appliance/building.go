package appliance

// Building is one building of a tenant's building layer: footprints in
// WGS84 with the height of the roof above the ground. Buildings are read
// from GeoJSON, Shapefile or OpenStreetMap files (appliance/buildings) and
// traced by engines/raytrace, which extrudes every footprint from
// MinHeightM to HeightM above the local ground.
type Building struct {
	// ID names the source feature: "way/123", "relation/9" for
	// OpenStreetMap, "feature/17" (its index in the file) or the
	// feature's own id for GeoJSON, "record/4" for a Shapefile.
	ID string `json:"id"`
	// Footprints holds one polygon per part (a multipolygon has several).
	Footprints []Footprint `json:"footprints"`
	// HeightM is the roof height above the ground, metres (> 0).
	HeightM float64 `json:"height_m"`
	// MinHeightM is the height of the lowest floor above the ground,
	// metres (0 for a building standing on the ground; OpenStreetMap
	// min_height or building:min_level × the storey height).
	MinHeightM float64 `json:"min_height_m,omitempty"`
	// HeightSource says where HeightM came from.
	HeightSource HeightSource `json:"height_source"`
	// Class is the building class of the source (OpenStreetMap
	// building=*), "" when unknown; the layer's per-class materials are
	// keyed by it.
	Class string `json:"class,omitempty"`
	// Material is the P.2040 material of walls and roof when the source or
	// the layer names one for this building, "" for the layer's default.
	Material string `json:"material,omitempty"`
}

// Footprint is one polygon of a building: an outer ring and its holes,
// each a ring of at least three distinct WGS84 positions, not closed (the
// last position is not a repeat of the first).
type Footprint struct {
	Outer []LatLon   `json:"outer"`
	Holes [][]LatLon `json:"holes,omitempty"`
}

// HeightSource says how a building's height was found.
type HeightSource string

// Height sources, from the most to the least trustworthy.
const (
	// HeightTagged: the source gave a height (OpenStreetMap height or
	// building:height, a GeoJSON/Shapefile height attribute).
	HeightTagged HeightSource = "tagged"
	// HeightLevels: building:levels (or a levels attribute) × the
	// documented storey height.
	HeightLevels HeightSource = "levels"
	// HeightDefault: nothing was given; the layer's default height was
	// assumed and every answer that depends on the building says so.
	HeightDefault HeightSource = "default"
)

// BuildingLayer describes one imported building layer of a tenant. The
// buildings themselves are stored beside it and fetched by ID.
type BuildingLayer struct {
	ID       string `json:"id"`
	TenantID string `json:"-"`
	Name     string `json:"name"`
	// Format is the detected input format: "geojson", "shapefile",
	// "osm-xml" or "osm-pbf" (a gzip wrapper is noted in Compressed).
	Format     string `json:"format"`
	Compressed bool   `json:"compressed"`
	// SizeBytes is the size of the uploaded file as sent, bytes; it is what
	// the tier's building-layer storage cap counts.
	SizeBytes   int64  `json:"size_bytes"`
	SHA256      string `json:"sha256"` // of the uploaded bytes
	CreatedUnix int64  `json:"created_unix"`
	// Buildings counts the buildings kept; Refused the features refused
	// (each with a reason in Refusals, the first MaxRefusalsListed).
	Buildings int `json:"buildings"`
	Refused   int `json:"refused"`
	// HeightsTagged, HeightsFromLevels and HeightsAssumed split Buildings
	// by HeightSource.
	HeightsTagged     int `json:"heights_tagged"`
	HeightsFromLevels int `json:"heights_from_levels"`
	HeightsAssumed    int `json:"heights_assumed"`
	// Bounds is the box of every kept footprint, degrees.
	Bounds BBox `json:"-"`
	// StoreyHeightM and DefaultHeightM are the rules the import used,
	// metres.
	StoreyHeightM  float64 `json:"storey_height_m"`
	DefaultHeightM float64 `json:"default_height_m"`
	// Material is the default P.2040 material of the layer's walls and
	// roofs; ClassMaterials overrides it per building class; Ground is the
	// P.527 ground type under the layer.
	Material       string            `json:"material"`
	ClassMaterials map[string]string `json:"class_materials,omitempty"`
	Ground         string            `json:"ground"`
	Refusals       []FeatureRefusal  `json:"refusals"`
	Warnings       []Warning         `json:"warnings"`
}

// MaxRefusalsListed is how many refused features a layer lists with their
// reasons; Refused counts them all.
const MaxRefusalsListed = 100

// FeatureRefusal is one feature of an import that was not kept, and why.
type FeatureRefusal struct {
	Feature string `json:"feature"` // the source id, as Building.ID
	Reason  string `json:"reason"`  // one sentence
}

// Building layer materials: the P.2040 building materials and P.527 ground
// types engines/raytrace knows by these names.
var (
	BuildingMaterials = []string{"concrete", "brick", "glass", "wood", "metal"}
	GroundTypes       = []string{"very_dry_ground", "medium_dry_ground", "wet_ground"}
)

// BuildingLayerLimits returns the building-layer caps of the tier: the
// largest file, bytes; the total uploaded bytes of all the tenant's layers;
// and the number of layers. Building layers serve the raytrace engine
// (Enterprise and Ultra, SPEC §2.5): other tiers get zeros.
func (t Tier) BuildingLayerLimits() (fileBytes, totalBytes int64, layers int) {
	switch t {
	case TierEnterprise:
		return 32 << 20, 256 << 20, 20
	case TierUltra:
		return 128 << 20, 1 << 30, 100
	}
	return 0, 0, 0
}

// RaytraceTier is the one rule of who may use the raytrace engine and the
// building layers it traces, and with which tier's caps (layer quotas,
// map caps): an admin key as Ultra, whatever its tenant's tier (the
// appliance's operator reaches every feature); another key with its own
// tier. ok is false below Enterprise (SPEC §2.5).
func RaytraceTier(k *APIKey) (t Tier, ok bool) {
	if k == nil {
		return "", false
	}
	if k.Role == RoleAdmin {
		return TierUltra, true
	}
	return k.Tier, k.Tier.AtLeast(TierEnterprise)
}

// BuildingIndex describes the traceable index of a building layer
// (engines/raytrace builds it once per layer and caches it).
type BuildingIndex struct {
	Buildings int     `json:"buildings"`
	Walls     int     `json:"walls"`
	Roofs     int     `json:"roofs"`
	Edges     int     `json:"edges"` // diffracting edges: convex vertical corners and roof edges
	BVHNodes  int     `json:"bvh_nodes"`
	BuildMS   float64 `json:"build_ms"` // milliseconds the index took to build; 0 when it was cached
	Cached    bool    `json:"cached"`
	// SceneHash is the SHA-256 (hex) of everything the scene was built
	// from; a worker checks it before it traces a job of the layer.
	SceneHash string `json:"scene_hash"`
	// Ground says what the ground under the layer is: the terrain packs, or
	// flat ground where no pack covers the layer.
	Ground string `json:"ground"`
}
