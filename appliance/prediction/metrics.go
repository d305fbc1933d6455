package prediction

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"

	"linkplan/appliance/telemetry"
)

// Metric names of SPEC §4.9; their HELP and TYPE are declared in
// appliance/telemetry.
const (
	MetricRMSE              = telemetry.ModelRMSE
	MetricCVRMSE            = telemetry.ModelCVRMSE
	MetricCVRMSEStd         = telemetry.ModelCVRMSEStd
	MetricCVFolds           = telemetry.ModelCVFolds
	MetricRMSEByMorphology  = telemetry.ModelRMSEByMorphology
	MetricRMSEByBand        = telemetry.ModelRMSEByBand
	MetricResidual          = telemetry.ObservationResidual
	MetricHalfWidth         = telemetry.ConformalHalfWidth
	MetricEmpiricalCoverage = telemetry.ConformalEmpirical
	MetricNominalCoverage   = telemetry.ConformalNominal
	MetricConformalRegions  = telemetry.ConformalRegions
)

func fv(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// writeMetrics writes the samples of the model gauges of the served set
// and the residual histogram (appliance/telemetry adds HELP and TYPE). The coverage_model_* gauges describe the local model (SPEC
// §2.6 local_model), absent when none is served; residual_conformal_*
// describe the residual engine (nominal coverage 0: none).
func (s *Service) writeMetrics(w io.Writer) {
	set := s.current()
	var b bytes.Buffer
	if a := set.Ridge; a != nil {
		fmt.Fprintf(&b, "%s %s\n", MetricRMSE, fv(a.RMSEDB))
		fmt.Fprintf(&b, "%s %s\n", MetricCVRMSE, fv(a.CVRMSEDB))
		fmt.Fprintf(&b, "%s %s\n", MetricCVRMSEStd, fv(a.CVRMSEStdDB))
		fmt.Fprintf(&b, "%s %d\n", MetricCVFolds, a.CVFolds)
		for _, k := range slices.Sorted(maps.Keys(a.RMSEByMorphologyDB)) {
			fmt.Fprintf(&b, "%s{morphology=%q} %s\n", MetricRMSEByMorphology, k, fv(a.RMSEByMorphologyDB[k]))
		}
		for _, k := range slices.Sorted(maps.Keys(a.RMSEByBandDB)) {
			fmt.Fprintf(&b, "%s{band=%q} %s\n", MetricRMSEByBand, k, fv(a.RMSEByBandDB[k]))
		}
	}
	cum, sum, n := s.live.histogram()
	for i, le := range residualBuckets {
		fmt.Fprintf(&b, "%s_bucket{le=\"%s\"} %d\n", MetricResidual, fv(le), cum[i])
	}
	fmt.Fprintf(&b, "%s_bucket{le=\"+Inf\"} %d\n%s_sum %s\n%s_count %d\n", MetricResidual, cum[len(cum)-1], MetricResidual, fv(sum), MetricResidual, n)

	nominal, regions := 0.0, 0
	if a := set.Residual; a != nil && a.Conformal != nil {
		c := a.Conformal
		nominal, regions = c.Marginal.Coverage, len(c.ByGroup)
		fmt.Fprintf(&b, "%s{scope=\"marginal\"} %s\n", MetricHalfWidth, fv(c.Marginal.QAbsDB))
		for _, g := range c.ByGroup {
			fmt.Fprintf(&b, "%s{scope=%q} %s\n", MetricHalfWidth, g.Group, fv(g.QAbsDB))
		}
		fmt.Fprintf(&b, "%s{scope=\"marginal\"} %s\n", MetricEmpiricalCoverage, fv(c.Marginal.EmpiricalCoverage))
		for _, g := range c.ByGroup {
			fmt.Fprintf(&b, "%s{scope=%q} %s\n", MetricEmpiricalCoverage, g.Group, fv(g.EmpiricalCoverage))
		}
	}
	fmt.Fprintf(&b, "%s %s\n", MetricNominalCoverage, fv(nominal))
	fmt.Fprintf(&b, "%s %d\n", MetricConformalRegions, regions)
	_, _ = w.Write(b.Bytes())
}
