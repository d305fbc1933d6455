// Package ml is the model side of the learned coverage models (SPEC §2.5,
// §2.6): the versioned model artifact (a ridge regression or a histogram
// gradient-boosted tree ensemble with its feature schema, conformal
// calibration, envelope and attestation) and the statistics around it:
// k-fold and grouped k-fold cross-validation with the deterministic
// seed-42 permutation over a caller's trainer, split-conformal bands with
// Mondrian bands per group (macro-region), RMSE by group. The learners
// that fit the models (TrainGBM, TrainRidge) are engines/ml/learn: the
// concrete engine, which the training service reaches only through
// training.Learners, while this package is a library services may import
// (appliance/doc.go). It knows nothing of features, observations or HTTP:
// callers hand it matrices of float64 rows (one value per feature of a
// FeatureSchema) and targets in dB.
//
// # Basics
//
//	fold, _ := ml.GroupKFold(cells, ml.DefaultFolds, ml.CVSeed) // or ml.KFold(n, k, ml.CVSeed)
//	cv, _ := ml.CrossValidate(X, y, fold, func(X [][]float64, y []float64) (ml.Predictor, error) {
//		return learn.TrainGBM(X, y, ml.GBMParams{})
//	}, runtime.GOMAXPROCS(0))
//	res := y[i] - cv.OOF[i]                                     // out-of-fold residuals, dB
//	cal, _ := ml.FitMondrian(res, regions, ml.DefaultAlpha)     // regions: "N", "NE", "CO", "SE", "S" or ""
//	band, mondrian := cal.BandFor("SE")                         // [p - band.QAbsDB, p + band.QAbsDB]
//	rep, _ := cal.Coverage(heldOutRes, heldOutRegions)          // empirical coverage, mean width
//	m, _ := learn.TrainGBM(X, y, ml.GBMParams{})
//	_ = ml.WriteArtifact(w, &ml.Artifact{Kind: ml.KindGBM, ModelVersion: "residual-gbm-v1", Schema: s, GBM: m, Conformal: &cal})
//	a, err := ml.ReadArtifact(r)                                // any version 1…ArtifactVersion
//
// GBM: squared loss; every feature cut into at most 255 quantile bins
// (scikit-learn's rule: midpoints of the distinct values when there are
// few, else midpoint percentiles); trees grown best-first on gradient
// histograms with split gain GL²/(nL+λ) + GR²/(nR+λ) − G²/(n+λ), limited by
// MaxLeafNodes, MaxDepth and MinSamplesLeaf; leaf values −lr·G/(n+λ);
// optional early stopping, off by default. Its defaults are those of
// scikit-learn's HistGradientBoostingRegressor, and
// TestGBMAgainstScikitLearn runs both on the same folds (within 0.3 dB of
// out-of-fold RMSE; in practice the predictions agree to about 0.01 dB).
//
// Ridge: features standardised by their mean and population standard
// deviation, (ZᵀZ + λI)β = Zᵀ(y − ȳ) solved by Cholesky, intercept ȳ not
// penalised.
//
// Cross-validation (SPEC §2.6): Permutation(n, 42) is SplitMix64 seeded
// with 42 driving a Fisher–Yates shuffle from the end (j = next mod
// (i+1)); KFold cuts the permuted rows into k contiguous folds, the first
// n mod k one row longer. GroupKFold keeps every group (the residual
// model's H3 resolution-8 cell: an h3.Cell of engines/ml/h3 is a valid
// key as it is) in one fold: groups sorted, permuted with
// the same seed, stably ordered by size descending, each given to the
// least-filled fold. CVResult.RMSEDB is the mean of the folds' RMSE
// (cv_rmse_db) and StdDB their population standard deviation
// (cv_rmse_std_db).
//
// Conformal bands (SPEC §2.6, method cv_split_conformal_abs): with n
// out-of-fold residuals r = observed − predicted, q_abs_db is the k-th
// smallest |r|, k = ceil((n+1)(1−α)), computed in exact rational
// arithmetic from α's shortest decimal form; q_hi_db is the
// ceil((n+1)(1−α/2))-th smallest signed residual and q_lo_db the same rank
// from the largest; empirical_coverage is the share of |r| <= q_abs_db
// (>= 1−α by construction) and mean_width_db = 2·q_abs_db. A band needs
// ceil((n+1)(1−α/2)) <= n residuals (19 at α = 0.1). Mondrian: each group
// key with enough residuals for its own band gets one (mondrian true); a
// row of any other group, or of none, silently uses the marginal band.
// OutOfGroupCoverage gives cv_by_region[*].conformal_coverage: each
// region's coverage by a band calibrated on the other regions.
//
// Band for unseen transmitters (issue 20): the ordinary band is
// calibrated on residuals of rows like the training rows and falls short
// under the shift of an operator the model never saw (0.854 at nominal
// 0.90). FitUnseenBand calibrates a second band on held-out groups (each
// operator left out, or the cells left out by grouped cross-validation):
// for each group the UnseenLevel (95 %) quantile over UnseenResamples
// (500) cluster-bootstrap resamples of its cells (PCG seeded
// UnseenSeed) of the conformal quantiles, and the worst group's value for
// each quantile. A server gives it to a query whose transmitter is not
// among UnseenBand.SeenTransmitters (TransmitterKey: site to 1e-4° and
// carrier to 0.1 MHz, so another operator's carrier on a shared site is
// unseen). It is a
// confidence bound on the held-out groups' quantile, not a guarantee for
// every new group: TestUnseenBandOnNewCells measures 87 of 100 trials at
// >= 0.88 on new cells against 58 for the ordinary band.
//
// Drive-test schemas: models trained on drive tests without terrain or land
// cover (the Dortmund LTE set: engines/ml/shipped/DORTMUND.md) use the
// drive-test family of feature schemas, apart from SPEC §2.5's 17/27:
// DriveTestSchema (version 100: log distance, log frequency, distance,
// free-space loss, their product) and DriveTestSchemaV2 (version 101: log
// distance and free-space loss, served by the shipped drivetest-gbm-v2).
//
// Artifacts: JSON with a format name, a layout version and the feature
// schema (FORMAT.md), and optionally the model's calibrated Envelope
// (layout version 2; hulls and validity in 3): the areas, the convex hull
// of its receivers (HullOf), the bands its calibration data covers
// (BandsOf) and its baseline engine's validity; Contains tells a server
// whether a query may be answered by the model or must be refused (SPEC
// §2.5), naming every part that fails. Layout 3 also carries the
// attestation of the training rows (Attestation: which sources an
// operator vouched for as field measurements) and the fair physics
// baseline (PhysicsBaseline). ReadArtifact accepts every layout version up to
// ArtifactVersion and validates the trees so that Predict cannot panic or
// loop; testdata/artifacts holds artifacts written by an earlier build
// (17- and 27-feature schemas) with the predictions they gave.
//
// # Caveats
//
// Determinism: training depends only on its inputs and parameters, never
// on GOMAXPROCS or Workers (each feature's histogram is summed in row
// order by one goroutine; splits are compared in feature order; ties break
// towards the lower feature, bin and node id), and CrossValidate's result
// does not depend on its worker count. A model is reproducible bit for bit
// on the same architecture; float64 rounding may differ across
// architectures with fused multiply-add.
//
// The GBM takes no missing values (NaN is refused in training; at
// prediction a NaN goes to the right child). It has no categorical
// splits: a one-hot clutter vector is 10 numeric 0/1 features.
//
// Residual signs: a band's signed quantiles are of observed − predicted in
// the target's units; mapping them to a loss interval (SPEC §2.4: the upper
// bound is the larger loss) is the caller's job.
package ml
