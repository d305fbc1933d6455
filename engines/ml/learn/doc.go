// Package learn holds the learners of the coverage models: TrainGBM, the
// histogram gradient-boosting regressor of the residual engine and the
// drive-test model, and TrainRidge, the ridge regression of the local
// models. They return engines/ml's model types (ml.GBM, ml.Ridge), which
// the artifact stores and prediction evaluates; the algorithms and their
// agreement with scikit-learn are described in engines/ml's doc.go.
//
// It is the concrete engine of learning (appliance/doc.go): a service
// never imports it. The training service declares what it needs as
// training.Learners (two functions) and the assembly
// (appliance/cmd/linkplan/assemble.Learners) passes these.
//
// Both are deterministic: the same rows give the same model bit for bit,
// whatever GBMParams.Workers or GOMAXPROCS.
package learn
