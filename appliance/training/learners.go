package training

import (
	"fmt"

	"linkplan/appliance"
	"linkplan/engines/ml"
)

// Learners are the learning algorithms training fits its models with: the
// narrow interface this service declares (two functions), filled by the
// assembly with the concrete learners of engines/ml/learn
// (assemble.Learners), which a service never imports (appliance/doc.go).
// The models they return are engines/ml's artifact types, the format
// training writes and prediction reads.
type Learners struct {
	// GBM fits a gradient-boosted tree ensemble to rows X and targets y,
	// dB: the residual engine and the drive-test model.
	GBM func(X [][]float64, y []float64, p ml.GBMParams) (*ml.GBM, error)
	// Ridge fits a ridge regression with L2 penalty lambda to rows X and
	// targets y, dB: the global and band models.
	Ridge func(X [][]float64, y []float64, lambda float64) (*ml.Ridge, error)
}

// check reports a learner left out.
func (lr Learners) check() error {
	if lr.GBM == nil || lr.Ridge == nil {
		return fmt.Errorf("training: a learner is missing (GBM set %t, Ridge set %t): %w", lr.GBM != nil, lr.Ridge != nil, appliance.ErrInvalid)
	}
	return nil
}
