package prediction

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"linkplan/appliance"
	"linkplan/appliance/features"
	"linkplan/engines/ml"
)

// Model choices of a query.
const (
	ModelAuto     = "auto"
	ModelResidual = "residual"
	ModelRidge    = "ridge"
	ModelPhysics  = "physics"
)

// Defaults of a query.
const (
	DefaultRxHeightM = 1.5
	// DefaultTowerHeightM is a catalogue tower's height when it has none
	// (SPEC §2.1).
	DefaultTowerHeightM = 30.0
)

// ProfileStepM is the physics engines' profile spacing (the 3" grid, as
// the planner's).
const ProfileStepM = features.ProfileStepM

// Query is the body of POST /coverage/predict (point mode: the receiver
// is rx_lat, rx_lon). The transmitter is tower_id or tx_lat, tx_lon and
// tx_height_m.
type Query struct {
	TowerID      *string  `json:"tower_id"`
	TxLat        *float64 `json:"tx_lat"`
	TxLon        *float64 `json:"tx_lon"`
	TxHeightM    *float64 `json:"tx_height_m"`
	RxLat        *float64 `json:"rx_lat"`
	RxLon        *float64 `json:"rx_lon"`
	RxHeightM    *float64 `json:"rx_height_m"`
	FrequencyMHz *float64 `json:"frequency_mhz"`
	TxPowerDBm   *float64 `json:"tx_power_dbm"`
	TxGainDBi    *float64 `json:"tx_gain_dbi"`
	RxGainDBi    *float64 `json:"rx_gain_dbi"`
	CableLossDB  *float64 `json:"cable_loss_db"`
	Model        *string  `json:"model"`
}

// Envelope is the residual engine's envelope verdict of a query.
type Envelope struct {
	Inside bool   `json:"inside"`
	Reason string `json:"reason,omitempty"`
}

// Conformal is extra.conformal of a residual-engine answer (SPEC §2.4).
type Conformal struct {
	// LossIntervalDB is [lo, hi] of the path loss; hi is the larger loss
	// (the weaker signal), the conservative reading of a link budget.
	LossIntervalDB [2]float64 `json:"loss_interval_db"`
	HalfWidthDB    float64    `json:"half_width_db"`
	Coverage       float64    `json:"coverage"`
	Mondrian       bool       `json:"mondrian"`
	// Region is the macro-region whose local band served, null otherwise.
	Region *string `json:"region"`
	// SignalClass is the class of the predicted level whose live band may
	// widen the half-width (GET /coverage/effective-band); Widened says
	// it did.
	SignalClass string `json:"signal_class"`
	Widened     bool   `json:"widened"`
	// Unseen is true when the transmitter is not one the model was
	// trained on (ml.UnseenBand.Saw): the band for unseen transmitters
	// served, when it is wider than the ordinary one.
	Unseen bool `json:"unseen"`
}

// Extra holds the optional parts of an answer.
type Extra struct {
	Conformal *Conformal `json:"conformal,omitempty"`
}

// Prediction is the answer of POST /coverage/predict (SPEC §2.4).
type Prediction struct {
	EngineUsed   string   `json:"engine_used"`
	ModelSource  string   `json:"model_source"`
	ModelVersion *string  `json:"model_version"`
	SignalDBm    float64  `json:"signal_dbm"`
	PathLossDB   float64  `json:"path_loss_db"`
	Confidence   float64  `json:"confidence"`
	CVRMSEDB     *float64 `json:"cv_rmse_db"`
	ClutterClass *int     `json:"clutter_class"`
	ClutterLabel *string  `json:"clutter_label"`
	Extra        Extra    `json:"extra"`
	// DataProvenance, AccuracyGrade and FieldAccuracyClaim are the
	// grade of the model that answered (SPEC §2.6; physics: none,
	// pipeline_validation_only, false).
	DataProvenance     string `json:"data_provenance"`
	AccuracyGrade      string `json:"accuracy_grade"`
	FieldAccuracyClaim bool   `json:"field_accuracy_claim"`
	// Envelope is the residual engine's verdict; null when it was not
	// consulted (not loaded, or not in the chain asked for).
	Envelope *Envelope `json:"envelope"`
	// FallbackReason says why each earlier link of the chain did not
	// answer; null when the first one consulted did.
	FallbackReason *string `json:"fallback_reason"`
	Region         *string `json:"region"`
	ModelRequested string  `json:"model_requested"`
	// Warnings are the answer's caveats, never null: model_not_field_validated
	// when a learned model that claims no field accuracy answered.
	Warnings []appliance.Warning `json:"warnings"`
}

// resolved is a validated query.
type resolved struct {
	link        features.Link
	cableLossDB float64
	model       string
}

// eirpDBm is the level the link budget starts from: power and both gains
// less the cable loss (signal = eirp − path loss).
func (r *resolved) eirpDBm() float64 {
	return r.link.TxPowerDBm + r.link.TxGainDBi + r.link.RxGainDBi - r.cableLossDB
}

// resolve validates q, applies the defaults and the tower, and names
// every bad field.
func (s *Service) resolve(k *appliance.APIKey, q *Query) (*resolved, error) {
	v := &appliance.ValidationError{}
	r := &resolved{model: ModelAuto}
	l := &r.link
	l.RxHeightM = DefaultRxHeightM
	num := func(p *float64, dst *float64) {
		if p != nil {
			*dst = *p
		}
	}
	if q.RxLat == nil {
		v.Add("rx_lat", "is required")
	}
	if q.RxLon == nil {
		v.Add("rx_lon", "is required")
	}
	if q.FrequencyMHz == nil {
		v.Add("frequency_mhz", "is required")
	}
	num(q.RxLat, &l.Rx.Lat)
	num(q.RxLon, &l.Rx.Lon)
	num(q.RxHeightM, &l.RxHeightM)
	num(q.FrequencyMHz, &l.FreqMHz)
	num(q.TxGainDBi, &l.TxGainDBi)
	num(q.RxGainDBi, &l.RxGainDBi)
	num(q.CableLossDB, &r.cableLossDB)
	if q.Model != nil {
		switch *q.Model {
		case ModelAuto, ModelResidual, ModelRidge, ModelPhysics:
			r.model = *q.Model
		default:
			v.Add("model", "must be auto, residual, ridge or physics")
		}
	}
	haveTx := q.TxLat != nil || q.TxLon != nil
	switch {
	case q.TowerID != nil && haveTx:
		v.Add("tower_id", "give either tower_id or tx_lat and tx_lon, not both")
	case q.TowerID != nil:
		t, ok := s.deps.Tower(tenantOf(k), *q.TowerID)
		if !ok {
			return nil, fmt.Errorf("tower %q: %w", *q.TowerID, appliance.ErrNotFound)
		}
		l.Tx = t.Pos()
		l.TxHeightM = t.HeightM
		if l.TxHeightM <= 0 {
			l.TxHeightM = DefaultTowerHeightM
		}
		num(q.TxHeightM, &l.TxHeightM)
	default:
		if q.TxLat == nil {
			v.Add("tx_lat", "is required (or tower_id)")
		}
		if q.TxLon == nil {
			v.Add("tx_lon", "is required (or tower_id)")
		}
		if q.TxHeightM == nil {
			v.Add("tx_height_m", "is required with tx_lat and tx_lon")
		}
		num(q.TxLat, &l.Tx.Lat)
		num(q.TxLon, &l.Tx.Lon)
		num(q.TxHeightM, &l.TxHeightM)
	}
	if q.TxPowerDBm == nil {
		v.Add("tx_power_dbm", "is required: the transmitter power, dBm")
	}
	num(q.TxPowerDBm, &l.TxPowerDBm)
	if !(r.cableLossDB >= 0 && r.cableLossDB <= 20) {
		v.Add("cable_loss_db", "must be within [0, 20] dB")
	}
	if err := l.Validate(); err != nil {
		var ve *appliance.ValidationError
		if errors.As(err, &ve) {
			seen := map[string]bool{}
			for _, f := range v.Fields {
				seen[f.Field] = true
			}
			for _, f := range ve.Fields {
				name := f.Field
				if name == "freq_mhz" {
					name = "frequency_mhz"
				}
				if !seen[name] {
					v.Add(name, "%s", f.Reason)
				}
			}
		}
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	if l.Tx.DistanceM(l.Rx) < 1 {
		return nil, appliance.Invalid("rx_lat", "the receiver is within 1 m of the transmitter: no path to predict")
	}
	return r, nil
}

func tenantOf(k *appliance.APIKey) string {
	if k == nil {
		return ""
	}
	return k.TenantID
}

// checkTier refuses keys below Pro (SPEC §4.4).
func checkTier(k *appliance.APIKey) error {
	if k == nil {
		return fmt.Errorf("coverage prediction: %w", appliance.ErrUnauthenticated)
	}
	if k.Role == appliance.RoleAdmin || k.Tier.AtLeast(appliance.TierPro) {
		return nil
	}
	return fmt.Errorf("coverage prediction needs tier Pro or higher (this key is %s): %w", k.Tier, appliance.ErrForbidden)
}

// chain is the state of one prediction through the fallback chain.
type chain struct {
	s       *Service
	r       *resolved
	set     *modelSet
	region  string
	reasons []string
	profile *appliance.PathProfile
	profErr error
	env     *Envelope
	out     *Prediction
	// model is the served artifact that answered (nil: external or
	// physics).
	model *ml.Artifact
}

func (c *chain) refuse(format string, args ...any) {
	c.reasons = append(c.reasons, fmt.Sprintf(format, args...))
}

// features is a feature builder whose terrain answers this query's path
// from the profile the physics engines use (computed once).
func (c *chain) features() *features.Builder {
	return &features.Builder{Terrain: memoTerrain{Terrain: c.s.deps.Terrain, c: c}, Clutter: c.s.deps.Clutter}
}

// memoTerrain answers the query's own path from the chain's profile.
type memoTerrain struct {
	appliance.Terrain
	c *chain
}

func (m memoTerrain) Profile(a, b appliance.LatLon, stepM float64) (*appliance.PathProfile, error) {
	if a == m.c.r.link.Tx && b == m.c.r.link.Rx && stepM == ProfileStepM {
		return m.c.path()
	}
	return m.Terrain.Profile(a, b, stepM)
}

// path returns the physics profile, computed once.
func (c *chain) path() (*appliance.PathProfile, error) {
	if c.profile == nil && c.profErr == nil {
		c.profile, c.profErr = c.s.deps.Terrain.Profile(c.r.link.Tx, c.r.link.Rx, ProfileStepM)
	}
	return c.profile, c.profErr
}

// Predict answers one query through the fallback chain of SPEC §2.5:
// the external endpoint (auto only, when configured), the residual engine
// when the query is inside its envelope, the local ridge model (the band
// model of the nearest of the seven bands, else the global one), then
// fspl. model "residual" starts the chain at the residual engine,
// "ridge" at the ridge model, "physics" at fspl. A model problem is never
// an error: the next link answers and fallback_reason says why. Only
// what fspl itself cannot do fails: a point without terrain
// (appliance.ErrTerrainMissing, 422) when no terrain-free model answered.
func (s *Service) Predict(ctx context.Context, k *appliance.APIKey, q Query) (*Prediction, error) {
	if err := checkTier(k); err != nil {
		return nil, err
	}
	r, err := s.resolve(k, &q)
	if err != nil {
		return nil, fmt.Errorf("coverage prediction: %w", err)
	}
	c := &chain{s: s, r: r, set: s.current(), region: s.deps.RegionAt(r.link.Rx)}
	links := map[string][]func(context.Context) bool{
		ModelAuto:     {c.external, c.residual, c.ridge},
		ModelResidual: {c.residual, c.ridge},
		ModelRidge:    {c.ridge},
		ModelPhysics:  nil,
	}[r.model]
	answered := false
	for _, link := range links {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if link(ctx) {
			answered = true
			break
		}
	}
	if !answered {
		if err := c.physics(ctx); err != nil {
			return nil, fmt.Errorf("coverage prediction: %w", err)
		}
	}
	c.finish()
	return c.out, nil
}

// external asks the operator's endpoint.
func (c *chain) external(ctx context.Context) bool {
	e := c.s.deps.External
	if e.URL == "" {
		return false
	}
	l := c.r.link
	a, err := e.call(ctx, ExternalRequest{TxLat: l.Tx.Lat, TxLon: l.Tx.Lon, TxHeightM: l.TxHeightM, RxLat: l.Rx.Lat, RxLon: l.Rx.Lon,
		RxHeightM: l.RxHeightM, FrequencyMHz: l.FreqMHz, TxPowerDBm: l.TxPowerDBm, TxGainDBi: l.TxGainDBi, RxGainDBi: l.RxGainDBi,
		CableLossDB: c.r.cableLossDB})
	if err != nil {
		c.refuse("%v", err)
		return false
	}
	conf := ConfidenceFSPL
	if a.Confidence != nil {
		conf = *a.Confidence
	}
	mv := a.ModelVersion
	if mv == "" {
		mv = "external"
	}
	c.out = &Prediction{EngineUsed: "external", ModelSource: SourceExternal, ModelVersion: &mv, SignalDBm: *a.SignalDBm,
		Confidence: conf, CVRMSEDB: a.CVRMSEDB, DataProvenance: ProvenanceUnknown}
	return true
}

// NoEnvelopeReason is why a model without an envelope refuses every
// query.
const NoEnvelopeReason = "the model has no calibrated envelope (it was written by an earlier build): it says nowhere where its figures hold, so it answers nowhere; retrain it"

// envelope checks a model's envelope at the receiver. A model without one
// refuses: it was trained by an earlier build that did not write its
// envelope, and a learned model never extrapolates.
func (c *chain) envelope(a *ml.Artifact) (bool, string) {
	if a.Envelope == nil {
		return false, NoEnvelopeReason
	}
	return a.Envelope.Contains(c.r.link.Rx.Lat, c.r.link.Rx.Lon, c.r.link.FreqMHz)
}

// residual runs the residual engine.
func (c *chain) residual(ctx context.Context) bool {
	a := c.set.Residual
	if a == nil {
		if c.r.model == ModelResidual {
			c.refuse("no residual engine is loaded")
		}
		return false
	}
	in, why := c.envelope(a)
	env := &Envelope{Inside: in, Reason: why}
	c.env = env
	if !in {
		c.refuse("residual engine %s refused to extrapolate: %s", a.ModelVersion, why)
		return false
	}
	l := c.r.link
	var signal float64
	engine := "drivetest-gbm"
	if driveTest(a) {
		dt, ok := driveTestSchemas[a.Schema.Version]
		if !ok {
			c.refuse("residual engine %s: drive-test schema %d has no feature builder here", a.ModelVersion, a.Schema.Version)
			return false
		}
		p, err := a.Predict(dt.features(l.Rx.Lat, l.Rx.Lon, l.Tx.Lat, l.Tx.Lon, l.FreqMHz*1e6))
		if err != nil {
			c.refuse("residual engine %s: %v", a.ModelVersion, err)
			return false
		}
		signal = p
	} else {
		engine = string(appliance.EngineHybrid)
		x, _, err := c.features().Vector(ctx, l, a.Schema.Version)
		if err != nil {
			c.refuse("residual engine %s: %s", a.ModelVersion, reasonOf(err))
			return false
		}
		base, err := c.baseline(ctx)
		if err != nil {
			c.refuse("residual engine %s baseline %s: %s", a.ModelVersion, appliance.EngineHybrid, reasonOf(err))
			return false
		}
		d, err := a.Predict(x)
		if err != nil {
			c.refuse("residual engine %s: %v", a.ModelVersion, err)
			return false
		}
		signal = c.r.eirpDBm() - base + d
	}
	cv := a.CVRMSEDB
	c.out = &Prediction{EngineUsed: engine, ModelSource: SourceResidual, ModelVersion: &a.ModelVersion, SignalDBm: signal,
		Confidence: ConfidenceEmpirical, CVRMSEDB: positive(cv), DataProvenance: c.set.provenance(a)}
	c.model = a
	c.out.Extra.Conformal = c.conformal(a, signal)
	return true
}

// baseline is the hybrid engine's path loss, dB.
func (c *chain) baseline(ctx context.Context) (float64, error) {
	prof, err := c.path()
	if err != nil {
		return 0, err
	}
	eng, err := c.s.deps.Engines(appliance.EngineHybrid)
	if err != nil {
		return 0, err
	}
	l := c.r.link
	p, err := eng.Predict(ctx, appliance.LinkInput{Tx: l.Tx, Rx: l.Rx, TxHeightM: l.TxHeightM, RxHeightM: l.RxHeightM, FreqMHz: l.FreqMHz, Profile: prof})
	if err != nil {
		return 0, err
	}
	return p.PathLossDB, nil
}

// conformal is the band of a residual-engine answer: the Mondrian band of
// the receiver's macro-region when the artifact has one, else the
// marginal band, widened to the live band of the predicted level's signal
// class when that is wider.
func (c *chain) conformal(a *ml.Artifact, signal float64) *Conformal {
	if a.Conformal == nil {
		return nil
	}
	b, mondrian := a.Conformal.BandFor(c.region)
	class := ClassOf(signal)
	half, widened, unseen := b.QAbsDB, false, false
	if u := a.Conformal.Unseen; u != nil && !u.Saw(c.r.link.Tx.Lat, c.r.link.Tx.Lon, c.r.link.FreqMHz) {
		unseen = true
		half = max(half, u.Band.QAbsDB)
	}
	if q, ok := c.s.live.liveHalfWidth(class, b.Alpha); ok && q > half {
		half, widened = q, true
	}
	loss := c.r.eirpDBm() - signal
	out := &Conformal{LossIntervalDB: [2]float64{r3(loss - half), r3(loss + half)}, HalfWidthDB: r3(half), Coverage: b.Coverage,
		Mondrian: mondrian, SignalClass: class, Widened: widened, Unseen: unseen}
	if mondrian {
		reg := c.region
		out.Region = &reg
	}
	return out
}

// ridge runs the local model: the band model of the snapped band, else
// the global one.
func (c *chain) ridge(ctx context.Context) bool {
	l := c.r.link
	band := features.SnapBandMHz(l.FreqMHz)
	a := c.set.Bands[band]
	if a == nil {
		a = c.set.Ridge
	}
	if a == nil {
		if c.r.model == ModelRidge {
			c.refuse("no local model is loaded")
		}
		return false
	}
	if in, why := c.envelope(a); !in {
		c.refuse("local model %s refused to extrapolate: %s", a.ModelVersion, why)
		return false
	}
	x, _, err := c.features().Vector(ctx, l, a.Schema.Version)
	if err != nil {
		c.refuse("local model %s: %s", a.ModelVersion, reasonOf(err))
		return false
	}
	p, err := a.Predict(x)
	if err != nil {
		c.refuse("local model %s: %v", a.ModelVersion, err)
		return false
	}
	c.out = &Prediction{EngineUsed: "ridge", ModelSource: SourceLocal, ModelVersion: &a.ModelVersion, SignalDBm: p,
		Confidence: RidgeConfidence(a.CVRMSEDB), CVRMSEDB: positive(a.CVRMSEDB), DataProvenance: c.set.provenance(a)}
	c.model = a
	return true
}

// physics is the last link: fspl on the terrain profile.
func (c *chain) physics(ctx context.Context) error {
	prof, err := c.path()
	if err != nil {
		return err
	}
	eng, err := c.s.deps.Engines(appliance.EngineFSPL)
	if err != nil {
		return err
	}
	l := c.r.link
	p, err := eng.Predict(ctx, appliance.LinkInput{Tx: l.Tx, Rx: l.Rx, TxHeightM: l.TxHeightM, RxHeightM: l.RxHeightM, FreqMHz: l.FreqMHz, Profile: prof})
	if err != nil {
		return err
	}
	c.out = &Prediction{EngineUsed: string(p.Engine), ModelSource: SourcePhysics, SignalDBm: c.r.eirpDBm() - p.PathLossDB,
		Confidence: ConfidenceFSPL, DataProvenance: ProvenanceNone}
	return nil
}

// finish fills the fields every answer has.
func (c *chain) finish() {
	o := c.out
	o.ModelRequested = c.r.model
	o.SignalDBm = r3(o.SignalDBm)
	o.PathLossDB = r3(c.r.eirpDBm() - o.SignalDBm)
	if o.CVRMSEDB != nil {
		v := r3(*o.CVRMSEDB)
		o.CVRMSEDB = &v
	}
	cv := 0.0
	if o.CVRMSEDB != nil {
		cv = *o.CVRMSEDB
	}
	o.AccuracyGrade, o.FieldAccuracyClaim = Grade(o.DataProvenance, cv)
	o.Warnings = []appliance.Warning{}
	if c.model != nil && !o.FieldAccuracyClaim {
		o.Confidence = min(o.Confidence, ConfidenceFSPL)
		o.Warnings = append(o.Warnings, appliance.Warning{Code: appliance.WarnModelNotFieldValidated, Message: notValidatedMessage(o, c.set, c.model)})
	}
	if o.Envelope == nil {
		o.Envelope = c.env
	}
	if len(c.reasons) > 0 {
		s := strings.Join(c.reasons, "; ")
		o.FallbackReason = &s
	}
	if c.region != "" {
		reg := c.region
		o.Region = &reg
	}
	if cm := c.s.deps.Clutter; cm != nil {
		if ci, err := cm.ClutterAt(c.r.link.Rx); err == nil && ci.Class != 0 {
			cls, lbl := int(ci.Class), ci.Label
			o.ClutterClass, o.ClutterLabel = &cls, &lbl
		}
	}
}

// positive is a pointer to v, nil when v is not a positive number.
func positive(v float64) *float64 {
	if !(v > 0) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// reasonOf is an error as a fallback reason: the terrain's and the
// validation's messages read well; others are summarised by their kind.
func reasonOf(err error) string {
	switch {
	case errors.Is(err, appliance.ErrTerrainMissing):
		return "no terrain covers the path"
	case errors.Is(err, appliance.ErrUnavailable):
		return "no land-cover layer covers the receiver"
	case errors.Is(err, appliance.ErrInvalid):
		return "the engine cannot compute this path (outside its validity)"
	}
	return "internal model error"
}

// notValidatedMessage says why the answering model claims no field
// accuracy and what that does to the answer.
func notValidatedMessage(o *Prediction, set *modelSet, a *ml.Artifact) string {
	name := o.ModelSource
	if o.ModelVersion != nil {
		name = *o.ModelVersion
	}
	why := ""
	switch o.DataProvenance {
	case ProvenanceSynthetic:
		why = "was trained on synthetic data"
	case ProvenanceMixed:
		why = "was trained on a mix of synthetic, attested and unattested rows"
	case ProvenanceUnknown:
		why = "was trained on data no operator attested as field measurements"
		if d := set.attestation(a).Detail; d != "" {
			why += " (" + d + ")"
		}
	default:
		why = "has no cross-validated RMSE"
	}
	return fmt.Sprintf("the answering model %s %s (data_provenance %s, grade %s): its number validates the pipeline and claims no field accuracy, so its confidence is capped at the fspl fallback's %.2f",
		name, why, o.DataProvenance, o.AccuracyGrade, ConfidenceFSPL)
}
