package appliance

import "time"

// Kinds of data file in the data manifest.
const (
	DataKindTerrainPack = "terrain_pack" // a terrain pack (linkplan terrain build)
	DataKindTowerSource = "tower_source" // a tower file (linkplan towers import, --towers)
)

// States of a data manifest entry (appliance/datamanifest's table).
const (
	DataFilePending = "pending" // being hashed: new, or changed on disk since its last hash
	DataFileOK      = "ok"      // hashed; SHA256 is of the bytes with this size and modification time
	DataFileFailing = "failing" // the file cannot be read; Detail says why
)

// DataManifest lists the data files the appliance serves: terrain packs in
// priority order, then tower sources, each by SHA-256 (GET
// /platform/maturity).
type DataManifest struct {
	TerrainPacks []DataManifestEntry
	TowerSources []DataManifestEntry
	// Complete is true when every entry is ok (none pending or failing).
	Complete bool
}

// DataManifestEntry is one data file.
type DataManifestEntry struct {
	Kind     string // DataKindTerrainPack or DataKindTowerSource
	Name     string // base name of the file; embedded data: "embedded:<name>"
	Embedded bool   // built into the binary (the sample data)
	Status   string // DataFileOK, DataFilePending or DataFileFailing
	Detail   string // why it is pending or failing; "" when ok
	SHA256   string // hex; "" unless ok
	Bytes    int64  // file length, bytes (0 when it cannot be read)
	// ModifiedAt is the file's modification time (UTC; zero for embedded
	// data); HashedAt when SHA256 was computed (zero unless ok).
	ModifiedAt time.Time
	HashedAt   time.Time
	// Terrain packs: tiles and bounds (degrees); zero for tower sources.
	Tiles  int
	Bounds *BBox
	// LastRefresh is the newest refresh record of a tower source (what
	// the catalogue read from it, when, and the SHA-256 of those bytes);
	// nil for terrain packs and for a source not yet read.
	LastRefresh *TowerRefresh
}
