package prediction

import (
	"math"
	"slices"

	"linkplan/engines/ml"
)

// Model sources of a prediction (SPEC §2.4 model_source).
const (
	// SourceExternal is the operator's external model endpoint.
	SourceExternal = "external-model"
	// SourceResidual is the residual engine: a physics baseline plus a
	// gradient-boosted residual, or a drive-test model of the same role.
	SourceResidual = "residual-gbm"
	// SourceLocal is the local ridge model (band or global).
	SourceLocal = "local-model"
	// SourcePhysics is the deterministic physics fallback (fspl).
	SourcePhysics = "physics-fallback"
)

// Data provenance values (SPEC §2.6).
const (
	ProvenanceSynthetic = "synthetic"
	ProvenanceReal      = "real"
	ProvenanceMixed     = "mixed"
	ProvenanceUnknown   = "unknown"
	ProvenanceNone      = "none"
)

// Accuracy grades (SPEC §2.6).
const (
	GradePlanejamento           = "planejamento"
	GradeTriagem                = "triagem"
	GradeScreening              = "screening"
	GradePipelineValidationOnly = "pipeline_validation_only"
)

// Grade thresholds of SPEC §2.6, dB of cv_rmse.
const (
	PlanejamentoMaxCVRMSEDB = 8.0
	TriagemMaxCVRMSEDB      = 12.0
)

// Grade applies SPEC §2.6's rule: a model whose data provenance is not
// real, or whose cross-validated RMSE is absent (cvRMSEDB ≤ 0 or not
// finite), is pipeline_validation_only and makes no field-accuracy claim;
// a real-data model is planejamento (cv_rmse ≤ 8 dB), triagem (8 < cv_rmse
// ≤ 12 dB) or screening (> 12 dB) and claims field accuracy.
func Grade(provenance string, cvRMSEDB float64) (grade string, fieldAccuracyClaim bool) {
	if provenance != ProvenanceReal || !hasCV(cvRMSEDB) {
		return GradePipelineValidationOnly, false
	}
	switch {
	case cvRMSEDB <= PlanejamentoMaxCVRMSEDB:
		return GradePlanejamento, true
	case cvRMSEDB <= TriagemMaxCVRMSEDB:
		return GradeTriagem, true
	}
	return GradeScreening, true
}

func hasCV(v float64) bool { return v > 0 && !math.IsInf(v, 0) && !math.IsNaN(v) }

// provenanceOf is an artifact's data provenance, "unknown" when it names
// none or a value outside SPEC §2.6's list, "none" for no artifact.
func provenanceOf(a *ml.Artifact) string {
	if a == nil {
		return ProvenanceNone
	}
	switch a.DataProvenance {
	case ProvenanceSynthetic, ProvenanceReal, ProvenanceMixed, ProvenanceNone:
		return a.DataProvenance
	}
	return ProvenanceUnknown
}

// Confidences of SPEC §2.4.
const (
	// ConfidenceEmpirical is an empirical (residual or drive-test) model
	// inside its calibrated envelope.
	ConfidenceEmpirical = 0.75
	// ConfidenceFSPL is the free-space fallback.
	ConfidenceFSPL = 0.55
)

// RidgeConfidence is SPEC §2.4's ridge formula clip(1 − (rmse − 8)/20, 0.3,
// 0.9) with rmse the model's cv_rmse_db; a model without one gets the
// floor 0.3 (nothing measured, nothing claimed).
func RidgeConfidence(cvRMSEDB float64) float64 {
	if !hasCV(cvRMSEDB) {
		return 0.3
	}
	return min(0.9, max(0.3, 1-(cvRMSEDB-8)/20))
}

// Gate thresholds (SPEC §2.6).
const (
	// SoleSourceMaxCVRMSEDB: the sole-source gate needs cv_rmse strictly
	// below it.
	SoleSourceMaxCVRMSEDB = 8.0
	// SoleSourceMinRealRows: and at least this many real observations.
	SoleSourceMinRealRows = 5000
	// MinStratumRows is the calibration rows a macro-region needs to
	// count as a stratum of the promotion gate (its Mondrian band exists
	// from 19 rows; 100 gives a quantile worth comparing).
	MinStratumRows = 100
)

// Strata the promotion gate wants present (SPEC §2.6: region, band and
// morphology).
var (
	Regions      = []string{"N", "NE", "CO", "SE", "S"}
	BandKeys     = []string{"700MHz", "850MHz", "900MHz", "1800MHz", "2100MHz", "2600MHz", "3500MHz"}
	Morphologies = []string{"open_or_flat", "rural_rolling", "rural_mountainous"}
)

// Check is one named condition of a gate.
type Check struct {
	Name   string `json:"name"`
	Passed bool   `json:"passed"`
	Detail string `json:"detail"`
}

// GateVerdict is the sole-source and promotion verdict of one model.
type GateVerdict struct {
	ModelVersion       string  `json:"model_version"`
	DataProvenance     string  `json:"data_provenance"`
	CVRMSEDB           float64 `json:"cv_rmse_db"`
	RealRows           int     `json:"real_rows"`
	SoleSourceEligible bool    `json:"sole_source_eligible"`
	PromotionEligible  bool    `json:"promotion_eligible"`
	// Checks lists every condition in order: sole-source ones first.
	Checks []Check `json:"checks"`
}

// Gates evaluates SPEC §2.6's sole-source gate (cv_rmse < 8 dB and at
// least 5,000 real observations: the training rows of a real-data
// artifact) and the promotion gate, which additionally needs every
// macro-region as a Mondrian stratum with MinStratumRows calibration rows,
// an out-of-fold RMSE for every band and morphology (the training side
// reports a stratum only when it has rows), and no regression against
// prev, the previously served artifact of the same role (nil: nothing to
// regress from): cv_rmse_db not above prev's and the marginal band's
// empirical coverage not below its nominal coverage. provenance is a's
// data provenance as served (real only while every training row is
// attested: the serving side's attestation check); "" takes the
// artifact's own.
func Gates(a, prev *ml.Artifact, provenance string) GateVerdict {
	if provenance == "" {
		provenance = provenanceOf(a)
	}
	v := GateVerdict{DataProvenance: provenance}
	if a == nil {
		v.Checks = []Check{{Name: "model_loaded", Detail: "no model of this role is served"}}
		return v
	}
	v.ModelVersion, v.CVRMSEDB = a.ModelVersion, a.CVRMSEDB
	if v.DataProvenance == ProvenanceReal {
		v.RealRows = a.NTrain
	}
	add := func(name string, ok bool, detail string) {
		v.Checks = append(v.Checks, Check{Name: name, Passed: ok, Detail: detail})
	}
	cvOK := hasCV(a.CVRMSEDB) && a.CVRMSEDB < SoleSourceMaxCVRMSEDB
	add("cv_rmse_below_8_db", cvOK, fmtf("cv_rmse_db %s (needs < 8)", num(a.CVRMSEDB)))
	rowsOK := v.RealRows >= SoleSourceMinRealRows
	add("real_observations_at_least_5000", rowsOK, fmtf("%d real observations (data_provenance %s: rows of attested sources only; needs >= 5000)", v.RealRows, v.DataProvenance))
	v.SoleSourceEligible = cvOK && rowsOK

	missing := []string{}
	for _, r := range Regions {
		n := 0
		if a.Conformal != nil {
			if b, ok := a.Conformal.BandFor(r); ok {
				n = b.N
			}
		}
		if n < MinStratumRows {
			missing = append(missing, fmtf("%s (%d rows)", r, n))
		}
	}
	add("stratified_by_region", len(missing) == 0, strata("regions", missing, fmtf("each needs a Mondrian band of >= %d rows", MinStratumRows)))
	missing = absent(BandKeys, a.RMSEByBandDB)
	add("stratified_by_band", len(missing) == 0, strata("bands", missing, "each needs an out-of-fold RMSE"))
	missing = absent(Morphologies, a.RMSEByMorphologyDB)
	add("stratified_by_morphology", len(missing) == 0, strata("morphologies", missing, "each needs an out-of-fold RMSE"))

	regressed := []string{}
	if prev != nil && hasCV(prev.CVRMSEDB) && (!hasCV(a.CVRMSEDB) || a.CVRMSEDB > prev.CVRMSEDB) {
		regressed = append(regressed, fmtf("cv_rmse_db %s above the previous %s", num(a.CVRMSEDB), num(prev.CVRMSEDB)))
	}
	if c := a.Conformal; c != nil && c.Marginal.EmpiricalCoverage < c.Marginal.Coverage {
		regressed = append(regressed, fmtf("conformal empirical coverage %s below nominal %s", num(c.Marginal.EmpiricalCoverage), num(c.Marginal.Coverage)))
	}
	detail := "no regression"
	switch {
	case len(regressed) > 0:
		detail = join(regressed)
	case prev == nil:
		detail = "no previous model to compare with"
	default:
		detail = fmtf("cv_rmse_db %s, previous %s", num(a.CVRMSEDB), num(prev.CVRMSEDB))
	}
	add("no_regression", len(regressed) == 0, detail)
	v.PromotionEligible = true
	for _, c := range v.Checks {
		v.PromotionEligible = v.PromotionEligible && c.Passed
	}
	return v
}

// absent lists the keys of want that m lacks.
func absent(want []string, m map[string]float64) []string {
	out := []string{}
	for _, k := range want {
		if _, ok := m[k]; !ok {
			out = append(out, k)
		}
	}
	return out
}

func strata(what string, missing []string, rule string) string {
	if len(missing) == 0 {
		return "all " + what + " present; " + rule
	}
	slices.Sort(missing)
	return what + " missing: " + join(missing) + "; " + rule
}
