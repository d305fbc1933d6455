// Package enginetest holds what the engine packages' tests share: the
// validation-suite harness (reading the reference suites in the layout of
// engines/testdata/validation) and the one-line-per-suite report.
//
// # Basics
//
// LINKPLAN_VALIDATION_DIR=DIR go test ./engines/... runs every case found in
// DIR, which has the layout of engines/testdata/validation (one folder per
// suite: p1812, delta_bullington, itm, p1411, p526_p525_formula, p452). With
// the variable unset the committed testdata copy is used. Each suite prints
//
//	suite=<name> cases=<n> failed=<k> max_abs_delta_db=<x>
//
// and fails the test when a case is outside tolerance or the suite folder
// holds no readable case.
package enginetest
