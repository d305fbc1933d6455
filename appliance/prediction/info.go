package prediction

import (
	"maps"

	"linkplan/appliance"
	"linkplan/engines/ml"
)

// LocalModelInfo is local_model of GET /coverage/model/info (SPEC §2.6).
type LocalModelInfo struct {
	Version          string             `json:"version"`
	RMSEDB           *float64           `json:"rmse_db"`
	CVRMSEDB         *float64           `json:"cv_rmse_db"`
	CVRMSEStdDB      *float64           `json:"cv_rmse_std_db"`
	CVFolds          *int               `json:"cv_folds"`
	NTrain           int                `json:"n_train"`
	TrainedAt        *int64             `json:"trained_at"`
	RMSEByMorphology map[string]float64 `json:"rmse_by_morphology"`
	RMSEByBand       map[string]float64 `json:"rmse_by_band"`
	// FeatureSchemaVersion is the artifact's feature schema (1: 17
	// features, 2: 27 with the clutter one-hot).
	FeatureSchemaVersion int    `json:"feature_schema_version"`
	DataProvenance       string `json:"data_provenance"`
	AccuracyGrade        string `json:"accuracy_grade"`
	FieldAccuracyClaim   bool   `json:"field_accuracy_claim"`
	// BandModels lists the loaded band models ("1800MHz": version).
	BandModels map[string]string `json:"band_models"`
	// Attestation is the attested share of its training rows: only rows
	// an operator attested count as real data.
	Attestation AttestationInfo `json:"attestation"`
	// Envelope is where it answers (a query outside is refused); null for
	// a model of an earlier build, which then answers nowhere.
	Envelope *EnvelopeInfo `json:"envelope"`
}

// RegionBand is one Mondrian band of by_region.
type RegionBand struct {
	RegionCode        string  `json:"region_code"`
	QAbsDB            float64 `json:"q_abs_db"`
	Alpha             float64 `json:"alpha"`
	Coverage          float64 `json:"coverage"`
	NCalibration      int     `json:"n_calibration"`
	EmpiricalCoverage float64 `json:"empirical_coverage"`
	MeanWidthDB       float64 `json:"mean_width_db"`
}

// RegionCV is one entry of cv_by_region: the region's coverage by a band
// calibrated on the other regions.
type RegionCV struct {
	RegionCode        string  `json:"region_code"`
	ConformalCoverage float64 `json:"conformal_coverage"`
	N                 int     `json:"n"`
	MeanWidthDB       float64 `json:"mean_width_db"`
}

// ConformalInfo is the conformal block of SPEC §2.6.
type ConformalInfo struct {
	Method   string  `json:"method"`
	Alpha    float64 `json:"alpha"`
	Coverage float64 `json:"coverage"`
	// Level is the nominal coverage in percent (90 for alpha 0.1).
	Level              float64      `json:"level"`
	NCalibration       int          `json:"n_calibration"`
	QAbsDB             float64      `json:"q_abs_db"`
	QLoDB              float64      `json:"q_lo_db"`
	QHiDB              float64      `json:"q_hi_db"`
	EmpiricalCoverage  float64      `json:"empirical_coverage"`
	MeanWidthDB        float64      `json:"mean_width_db"`
	DataProvenance     string       `json:"data_provenance"`
	FieldAccuracyClaim bool         `json:"field_accuracy_claim"`
	ByRegion           []RegionBand `json:"by_region"`
	CVByRegion         []RegionCV   `json:"cv_by_region"`
	// Unseen is the band served for a transmitter the model never saw
	// (ml.UnseenBand); null when the artifact has none.
	Unseen *UnseenBandInfo `json:"unseen"`
}

// UnseenBandInfo is the band for unseen transmitters (cells or a new
// operator): the worst held-out group's cluster-bootstrap upper bound of
// its conformal quantiles.
type UnseenBandInfo struct {
	Method            string  `json:"method"`
	Alpha             float64 `json:"alpha"`
	Coverage          float64 `json:"coverage"`
	NCalibration      int     `json:"n_calibration"`
	QAbsDB            float64 `json:"q_abs_db"`
	QLoDB             float64 `json:"q_lo_db"`
	QHiDB             float64 `json:"q_hi_db"`
	EmpiricalCoverage float64 `json:"empirical_coverage"`
	MeanWidthDB       float64 `json:"mean_width_db"`
	// Level is the confidence of the bootstrap bound; Resamples its
	// resamples.
	Level     float64 `json:"level"`
	Resamples int     `json:"resamples"`
	// Groups are the held-out groups (an operator left out, or the
	// transmitters left out by grouped cross-validation).
	Groups []ml.UnseenGroup `json:"groups"`
	// SeenTransmitters counts the transmitters that get the ordinary
	// band.
	SeenTransmitters int `json:"seen_transmitters"`
}

func unseenInfo(c *ml.Calibration) *UnseenBandInfo {
	if c == nil || c.Unseen == nil {
		return nil
	}
	u := c.Unseen
	return &UnseenBandInfo{Method: u.Method, Alpha: u.Band.Alpha, Coverage: u.Band.Coverage, NCalibration: u.Band.N, QAbsDB: u.Band.QAbsDB,
		QLoDB: u.Band.QLoDB, QHiDB: u.Band.QHiDB, EmpiricalCoverage: u.Band.EmpiricalCoverage, MeanWidthDB: u.Band.MeanWidthDB,
		Level: u.Level, Resamples: u.Resamples, Groups: append([]ml.UnseenGroup{}, u.Groups...), SeenTransmitters: len(u.SeenTransmitters)}
}

// EnvelopeInfo is a model's calibrated envelope; null when it claims none.
type EnvelopeInfo = ml.Envelope

// ResidualEngineInfo is residual_engine of GET /coverage/model/info.
type ResidualEngineInfo struct {
	Loaded       bool    `json:"loaded"`
	ModelVersion *string `json:"model_version"`
	// BaselineEngine is p1812-p1411-hybrid for a residual over physics,
	// null for a drive-test model (it predicts the level directly).
	BaselineEngine     *string        `json:"baseline_engine"`
	CVRMSEDB           *float64       `json:"cv_rmse_db"`
	CVRMSEStdDB        *float64       `json:"cv_rmse_std_db"`
	CVFolds            *int           `json:"cv_folds"`
	NTrain             int            `json:"n_train"`
	TrainedAt          *int64         `json:"trained_at"`
	DataProvenance     string         `json:"data_provenance"`
	AccuracyGrade      string         `json:"accuracy_grade"`
	FieldAccuracyClaim bool           `json:"field_accuracy_claim"`
	Conformal          *ConformalInfo `json:"conformal"`
	Envelope           *EnvelopeInfo  `json:"envelope"`
	// Attestation is the attested share of its training rows.
	Attestation AttestationInfo `json:"attestation"`
}

// ModelSetInfo says where the served models come from.
type ModelSetInfo struct {
	// Origin is "shipped" (built into the binary), "directory:current"
	// (<state dir>/models/current) or "none".
	Origin       string `json:"origin"`
	LoadedAtUnix int64  `json:"loaded_at"`
}

// ModelInfo is the body of GET /coverage/model/info.
type ModelInfo struct {
	LocalModel     *LocalModelInfo    `json:"local_model"`
	ResidualEngine ResidualEngineInfo `json:"residual_engine"`
	ModelSet       ModelSetInfo       `json:"model_set"`
}

func intPtr(v int) *int {
	if v <= 0 {
		return nil
	}
	return &v
}

func unixPtr(v int64) *int64 {
	if v <= 0 {
		return nil
	}
	return &v
}

func copyMap(m map[string]float64) map[string]float64 {
	out := map[string]float64{}
	maps.Copy(out, m)
	return out
}

// ModelInfo reports the served models (SPEC §2.6). Any authenticated key.
func (s *Service) ModelInfo(k *appliance.APIKey) (*ModelInfo, error) {
	if k == nil {
		return nil, appliance.ErrUnauthenticated
	}
	set := s.current()
	out := &ModelInfo{ModelSet: ModelSetInfo{Origin: originName(set.Origin), LoadedAtUnix: set.LoadedAt.Unix()}}
	if a := set.Ridge; a != nil {
		out.LocalModel = localInfo(set, a)
		out.LocalModel.BandModels = map[string]string{}
		for b, m := range set.Bands {
			out.LocalModel.BandModels[bandKey(b)] = m.ModelVersion
		}
	} else if len(set.Bands) > 0 {
		out.LocalModel = &LocalModelInfo{BandModels: map[string]string{}, RMSEByMorphology: map[string]float64{}, RMSEByBand: map[string]float64{},
			DataProvenance: ProvenanceNone, AccuracyGrade: GradePipelineValidationOnly, Attestation: set.attestation(nil)}
		for b, m := range set.Bands {
			out.LocalModel.BandModels[bandKey(b)] = m.ModelVersion
		}
	}
	out.ResidualEngine = residualInfo(set, set.Residual)
	return out, nil
}

func bandKey(b int) string { return fmtf("%dMHz", b) }

func localInfo(set *modelSet, a *ml.Artifact) *LocalModelInfo {
	p := set.provenance(a)
	g, claim := Grade(p, a.CVRMSEDB)
	return &LocalModelInfo{Version: a.ModelVersion, RMSEDB: positive(a.RMSEDB), CVRMSEDB: positive(a.CVRMSEDB),
		CVRMSEStdDB: nonNegIfCV(a), CVFolds: intPtr(a.CVFolds), NTrain: a.NTrain, TrainedAt: unixPtr(a.TrainedAtUnixS),
		RMSEByMorphology: copyMap(a.RMSEByMorphologyDB), RMSEByBand: copyMap(a.RMSEByBandDB),
		FeatureSchemaVersion: a.Schema.Version, DataProvenance: p, AccuracyGrade: g, FieldAccuracyClaim: claim,
		Attestation: set.attestation(a), Envelope: a.Envelope}
}

// nonNegIfCV is cv_rmse_std_db when the artifact has a CV summary.
func nonNegIfCV(a *ml.Artifact) *float64 {
	if !hasCV(a.CVRMSEDB) {
		return nil
	}
	v := a.CVRMSEStdDB
	return &v
}

func residualInfo(set *modelSet, a *ml.Artifact) ResidualEngineInfo {
	if a == nil {
		return ResidualEngineInfo{DataProvenance: ProvenanceNone, AccuracyGrade: GradePipelineValidationOnly, Attestation: set.attestation(nil)}
	}
	p := set.provenance(a)
	g, claim := Grade(p, a.CVRMSEDB)
	out := ResidualEngineInfo{Loaded: true, ModelVersion: &a.ModelVersion, CVRMSEDB: positive(a.CVRMSEDB), CVRMSEStdDB: nonNegIfCV(a),
		CVFolds: intPtr(a.CVFolds), NTrain: a.NTrain, TrainedAt: unixPtr(a.TrainedAtUnixS),
		DataProvenance: p, AccuracyGrade: g, FieldAccuracyClaim: claim, Envelope: a.Envelope, Attestation: set.attestation(a)}
	if !driveTest(a) {
		b := string(appliance.EngineHybrid)
		out.BaselineEngine = &b
	}
	if c := a.Conformal; c != nil {
		m := c.Marginal
		ci := &ConformalInfo{Method: ml.ConformalMethod, Alpha: m.Alpha, Coverage: m.Coverage, Level: r3(100 * m.Coverage),
			NCalibration: m.N, QAbsDB: m.QAbsDB, QLoDB: m.QLoDB, QHiDB: m.QHiDB, EmpiricalCoverage: m.EmpiricalCoverage,
			MeanWidthDB: m.MeanWidthDB, DataProvenance: out.DataProvenance, FieldAccuracyClaim: claim,
			ByRegion: []RegionBand{}, CVByRegion: []RegionCV{}, Unseen: unseenInfo(c)}
		for _, gb := range c.ByGroup {
			ci.ByRegion = append(ci.ByRegion, RegionBand{RegionCode: gb.Group, QAbsDB: gb.QAbsDB, Alpha: gb.Alpha, Coverage: gb.Coverage,
				NCalibration: gb.N, EmpiricalCoverage: gb.EmpiricalCoverage, MeanWidthDB: gb.MeanWidthDB})
		}
		for _, gc := range a.ConformalOutOfGroup {
			ci.CVByRegion = append(ci.CVByRegion, RegionCV{RegionCode: gc.Group, ConformalCoverage: gc.Report.EmpiricalCoverage,
				N: gc.Report.N, MeanWidthDB: gc.Report.MeanWidthDB})
		}
		out.Conformal = ci
	}
	return out
}

// ServedBand is the band predictions are served with (marginal).
type ServedBand struct {
	Alpha             float64 `json:"alpha"`
	Coverage          float64 `json:"coverage"`
	NCalibration      int     `json:"n_calibration"`
	QAbsDB            float64 `json:"q_abs_db"`
	QLoDB             float64 `json:"q_lo_db"`
	QHiDB             float64 `json:"q_hi_db"`
	EmpiricalCoverage float64 `json:"empirical_coverage"`
	MeanWidthDB       float64 `json:"mean_width_db"`
	// Regions lists the macro-regions with a local (Mondrian) band.
	Regions []string `json:"regions"`
	// Unseen is the band served for a transmitter the model never saw;
	// null when the model has none.
	Unseen *UnseenBandInfo `json:"unseen"`
}

// ModelClaim is the claim state of one served model.
type ModelClaim struct {
	Loaded             bool     `json:"loaded"`
	ModelVersion       *string  `json:"model_version"`
	DataProvenance     string   `json:"data_provenance"`
	AccuracyGrade      string   `json:"accuracy_grade"`
	FieldAccuracyClaim bool     `json:"field_accuracy_claim"`
	CVRMSEDB           *float64 `json:"cv_rmse_db"`
	NTrain             int      `json:"n_train"`
	// Envelope is where the claim holds; null: no envelope given (the
	// model then answers nowhere).
	Envelope *EnvelopeInfo `json:"envelope"`
	// Attestation is the attested share of its training rows: the claim
	// needs status attested.
	Attestation AttestationInfo `json:"attestation"`
}

// ClaimReadiness is the body of GET /coverage/claim-readiness (public):
// artifact metrics and the served band.
type ClaimReadiness struct {
	ResidualEngine ModelClaim  `json:"residual_engine"`
	LocalModel     ModelClaim  `json:"local_model"`
	ServedBand     *ServedBand `json:"served_band"`
	// FieldAccuracyClaim is true when some served model may claim field
	// accuracy (real data and a cross-validated RMSE), inside its
	// envelope.
	FieldAccuracyClaim bool         `json:"field_accuracy_claim"`
	ModelSet           ModelSetInfo `json:"model_set"`
}

func claimOf(set *modelSet, a *ml.Artifact) ModelClaim {
	if a == nil {
		return ModelClaim{DataProvenance: ProvenanceNone, AccuracyGrade: GradePipelineValidationOnly, Attestation: set.attestation(nil)}
	}
	p := set.provenance(a)
	g, claim := Grade(p, a.CVRMSEDB)
	return ModelClaim{Loaded: true, ModelVersion: &a.ModelVersion, DataProvenance: p, AccuracyGrade: g,
		FieldAccuracyClaim: claim, CVRMSEDB: positive(a.CVRMSEDB), NTrain: a.NTrain, Envelope: a.Envelope, Attestation: set.attestation(a)}
}

// ClaimReadiness reports the served models' claims (public: no tenant
// data).
func (s *Service) ClaimReadiness() *ClaimReadiness {
	set := s.current()
	out := &ClaimReadiness{ResidualEngine: claimOf(set, set.Residual), LocalModel: claimOf(set, set.Ridge),
		ModelSet: ModelSetInfo{Origin: originName(set.Origin), LoadedAtUnix: set.LoadedAt.Unix()}}
	out.FieldAccuracyClaim = out.ResidualEngine.FieldAccuracyClaim || out.LocalModel.FieldAccuracyClaim
	if a := set.Residual; a != nil && a.Conformal != nil {
		m := a.Conformal.Marginal
		sb := &ServedBand{Alpha: m.Alpha, Coverage: m.Coverage, NCalibration: m.N, QAbsDB: m.QAbsDB, QLoDB: m.QLoDB, QHiDB: m.QHiDB,
			EmpiricalCoverage: m.EmpiricalCoverage, MeanWidthDB: m.MeanWidthDB, Regions: []string{}, Unseen: unseenInfo(a.Conformal)}
		for _, g := range a.Conformal.ByGroup {
			sb.Regions = append(sb.Regions, g.Group)
		}
		out.ServedBand = sb
	}
	return out
}

// EffectiveBand is the body of GET /coverage/effective-band (public).
type EffectiveBand struct {
	ModelVersion *string `json:"model_version"`
	// NominalCoverage is 1 − alpha of the artifact band; 0 with no
	// residual engine.
	NominalCoverage float64 `json:"nominal_coverage"`
	Alpha           float64 `json:"alpha"`
	// ArtifactQAbsDB is the artifact's marginal half-width.
	ArtifactQAbsDB float64 `json:"artifact_q_abs_db"`
	// LiveWindow is how many recent residuals each class keeps.
	LiveWindow int         `json:"live_window"`
	Classes    []ClassBand `json:"classes"`
	// Rule states how the applied band is chosen.
	Rule string `json:"rule"`
}

// EffectiveBandRule documents the live override.
const EffectiveBandRule = "per signal class of the observed level (strong >= -80 dBm, medium, weak < -100 dBm) the last 500 residuals " +
	"(observed - predicted) of consented observations with a model prediction are kept in memory; applied half-width = " +
	"max(artifact q_abs_db, live conformal q_abs_db at the artifact alpha, once 19 residuals are held); a prediction uses the class of its " +
	"predicted level; the windows restart when the residual model changes"

// EffectiveBand reports the applied band and the measured coverage
// (public: aggregate residuals only, no tenant data).
func (s *Service) EffectiveBand() *EffectiveBand {
	set := s.current()
	out := &EffectiveBand{LiveWindow: LiveWindow, Rule: EffectiveBandRule, Alpha: ml.DefaultAlpha}
	var art *ml.Band
	if a := set.Residual; a != nil {
		out.ModelVersion = &a.ModelVersion
		if a.Conformal != nil {
			art = &a.Conformal.Marginal
			out.NominalCoverage, out.Alpha, out.ArtifactQAbsDB = art.Coverage, art.Alpha, art.QAbsDB
		}
	}
	for _, c := range SignalClasses {
		out.Classes = append(out.Classes, s.live.classBand(c, art))
	}
	return out
}

// PromotionReadiness is the body of GET /coverage/promotion-readiness.
type PromotionReadiness struct {
	ResidualEngine GateVerdict `json:"residual_engine"`
	LocalModel     GateVerdict `json:"local_model"`
	Thresholds     Thresholds  `json:"thresholds"`
}

// Thresholds are the gates' constants.
type Thresholds struct {
	SoleSourceMaxCVRMSEDB float64  `json:"sole_source_max_cv_rmse_db"`
	SoleSourceMinRealRows int      `json:"sole_source_min_real_rows"`
	MinStratumRows        int      `json:"min_region_stratum_rows"`
	Regions               []string `json:"regions"`
	Bands                 []string `json:"bands"`
	Morphologies          []string `json:"morphologies"`
}

// PromotionReadiness evaluates the gates on the served models (public).
func (s *Service) PromotionReadiness() *PromotionReadiness {
	set := s.current()
	return &PromotionReadiness{ResidualEngine: Gates(set.Residual, set.PrevResidual, set.provenance(set.Residual)),
		LocalModel: Gates(set.Ridge, set.PrevRidge, set.provenance(set.Ridge)),
		Thresholds: Thresholds{SoleSourceMaxCVRMSEDB: SoleSourceMaxCVRMSEDB, SoleSourceMinRealRows: SoleSourceMinRealRows,
			MinStratumRows: MinStratumRows, Regions: Regions, Bands: BandKeys, Morphologies: Morphologies}}
}

// AuditGate is the body of GET /health/audit-gate.
type AuditGate struct {
	// Status is "field_accuracy_claimed" when the residual engine claims
	// field accuracy (real data: every training row of an attested
	// source), else "pipeline_validation_only".
	Status             string  `json:"status"`
	FieldAccuracyClaim bool    `json:"field_accuracy_claim"`
	DataProvenance     string  `json:"data_provenance"`
	AccuracyGrade      string  `json:"accuracy_grade"`
	ModelVersion       *string `json:"model_version"`
	// LocalModel is the ridge model's claim (a synthetic pipeline model
	// never claims).
	LocalModel ModelClaim `json:"local_model"`
	// Attestation is the residual engine's attested share of training
	// rows: the claim needs status attested (`linkplan observations
	// attest`), a tenant's source label never makes one.
	Attestation   AttestationInfo `json:"attestation"`
	GeneratedUnix int64           `json:"generated_unix"`
}

// AuditGate is the residual engine's claim for audits (public).
func (s *Service) AuditGate() *AuditGate {
	set := s.current()
	r := claimOf(set, set.Residual)
	out := &AuditGate{Status: GradePipelineValidationOnly, FieldAccuracyClaim: r.FieldAccuracyClaim, DataProvenance: r.DataProvenance,
		AccuracyGrade: r.AccuracyGrade, ModelVersion: r.ModelVersion, LocalModel: claimOf(set, set.Ridge), Attestation: r.Attestation,
		GeneratedUnix: s.deps.Now().Unix()}
	if r.FieldAccuracyClaim {
		out.Status = "field_accuracy_claimed"
	}
	return out
}
