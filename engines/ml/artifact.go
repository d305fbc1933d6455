package ml

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"linkplan/appliance"
)

// ArtifactFormat is the value of an artifact's "format" field.
const ArtifactFormat = "linkplan-ml-model"

// ArtifactVersion is the artifact layout this build writes. It reads every
// version from 1 to ArtifactVersion (see FORMAT.md).
const ArtifactVersion = 3

// MaxArtifactBytes bounds what ReadArtifact reads.
const MaxArtifactBytes = 256 << 20

// Model kinds of an artifact.
const (
	KindRidge = "ridge"
	KindGBM   = "gbm"
)

// ErrArtifact means a model artifact is malformed or of an unknown format
// or version. It matches appliance.ErrInvalid.
var ErrArtifact = fmt.Errorf("model artifact: %w", appliance.ErrInvalid)

// FeatureSchema names the features of a model's input vector, in order:
// appliance.FeatureSchema, which the feature builder (appliance/features)
// returns without importing this package.
type FeatureSchema = appliance.FeatureSchema

// Artifact is a trained model as stored in a file: a versioned header,
// the feature schema, exactly one model (Ridge or GBM, per Kind) and
// optionally its conformal calibration and cross-validation summary.
type Artifact struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	// Kind is KindRidge or KindGBM.
	Kind string `json:"kind"`
	// ModelVersion is the served model's name, e.g. "ridge-v1".
	ModelVersion string        `json:"model_version"`
	Schema       FeatureSchema `json:"feature_schema"`
	// DataProvenance is one of SPEC §2.6's values (synthetic, real, mixed,
	// unknown, none); the artifact only carries it.
	DataProvenance string `json:"data_provenance,omitempty"`
	// TrainedAtUnixS is the training time in epoch seconds.
	TrainedAtUnixS int64 `json:"trained_at,omitempty"`
	// NTrain is the number of training rows.
	NTrain int `json:"n_train,omitempty"`
	// CVRMSEDB and CVRMSEStdDB are CVResult.RMSEDB and StdDB; CVFolds is k.
	CVRMSEDB    float64 `json:"cv_rmse_db,omitempty"`
	CVRMSEStdDB float64 `json:"cv_rmse_std_db,omitempty"`
	CVFolds     int     `json:"cv_folds,omitempty"`
	// RMSEDB is the in-sample RMSE of the served model (SPEC §2.6 rmse_db,
	// history only); RMSEByMorphologyDB and RMSEByBandDB are the
	// out-of-fold RMSE per morphology (open_or_flat, rural_rolling,
	// rural_mountainous) and per band ("700MHz" … "3500MHz"), SPEC §2.6
	// rmse_by_morphology and rmse_by_band. All optional.
	RMSEDB             float64            `json:"rmse_db,omitempty"`
	RMSEByMorphologyDB map[string]float64 `json:"rmse_by_morphology_db,omitempty"`
	RMSEByBandDB       map[string]float64 `json:"rmse_by_band_db,omitempty"`
	// ConformalOutOfGroup is ml.OutOfGroupCoverage of the calibration
	// residuals: each region's coverage by a band calibrated on the other
	// regions (SPEC §2.6 cv_by_region[*].conformal_coverage). Optional.
	ConformalOutOfGroup []GroupCoverage `json:"conformal_out_of_group,omitempty"`
	// Envelope is where the model is calibrated (layout version 2); nil
	// means no envelope: the model makes no claim of where it holds.
	Envelope *Envelope `json:"envelope,omitempty"`
	// Attestation says which training rows an operator vouched for as
	// field measurements (layout version 3); data_provenance real needs
	// every training row attested. nil: no row was attested.
	Attestation *Attestation `json:"attestation,omitempty"`
	// PhysicsBaseline is the fair physics baseline fitted on the training
	// rows (layout version 3), for `linkplan model eval`; nil: none.
	PhysicsBaseline *PhysicsBaseline `json:"physics_baseline,omitempty"`

	Ridge     *Ridge       `json:"ridge,omitempty"`
	GBM       *GBM         `json:"gbm,omitempty"`
	Conformal *Calibration `json:"conformal,omitempty"`
}

// Attestation scopes: where an AttestedSource was made.
const (
	// ScopeAppliance: stored by `linkplan observations attest` on the
	// appliance that trained the model; a withdrawal there withdraws it.
	ScopeAppliance = "appliance"
	// ScopeBuild: made by whoever built the artifact from files (the
	// `--attest-basis` of `linkplan model train`, e.g. the shipped
	// drive-test model); no appliance record can withdraw it.
	ScopeBuild = "build"
)

// AttestedSource is one attested source of a model's training rows.
type AttestedSource struct {
	Source string `json:"source"`
	// Basis is the attesting operator's text (why these rows are field
	// measurements); AttestedBy names the operator.
	Basis      string `json:"basis"`
	AttestedBy string `json:"attested_by"`
	// AttestedAtUnix is when, epoch seconds.
	AttestedAtUnix float64 `json:"attested_at"`
	Scope          string  `json:"scope"`
	// Rows is the training rows of this source.
	Rows int `json:"rows"`
}

// Attestation is the attested share of a model's training rows.
type Attestation struct {
	// Sources lists the attested sources, sorted by name.
	Sources []AttestedSource `json:"sources"`
	// AttestedRows, UnattestedRows and SyntheticRows split the training
	// rows: attested sources, other measured sources (a source label no
	// operator vouched for), and the synthetic generator's rows.
	AttestedRows   int `json:"attested_rows"`
	UnattestedRows int `json:"unattested_rows"`
	SyntheticRows  int `json:"synthetic_rows"`
}

// PhysicsBaseline is a physics model fitted on the training rows only: the
// fair baseline a learned model must beat on rows it never saw (an offset
// fitted on the evaluated rows themselves would be an oracle).
type PhysicsBaseline struct {
	// Engine names the physics, e.g. "fspl" (free space).
	Engine string `json:"engine"`
	// EIRPOffsetDBm is the least-squares level offset: predicted level =
	// EIRPOffsetDBm − loss, dBm.
	EIRPOffsetDBm float64 `json:"eirp_offset_dbm"`
	// RMSEDB is its RMSE on the training rows, dB.
	RMSEDB float64 `json:"rmse_db"`
}

// Predict returns the artifact's model prediction for x, which must have
// one value per schema feature.
func (a *Artifact) Predict(x []float64) (float64, error) {
	if len(x) != len(a.Schema.Names) {
		return 0, fmt.Errorf("predict with %s: %d features given, schema version %d has %d: %w",
			a.ModelVersion, len(x), a.Schema.Version, len(a.Schema.Names), appliance.ErrInvalid)
	}
	switch a.Kind {
	case KindRidge:
		return a.Ridge.Predict(x), nil
	case KindGBM:
		return a.GBM.Predict(x), nil
	}
	return 0, fmt.Errorf("predict: kind %q: %w", a.Kind, ErrArtifact)
}

// WriteArtifact validates a (filling Format and Version) and writes it as
// indented JSON. Float64 values round-trip exactly, so a read artifact
// predicts bit for bit as the written one.
func WriteArtifact(w io.Writer, a *Artifact) error {
	a.Format, a.Version = ArtifactFormat, ArtifactVersion
	if err := a.validate(); err != nil {
		return fmt.Errorf("write artifact: %w", err)
	}
	b, err := json.MarshalIndent(a, "", " ")
	if err != nil {
		return fmt.Errorf("write artifact: %w", err)
	}
	b = append(b, '\n')
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("write artifact: %w", err)
	}
	return nil
}

// ReadArtifact reads and validates an artifact of any version from 1 to
// ArtifactVersion. Every structural problem (unknown field, wrong format
// or newer version, a tree whose child does not follow its parent, a
// feature index outside the schema, a non-finite number, lengths that
// disagree) is an error matching ErrArtifact, so a loaded artifact never
// panics in Predict for a vector of its schema's length.
func ReadArtifact(r io.Reader) (*Artifact, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxArtifactBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read artifact: %w", err)
	}
	if len(b) > MaxArtifactBytes {
		return nil, fmt.Errorf("read artifact: larger than %d bytes: %w", MaxArtifactBytes, ErrArtifact)
	}
	var head struct {
		Format  string `json:"format"`
		Version int    `json:"version"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return nil, fmt.Errorf("read artifact header: %v: %w", err, ErrArtifact)
	}
	if head.Format != ArtifactFormat {
		return nil, fmt.Errorf("read artifact: format %q, want %q: %w", head.Format, ArtifactFormat, ErrArtifact)
	}
	if head.Version < 1 || head.Version > ArtifactVersion {
		return nil, fmt.Errorf("read artifact: version %d, this build reads 1 to %d: %w", head.Version, ArtifactVersion, ErrArtifact)
	}
	// Version 2 only added the optional envelope and version 3 only
	// optional fields (envelope hulls and validity, attestation, physics
	// baseline, the unseen band): older artifacts read as they are. A
	// later version converts older layouts here.
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var a Artifact
	if err := dec.Decode(&a); err != nil {
		return nil, fmt.Errorf("read artifact: %v: %w", err, ErrArtifact)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("read artifact: data after the JSON object: %w", ErrArtifact)
	}
	if err := a.validate(); err != nil {
		return nil, fmt.Errorf("read artifact: %w", err)
	}
	return &a, nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// validate checks the invariants ReadArtifact promises.
func (a *Artifact) validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf(format+": %w", append(args, ErrArtifact)...)
	}
	nf := len(a.Schema.Names)
	if a.Schema.Version < 1 {
		return bad("feature schema version %d must be at least 1", a.Schema.Version)
	}
	if nf == 0 {
		return bad("feature schema has no features")
	}
	seen := make(map[string]bool, nf)
	for i, s := range a.Schema.Names {
		if s == "" || seen[s] {
			return bad("feature schema name %d (%q) is empty or repeated", i, s)
		}
		seen[s] = true
	}
	if a.ModelVersion == "" {
		return bad("model_version is empty")
	}
	for name, v := range map[string]float64{"cv_rmse_db": a.CVRMSEDB, "cv_rmse_std_db": a.CVRMSEStdDB, "rmse_db": a.RMSEDB} {
		if !finite(v) || v < 0 {
			return bad("%s %v must be a non-negative number", name, v)
		}
	}
	for field, m := range map[string]map[string]float64{"rmse_by_morphology_db": a.RMSEByMorphologyDB, "rmse_by_band_db": a.RMSEByBandDB} {
		for k, v := range m {
			if k == "" || !finite(v) || v < 0 {
				return bad("%s[%q] %v: keys must be non-empty and values non-negative numbers", field, k, v)
			}
		}
	}
	for i, g := range a.ConformalOutOfGroup {
		if g.Group == "" || (i > 0 && a.ConformalOutOfGroup[i-1].Group >= g.Group) {
			return bad("conformal_out_of_group %d (%q): groups must be non-empty, sorted and distinct", i, g.Group)
		}
		if err := g.Band.validate(); err != nil {
			return err
		}
		r := g.Report
		if r.N < 1 || r.Covered < 0 || r.Covered > r.N || r.Mondrian < 0 || !finite(r.EmpiricalCoverage) || !finite(r.MeanWidthDB) ||
			r.EmpiricalCoverage < 0 || r.EmpiricalCoverage > 1 {
			return bad("conformal_out_of_group %q: report n %d, covered %d, coverage %v out of range", g.Group, r.N, r.Covered, r.EmpiricalCoverage)
		}
	}
	switch a.Kind {
	case KindRidge:
		if a.Ridge == nil || a.GBM != nil {
			return bad("kind ridge needs a ridge model and no other")
		}
		if err := a.Ridge.validate(nf); err != nil {
			return err
		}
	case KindGBM:
		if a.GBM == nil || a.Ridge != nil {
			return bad("kind gbm needs a gbm model and no other")
		}
		if err := a.GBM.validate(nf); err != nil {
			return err
		}
	default:
		return bad("kind %q is not %s or %s", a.Kind, KindRidge, KindGBM)
	}
	if a.Conformal != nil {
		if err := a.Conformal.validate(); err != nil {
			return err
		}
	}
	if a.Envelope != nil {
		if err := a.Envelope.validate(); err != nil {
			return err
		}
	}
	if at := a.Attestation; at != nil {
		if at.AttestedRows < 0 || at.UnattestedRows < 0 || at.SyntheticRows < 0 {
			return bad("attestation row counts must be non-negative")
		}
		for i, s := range at.Sources {
			if s.Source == "" || s.Basis == "" || s.Rows < 0 || (s.Scope != ScopeAppliance && s.Scope != ScopeBuild) || !finite(s.AttestedAtUnix) ||
				(i > 0 && at.Sources[i-1].Source >= s.Source) {
				return bad("attestation source %d (%q): needs a name, a basis, rows >= 0, scope appliance or build, sorted and distinct names", i, s.Source)
			}
		}
	}
	if p := a.PhysicsBaseline; p != nil && (p.Engine == "" || !finite(p.EIRPOffsetDBm) || !finite(p.RMSEDB) || p.RMSEDB < 0) {
		return bad("physics_baseline needs an engine and finite numbers")
	}
	return nil
}

func (m *Ridge) validate(nf int) error {
	if len(m.Mean) != nf || len(m.Scale) != nf || len(m.Coef) != nf {
		return fmt.Errorf("ridge has %d means, %d scales, %d coefficients for %d features: %w", len(m.Mean), len(m.Scale), len(m.Coef), nf, ErrArtifact)
	}
	if !finite(m.YMean) || !finite(m.Lambda) || m.Lambda < 0 {
		return fmt.Errorf("ridge y_mean or lambda is not a valid number: %w", ErrArtifact)
	}
	for j := range nf {
		if !finite(m.Mean[j]) || !finite(m.Scale[j]) || m.Scale[j] < 0 || !finite(m.Coef[j]) {
			return fmt.Errorf("ridge feature %d: mean, scale (>= 0) and coefficient must be finite: %w", j, ErrArtifact)
		}
	}
	return nil
}

func (m *GBM) validate(nf int) error {
	if m.NFeatures != nf {
		return fmt.Errorf("gbm takes %d features, schema has %d: %w", m.NFeatures, nf, ErrArtifact)
	}
	if !finite(m.Baseline) {
		return fmt.Errorf("gbm baseline %v: %w", m.Baseline, ErrArtifact)
	}
	if m.BestIteration != len(m.Trees) {
		return fmt.Errorf("gbm best_iteration %d but %d trees: %w", m.BestIteration, len(m.Trees), ErrArtifact)
	}
	for t, tr := range m.Trees {
		if len(tr.Nodes) == 0 {
			return fmt.Errorf("gbm tree %d has no nodes: %w", t, ErrArtifact)
		}
		n := int32(len(tr.Nodes))
		for i, nd := range tr.Nodes {
			switch {
			case nd.Feature == -1:
				if !finite(nd.Value) {
					return fmt.Errorf("gbm tree %d leaf %d value %v: %w", t, i, nd.Value, ErrArtifact)
				}
			case nd.Feature < 0 || int(nd.Feature) >= nf:
				return fmt.Errorf("gbm tree %d node %d feature %d outside 0…%d: %w", t, i, nd.Feature, nf-1, ErrArtifact)
			case nd.Left <= int32(i) || nd.Left >= n || nd.Right <= int32(i) || nd.Right >= n:
				return fmt.Errorf("gbm tree %d node %d children %d, %d must follow it within %d nodes: %w", t, i, nd.Left, nd.Right, n, ErrArtifact)
			case math.IsNaN(nd.Threshold):
				return fmt.Errorf("gbm tree %d node %d threshold is NaN: %w", t, i, ErrArtifact)
			}
		}
	}
	return nil
}

func (b *Band) validate() error {
	if b.N < 1 || !(b.Alpha > 0 && b.Alpha < 1) {
		return fmt.Errorf("conformal band n_calibration %d, alpha %v: %w", b.N, b.Alpha, ErrArtifact)
	}
	for _, v := range []float64{b.Coverage, b.QAbsDB, b.QLoDB, b.QHiDB, b.EmpiricalCoverage, b.MeanWidthDB} {
		if !finite(v) {
			return fmt.Errorf("conformal band value %v: %w", v, ErrArtifact)
		}
	}
	if b.QAbsDB < 0 || b.QLoDB > b.QHiDB {
		return fmt.Errorf("conformal band q_abs_db %v, q_lo_db %v, q_hi_db %v out of order: %w", b.QAbsDB, b.QLoDB, b.QHiDB, ErrArtifact)
	}
	return nil
}

func (c *Calibration) validate() error {
	if err := c.Marginal.validate(); err != nil {
		return err
	}
	if c.Unseen != nil {
		if err := c.Unseen.validate(); err != nil {
			return err
		}
	}
	for i, g := range c.ByGroup {
		if g.Group == "" || (i > 0 && c.ByGroup[i-1].Group >= g.Group) {
			return fmt.Errorf("conformal group %d (%q): groups must be non-empty, sorted and distinct: %w", i, g.Group, ErrArtifact)
		}
		if err := g.Band.validate(); err != nil {
			return err
		}
	}
	return nil
}
