package engines

import (
	"context"
	"fmt"
	"strings"

	"linkplan/appliance"
	"linkplan/engines/fspl"
	"linkplan/engines/p1812"
	"linkplan/engines/raytrace"
)

// Status values of Info.Status.
const (
	StatusAvailable   = appliance.EngineStatusAvailable   // Get returns the engine
	StatusUnavailable = appliance.EngineStatusUnavailable // listed, but not served on this appliance (raytrace without its worker)
	StatusHidden      = appliance.EngineStatusHidden      // not to be shown by GET /coverage/engines; Get refuses it
)

// Info describes one engine for GET /coverage/engines
// (appliance.EngineInfo).
type Info = appliance.EngineInfo

// Config configures a Registry. The zero value is valid: no refractivity
// maps (the Brazil defaults of engines/p1812 are used) and every engine
// parameter at its documented default.
type Config struct {
	// RefractivityDir is a folder holding the ITU-R P.1812 digital maps
	// DN50.TXT and N050.TXT; "" uses p1812.DefaultDeltaN and
	// p1812.DefaultN0 everywhere.
	RefractivityDir string
	// P1812 holds the defaults of the p1812 engine (and of the P.1812
	// branch of the hybrid and auto engines), among them the diffraction
	// method ("delta-bullington", the default, or "deygout").
	P1812 P1812Params
	// ITM holds the defaults of the itm engine.
	ITM ITMParams
	// P1411 holds the defaults of the p1411 engine (and of the P.1411
	// branch of the hybrid engine).
	P1411 P1411Params
}

// Registry holds every engine of the appliance. It is built once by New,
// is immutable afterwards and is safe for concurrent use.
type Registry struct {
	maps    *p1812.RefractivityMaps // nil: Brazil defaults
	p1812   P1812Params             // Config.P1812 validated
	itm     ITMParams               // Config.ITM validated
	p1411   P1411Params             // Config.P1411 validated
	fspl    *fspl.Engine
	entries []entry // in listing order
}

// entry is one listed engine.
type entry struct {
	info Info
	eng  appliance.Engine // nil when not available
}

// New builds the registry. It fails (matching appliance.ErrInvalid) when
// RefractivityDir is set and the maps cannot be read, or when a default in
// cfg is out of range.
func New(cfg Config) (*Registry, error) {
	r := &Registry{fspl: fspl.New()}
	if cfg.RefractivityDir != "" {
		m, err := p1812.LoadRefractivityMaps(cfg.RefractivityDir)
		if err != nil {
			return nil, fmt.Errorf("new engine registry: %w", wrapInvalid("refractivity_dir", err))
		}
		r.maps = m
	}
	v := &appliance.ValidationError{}
	cfg.P1812.validate(v, "p1812")
	cfg.ITM.validate(v, "itm")
	cfg.P1411.validate(v, "p1411")
	if err := v.Err(); err != nil {
		return nil, fmt.Errorf("new engine registry: %w", err)
	}
	r.p1812, r.itm, r.p1411 = cfg.P1812, cfg.ITM, cfg.P1411
	r.entries = r.buildEntries()
	return r, nil
}

// wrapInvalid turns a configuration error into a field error.
func wrapInvalid(field string, err error) error {
	return appliance.Invalid(field, "%v", err)
}

// Adapter versions, reported as LinkPrediction.EngineVersion and Info.Version.
const (
	P1812Version   = "p1812-8/1"      // ITU-R P.1812-8 through engines/p1812, adapter revision 1
	ITMVersion     = "itm-1.4/1"      // NTIA ITM v1.4 through engines/itm, adapter revision 1
	P1411Version   = "p1411-11/1"     // ITU-R P.1411-11 site-general models, adapter revision 1
	HybridVersion  = "hybrid-1"       // P.1411 below HybridSwitchM, P.1812 above
	AutoVersion    = "auto-1"         // the Choose criteria of this package
	RaytraceMLNote = "not in build"   // raytrace_ml has no implementation
	RaytraceNote   = raytrace.Version // the engine's version; it runs on the raytrace worker
)

// RaytraceRoutesNote says where the asynchronous raytrace engine runs.
const RaytraceRoutesNote = "asynchronous, on the local raytrace worker, over one of your building layers (/buildings/layers): POST /analyze, /analyze_link and /coverage/engines/predict with engine raytrace answer 202 with a job, and POST /coverage/raytrace streams a radio map; the other routes (heatmaps, batch reports, exports, repeater plans) refuse it: choose fspl, p1812, itm, p1411, p1812-p1411-hybrid or auto there"

func (r *Registry) buildEntries() []entry {
	diff := r.p1812.diffraction()
	return []entry{
		{info: Info{ID: appliance.EngineFSPL, Name: "Free space + Fresnel + knife edge",
			Method:  "free-space loss over the slant path + first Fresnel zone clearance + single knife-edge J(ν) (k = 4/3), penalty capped at 40 dB",
			Version: fspl.Version, MinTier: string(appliance.TierFree), Status: StatusAvailable, Default: true,
			FreqMinMHz: fspl.MinFreqMHz, FreqMaxMHz: fspl.MaxFreqMHz,
			Notes: "default engine; preview and the deterministic fallback of every other engine"},
			eng: r.fspl},
		{info: Info{ID: appliance.EngineP1812, Name: "ITU-R P.1812-8",
			Method:  "ITU-R P.1812-8 path-specific prediction, diffraction by " + diff.String(),
			Version: P1812Version, MinTier: string(appliance.TierPro), Status: StatusAvailable,
			FreqMinMHz: 1000 * p1812.MinFreqGHz, FreqMaxMHz: 1000 * p1812.MaxFreqGHz, DistMinKm: P1812MinDistKm, DistMaxKm: P1812MaxDistKm,
			Notes: "time 1–50 %; antenna heights (0, 3000] m; delta-Bullington (§4.3) unless configured for Deygout (SPEC §2.5 names Deygout); outside the ranges the fallback answers"},
			eng: &p1812Engine{reg: r}},
		{info: Info{ID: appliance.EngineITM, Name: "Longley-Rice ITM v1.4",
			Method:  "NTIA Irregular Terrain Model v1.4, point-to-point mode",
			Version: ITMVersion, MinTier: string(appliance.TierPro), Status: StatusAvailable,
			FreqMinMHz: ITMMinFreqMHz, FreqMaxMHz: ITMMaxFreqMHz, DistMinKm: 1, DistMaxKm: 2000,
			Notes: "antenna heights 0.5–3000 m; paths shorter than 1 km or longer than 2000 km are computed with ITM warnings"},
			eng: &itmEngine{reg: r}},
		{info: Info{ID: appliance.EngineP1411, Name: "ITU-R P.1411-11 site-general",
			Method:  "ITU-R P.1411-11 site-general short-path models (§4.1.1, §4.2.1, §4.3.1)",
			Version: P1411Version, MinTier: string(appliance.TierPro), Status: StatusAvailable,
			FreqMinMHz: P1411MinFreqMHz, FreqMaxMHz: P1411MaxFreqMHz, DistMinKm: 0, DistMaxKm: HybridSwitchM / 1000,
			Notes: "paths shorter than 250 m; the frequency range is the chosen environment's"},
			eng: &p1411Engine{reg: r}},
		{info: Info{ID: appliance.EngineHybrid, Name: "P.1812 + P.1411 hybrid",
			Method:  "ITU-R P.1411-11 for paths shorter than 250 m, ITU-R P.1812-8 otherwise",
			Version: HybridVersion, MinTier: string(appliance.TierPro), Status: StatusAvailable,
			FreqMinMHz: 1000 * p1812.MinFreqGHz, FreqMaxMHz: 1000 * p1812.MaxFreqGHz, DistMinKm: 0, DistMaxKm: P1812MaxDistKm,
			Notes: "baseline of the residual engine (SPEC §2.5); hard switch at 250 m, no blending"},
			eng: &hybridEngine{reg: r}},
		{info: Info{ID: appliance.EngineAuto, Name: "Automatic choice",
			Method:  "chooses p1812-p1411-hybrid, p1812, itm or fspl by the documented criteria (see Registry.Choose)",
			Version: AutoVersion, MinTier: "", Status: StatusAvailable,
			FreqMinMHz: fspl.MinFreqMHz, FreqMaxMHz: fspl.MaxFreqMHz,
			Notes: "no tier of its own: the tier of the chosen engine applies"},
			eng: &autoEngine{reg: r}},
		{info: Info{ID: appliance.EngineRaytrace, Name: "3D ray tracing",
			Method:  "exact image method (reflections off walls, roofs and ground up to order 3) with first-order UTD diffraction at building edges, over the tenant's building layer (/buildings/layers) on terrain; CPU",
			Version: RaytraceNote, MinTier: string(appliance.TierEnterprise), Status: StatusAvailable, Asynchronous: true,
			FreqMinMHz: raytrace.MinFreqMHz, FreqMaxMHz: raytrace.MaxFreqMHz,
			Notes: RaytraceRoutesNote}},
		{info: Info{ID: appliance.EngineRaytraceML, Name: "Learned ray-tracing surrogate",
			Method:  "learned model",
			Version: RaytraceMLNote, MinTier: "", Status: StatusHidden,
			Notes: "hidden while its artifact is synthetic-only (SPEC §2.5)"}},
	}
}

// List returns every engine the registry knows, in a fixed order (fspl,
// p1812, itm, p1411, p1812-p1411-hybrid, auto, raytrace, raytrace_ml),
// hidden ones included with Status StatusHidden; see Public.
func (r *Registry) List() []Info {
	out := make([]Info, len(r.entries))
	for i, e := range r.entries {
		out[i] = e.info
	}
	return out
}

// Public returns List without the hidden engines: the answer of GET
// /coverage/engines.
func (r *Registry) Public() []Info {
	var out []Info
	for _, e := range r.entries {
		if e.info.Status != StatusHidden {
			out = append(out, e.info)
		}
	}
	return out
}

// Resolve applies the default and the tier rule of every route to an
// engine a key asks for: "" is fspl; an unknown or hidden engine, one not
// available on this appliance, or an asynchronous one (its own routes take
// it first) is an ErrInvalid naming "engine"; auto below Pro resolves to
// fspl with a note saying so; an engine above the key's tier is
// ErrForbidden. It returns the engine to run and the note ("" when none).
func (r *Registry) Resolve(k *appliance.APIKey, id appliance.EngineID) (appliance.EngineID, string, error) {
	if id == "" {
		return appliance.EngineFSPL, "", nil
	}
	info, ok := r.Info(id)
	if !ok || info.Status == StatusHidden {
		return "", "", appliance.Invalid("engine", "unknown engine %q; GET /coverage/engines lists them", id)
	}
	if info.Status != StatusAvailable {
		return "", "", appliance.Invalid("engine", "engine %q is not available on this appliance: %s", id, info.Notes)
	}
	if id == appliance.EngineAuto && k.RequireTier(appliance.TierPro) != nil {
		return appliance.EngineFSPL, "auto resolves to fspl for tier " + string(k.Tier) + " (other engines need Pro)", nil
	}
	if info.MinTier != "" {
		if err := k.RequireTier(appliance.Tier(info.MinTier)); err != nil {
			return "", "", fmt.Errorf("engine %s: %w", id, err)
		}
	}
	if info.Asynchronous {
		return "", "", appliance.Invalid("engine", "engine %q is %s", id, info.Notes)
	}
	return id, "", nil
}

// Info returns the listing of one engine ("" is the default, fspl).
func (r *Registry) Info(id appliance.EngineID) (Info, bool) {
	if id == "" {
		id = appliance.EngineFSPL
	}
	for _, e := range r.entries {
		if e.info.ID == id {
			return e.info, true
		}
	}
	return Info{}, false
}

// Get returns the engine for id; "" is the default engine (fspl), so Get
// can serve as the planner's EngineLookup. An unknown id is an error
// matching appliance.ErrInvalid that names the field "engine"; so is an
// engine that is listed but not available (raytrace, raytrace_ml), with a
// message saying so.
func (r *Registry) Get(id appliance.EngineID) (appliance.Engine, error) {
	if id == "" {
		return r.fspl, nil
	}
	for _, e := range r.entries {
		if e.info.ID != id {
			continue
		}
		if e.eng == nil && e.info.Asynchronous {
			return nil, fmt.Errorf("get engine: %w", appliance.Invalid("engine", "engine %q is %s", id, e.info.Notes))
		}
		if e.eng == nil {
			return nil, fmt.Errorf("get engine: %w", appliance.Invalid("engine", "engine %q is %s: %s", id, e.info.Status, e.info.Notes))
		}
		return e.eng, nil
	}
	return nil, fmt.Errorf("get engine: %w", appliance.Invalid("engine", "unknown engine %q; available: %s", id, strings.Join(r.availableIDs(), ", ")))
}

func (r *Registry) availableIDs() []string {
	var ids []string
	for _, e := range r.entries {
		if e.eng != nil {
			ids = append(ids, string(e.info.ID))
		}
	}
	return ids
}

// FSPL returns the default engine, which is also the fallback.
func (r *Registry) FSPL() *fspl.Engine { return r.fspl }

// runner is implemented by every adapter of this package: Predict with the
// engine parameters of a Case.
type runner interface {
	appliance.Engine
	run(ctx context.Context, in appliance.LinkInput, x *extras) (appliance.LinkPrediction, error)
}

// extras carries what appliance.LinkInput cannot: per-sample clutter and
// zones and the engine parameters of a Case. The zero value means "none,
// registry defaults".
type extras struct {
	clutterM []float64   // representative clutter height per sample, metres; nil = 0
	zones    []int       // P.1812 zone per sample; nil = from Profile.Sea
	p1812    P1812Params // overrides of the registry defaults
	itm      ITMParams
	p1411    P1411Params
}
