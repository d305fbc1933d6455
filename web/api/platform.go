package api

import (
	"context"
	"math"
	"net/http"
	"time"

	"github.com/gorilla/mux"

	"linkplan/appliance"
)

func (a *API) registerPlatform(r *mux.Router) {
	r.HandleFunc("/platform/maturity", a.wrap(a.authed(a.maturity))).Methods(http.MethodGet)
}

// MaturityJSON is the body of GET /platform/maturity: platform facts
// (SPEC §4.7, §4.9).
type MaturityJSON struct {
	Version            string                 `json:"version"`
	State              string                 `json:"state"`   // starting, ready, stopping
	Offline            bool                   `json:"offline"` // the appliance makes no outbound calls
	Dependencies       []DependencyJSON       `json:"dependencies"`
	HostingPortability HostingPortabilityJSON `json:"hosting_portability"`
	// DataManifest lists the terrain packs and tower sources in use by
	// SHA-256; null when the appliance has no manifest (Deps.Data nil).
	DataManifest *DataManifestJSON `json:"data_manifest"`
}

// DataManifests lists the data files the appliance serves
// (appliance/datamanifest).
type DataManifests interface {
	Manifest(ctx context.Context) (appliance.DataManifest, error)
}

// DataManifestJSON is the data_manifest of GET /platform/maturity.
type DataManifestJSON struct {
	Complete     bool           `json:"complete"` // every file hashed and readable
	Error        *string        `json:"error"`    // why the list itself could not be made; null normally
	TerrainPacks []DataFileJSON `json:"terrain_packs"`
	TowerSources []DataFileJSON `json:"tower_sources"`
}

// DataFileJSON is one data file of the manifest.
type DataFileJSON struct {
	Kind       string           `json:"kind"` // terrain_pack, tower_source
	Name       string           `json:"name"` // base name; embedded data: embedded:<name>
	Embedded   bool             `json:"embedded"`
	Status     string           `json:"status"`      // ok, pending, failing
	Detail     *string          `json:"detail"`      // why pending or failing; null when ok
	SHA256     *string          `json:"sha256"`      // hex; null unless ok
	Bytes      int64            `json:"bytes"`       // file length, bytes
	ModifiedAt *string          `json:"modified_at"` // RFC 3339 UTC; null for embedded data
	HashedAt   *string          `json:"hashed_at"`   // RFC 3339 UTC; null unless ok
	Tiles      *int             `json:"tiles"`       // terrain packs: tiles; null for tower sources
	Bounds     *DataBoundsJSON  `json:"bounds"`      // terrain packs, degrees; null for tower sources
	Refresh    *DataRefreshJSON `json:"last_refresh"`
}

// DataBoundsJSON is a terrain pack's extent, WGS84 degrees.
type DataBoundsJSON struct {
	MinLat float64 `json:"min_lat"`
	MinLon float64 `json:"min_lon"`
	MaxLat float64 `json:"max_lat"`
	MaxLon float64 `json:"max_lon"`
}

// DataRefreshJSON is the newest refresh of a tower source.
type DataRefreshJSON struct {
	At       string  `json:"at"`     // RFC 3339 UTC, when the refresh finished
	SHA256   *string `json:"sha256"` // of the bytes read; null when unreadable
	Format   string  `json:"format"`
	Rows     int     `json:"rows"`
	Towers   int     `json:"towers"`
	Rejected int     `json:"rejected"`
	Error    *string `json:"error"` // why that refresh failed; null when it succeeded
	// SameAsFile is false when the file changed after that refresh (it
	// loads at the next one); null while either hash is unknown.
	SameAsFile *bool `json:"same_as_file"`
}

func dataManifestJSON(m appliance.DataManifest, err error) *DataManifestJSON {
	out := &DataManifestJSON{Complete: m.Complete && err == nil, TerrainPacks: []DataFileJSON{}, TowerSources: []DataFileJSON{}}
	if err != nil {
		out.Error = strp("the list of data files could not be made; the appliance's log says why")
	}
	stamp := func(t time.Time) *string {
		if t.IsZero() {
			return nil
		}
		return strp(t.UTC().Format(time.RFC3339Nano))
	}
	file := func(e appliance.DataManifestEntry) DataFileJSON {
		f := DataFileJSON{Kind: e.Kind, Name: e.Name, Embedded: e.Embedded, Status: e.Status, Bytes: e.Bytes,
			ModifiedAt: stamp(e.ModifiedAt), HashedAt: stamp(e.HashedAt)}
		if e.Detail != "" {
			f.Detail = strp(e.Detail)
		}
		if e.SHA256 != "" {
			f.SHA256 = strp(e.SHA256)
		}
		if e.Kind == appliance.DataKindTerrainPack {
			tiles := e.Tiles
			f.Tiles = &tiles
			if b := e.Bounds; b != nil {
				f.Bounds = &DataBoundsJSON{MinLat: b.MinLat, MinLon: b.MinLon, MaxLat: b.MaxLat, MaxLon: b.MaxLon}
			}
		}
		if r := e.LastRefresh; r != nil {
			sec, frac := math.Modf(r.TimeUnix)
			dr := &DataRefreshJSON{At: time.Unix(int64(sec), int64(frac*1e9)).UTC().Format(time.RFC3339Nano),
				Format: r.Format, Rows: r.Rows, Towers: r.Towers, Rejected: r.Rejected}
			if r.SHA256 != "" {
				dr.SHA256 = strp(r.SHA256)
			}
			if r.Error != "" {
				dr.Error = strp(r.Error)
			}
			if r.SHA256 != "" && e.SHA256 != "" {
				same := r.SHA256 == e.SHA256
				dr.SameAsFile = &same
			}
			f.Refresh = dr
		}
		return f
	}
	for _, e := range m.TerrainPacks {
		out.TerrainPacks = append(out.TerrainPacks, file(e))
	}
	for _, e := range m.TowerSources {
		out.TowerSources = append(out.TowerSources, file(e))
	}
	return out
}

// DependencyJSON is one dependency and its status now.
type DependencyJSON struct {
	Name   string  `json:"name"`
	Kind   string  `json:"kind"`   // "embedded" (in the process or its data directory) "external" or "local_process" (started and supervised by serve)
	Status string  `json:"status"` // "ok" or "failing"
	Detail *string `json:"detail"` // why it fails; null when ok
	// Details are the facts behind the check (workers: each worker's
	// state); omitted when the check has none.
	Details any `json:"details,omitempty"`
	// Required: a failure makes the appliance not ready; an advisory
	// dependency (the raytrace worker) fails only the routes that need it.
	Required bool `json:"required"`
}

// HostingPortabilityJSON says what the appliance needs from its host.
type HostingPortabilityJSON struct {
	SingleBinary          bool                    `json:"single_binary"`
	CloudServicesRequired bool                    `json:"cloud_services_required"`
	Dependencies          PortabilityDependencies `json:"dependencies"`
}

// PortabilityDependencies are the optional external dependencies.
type PortabilityDependencies struct {
	LLMInference LLMInferenceJSON `json:"llm_inference"`
}

// LLMInferenceJSON is the AI provider's state (SPEC §4.7).
type LLMInferenceJSON struct {
	Active    bool    `json:"active"`
	AWSBacked bool    `json:"aws_backed"`
	Provider  *string `json:"provider"`
	Reason    *string `json:"reason"` // why inactive; null when active
}

// maturity reports the platform facts; each readiness check is run now
// and reported as a dependency with its status.
func (a *API) maturity(_ http.ResponseWriter, r *http.Request) (any, error) {
	ctx, cancel := context.WithTimeout(r.Context(), 1500*time.Millisecond)
	defer cancel()
	out := MaturityJSON{Version: a.Version, State: a.state.Load().(string), Offline: a.Offline, Dependencies: []DependencyJSON{}}
	for _, c := range a.Checks {
		d := DependencyJSON{Name: c.Name, Kind: "embedded", Status: "ok", Required: !c.Advisory}
		if c.Kind != "" {
			d.Kind = c.Kind
		}
		det, err := c.run(ctx)
		if err != nil {
			d.Status, d.Detail = "failing", strp(err.Error())
		}
		if c.Details != nil || c.Probe != nil {
			d.Details = det
		}
		out.Dependencies = append(out.Dependencies, d)
	}
	// Active only when a language model provider is configured and the AI
	// routes can call it; the built-in template explainer is not inference.
	active := a.Explainer != nil && a.Explainer.Active()
	// aws_backed is false: the only provider linkplan calls is the
	// operator's OpenAI-compatible server (--ai-provider-url), which the
	// explainer names.
	llm := LLMInferenceJSON{Active: active}
	switch {
	case active:
		llm.Provider = strp(a.Explainer.ProviderKind())
	case a.Explainer != nil:
		llm.Reason = strp("no language model provider is configured: the AI endpoints answer with the built-in template explainer and make no outbound call")
	default:
		llm.Reason = strp("no AI provider is configured: the AI endpoints are not served")
	}
	out.HostingPortability = HostingPortabilityJSON{SingleBinary: true, CloudServicesRequired: false,
		Dependencies: PortabilityDependencies{LLMInference: llm}}
	if a.Data != nil {
		m, err := a.Data.Manifest(ctx)
		if err != nil {
			a.log.Warn("data manifest", "err", err)
		}
		out.DataManifest = dataManifestJSON(m, err)
	}
	return out, nil
}
