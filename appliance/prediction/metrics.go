package prediction

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
)

// Metric names of SPEC §4.9.
const (
	MetricRMSE              = "coverage_model_rmse_db"
	MetricCVRMSE            = "coverage_model_cv_rmse_db"
	MetricCVRMSEStd         = "coverage_model_cv_rmse_std_db"
	MetricCVFolds           = "coverage_model_cv_folds"
	MetricRMSEByMorphology  = "coverage_model_rmse_by_morphology_db"
	MetricRMSEByBand        = "coverage_model_rmse_by_band_db"
	MetricResidual          = "coverage_observation_residual_db"
	MetricHalfWidth         = "residual_conformal_halfwidth_db"
	MetricEmpiricalCoverage = "residual_conformal_empirical_coverage"
	MetricNominalCoverage   = "residual_conformal_nominal_coverage"
	MetricConformalRegions  = "residual_conformal_regions"
)

func fv(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// writeMetrics writes the model gauges of the served set and the residual
// histogram. The coverage_model_* gauges describe the local model (SPEC
// §2.6 local_model), absent when none is served; residual_conformal_*
// describe the residual engine (nominal coverage 0: none).
func (s *Service) writeMetrics(w io.Writer) {
	set := s.current()
	var b bytes.Buffer
	family := func(name, typ, help string) {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
	}
	if a := set.Ridge; a != nil {
		family(MetricRMSE, "gauge", "In-sample RMSE of the served local model, dB (history only).")
		fmt.Fprintf(&b, "%s %s\n", MetricRMSE, fv(a.RMSEDB))
		family(MetricCVRMSE, "gauge", "Mean out-of-fold RMSE of the served local model, dB.")
		fmt.Fprintf(&b, "%s %s\n", MetricCVRMSE, fv(a.CVRMSEDB))
		family(MetricCVRMSEStd, "gauge", "Standard deviation of the fold RMSEs of the served local model, dB.")
		fmt.Fprintf(&b, "%s %s\n", MetricCVRMSEStd, fv(a.CVRMSEStdDB))
		family(MetricCVFolds, "gauge", "Cross-validation folds of the served local model.")
		fmt.Fprintf(&b, "%s %d\n", MetricCVFolds, a.CVFolds)
		if len(a.RMSEByMorphologyDB) > 0 {
			family(MetricRMSEByMorphology, "gauge", "Out-of-fold RMSE of the served local model per terrain morphology, dB.")
			for _, k := range slices.Sorted(maps.Keys(a.RMSEByMorphologyDB)) {
				fmt.Fprintf(&b, "%s{morphology=%q} %s\n", MetricRMSEByMorphology, k, fv(a.RMSEByMorphologyDB[k]))
			}
		}
		if len(a.RMSEByBandDB) > 0 {
			family(MetricRMSEByBand, "gauge", "Out-of-fold RMSE of the served local model per band, dB.")
			for _, k := range slices.Sorted(maps.Keys(a.RMSEByBandDB)) {
				fmt.Fprintf(&b, "%s{band=%q} %s\n", MetricRMSEByBand, k, fv(a.RMSEByBandDB[k]))
			}
		}
	}
	cum, sum, n := s.live.histogram()
	family(MetricResidual, "histogram", "Residuals (observed - predicted) of consented observations with a model prediction, dB.")
	for i, le := range residualBuckets {
		fmt.Fprintf(&b, "%s_bucket{le=\"%s\"} %d\n", MetricResidual, fv(le), cum[i])
	}
	fmt.Fprintf(&b, "%s_bucket{le=\"+Inf\"} %d\n%s_sum %s\n%s_count %d\n", MetricResidual, cum[len(cum)-1], MetricResidual, fv(sum), MetricResidual, n)

	nominal, regions := 0.0, 0
	if a := set.Residual; a != nil && a.Conformal != nil {
		c := a.Conformal
		nominal, regions = c.Marginal.Coverage, len(c.ByGroup)
		family(MetricHalfWidth, "gauge", "Half-width of the residual engine's conformal band, dB, marginal and per macro-region.")
		fmt.Fprintf(&b, "%s{scope=\"marginal\"} %s\n", MetricHalfWidth, fv(c.Marginal.QAbsDB))
		for _, g := range c.ByGroup {
			fmt.Fprintf(&b, "%s{scope=%q} %s\n", MetricHalfWidth, g.Group, fv(g.QAbsDB))
		}
		family(MetricEmpiricalCoverage, "gauge", "Empirical coverage of the residual engine's conformal band on its calibration residuals, marginal and per macro-region.")
		fmt.Fprintf(&b, "%s{scope=\"marginal\"} %s\n", MetricEmpiricalCoverage, fv(c.Marginal.EmpiricalCoverage))
		for _, g := range c.ByGroup {
			fmt.Fprintf(&b, "%s{scope=%q} %s\n", MetricEmpiricalCoverage, g.Group, fv(g.EmpiricalCoverage))
		}
	}
	family(MetricNominalCoverage, "gauge", "Nominal coverage (1 - alpha) of the residual engine's band; 0 when no residual engine is served.")
	fmt.Fprintf(&b, "%s %s\n", MetricNominalCoverage, fv(nominal))
	family(MetricConformalRegions, "gauge", "Macro-regions with a local (Mondrian) band in the residual engine.")
	fmt.Fprintf(&b, "%s %d\n", MetricConformalRegions, regions)
	_, _ = w.Write(b.Bytes())
}
