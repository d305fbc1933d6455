// Package telemetry is the one place that declares the appliance's metric
// families: every family's name, type, help text and labels, and for the
// counters whose labels come from closed sets, every label tuple. GET
// /metrics writes through Write, which gives each declared family its HELP
// and TYPE lines at start, before any series of it exists, so the
// exposition passes promtool check metrics in every state (issue 20, scope
// 10: coverage_observations_total was created lazily, without help text).
//
// # Basics
//
// Components keep their own counters: series of the appliance's one
// VictoriaMetrics set (metrics.Set.GetOrCreateCounter, e.g.
// RecoveredPanics and ObservationsTotal) and writers registered on that set
// (metrics.Set.RegisterMetricsWriter: the HTTP, job, AI and model series).
// They write samples only. Write renders the set, drops any comment line a
// source wrote, and regroups the samples by family in the order of
// Families, each family under the HELP and TYPE of its declaration. A
// counter family with a closed label set gets a 0 sample for each declared
// tuple no source has written yet.
//
// Adding a metric: declare its family in families.go (name constant, help
// with units, labels, the closed tuples of a counter), then count it in
// the component. A family that is not declared is written last, without
// metadata, so that promtool and the tests of web/api
// (TestIssue20_MetricsPromtoolAfterEveryRoute) fail on it.
//
// # States
//
// A family has two states and one transition; Write never removes one.
//
//	State    | Trigger                              | Next     | Exposed as
//	---------+--------------------------------------+----------+---------------------------------------------------------------
//	declared | start (Families)                     | declared | HELP, TYPE; a 0 sample per closed tuple of a counter; else none
//	declared | a source writes a sample of it       | sampled  | HELP, TYPE, the samples in the order written, then the 0 tuples
//	sampled  | any                                  | sampled  | as above
//
// # Caveats
//
// Label values of an open label (coverage_observations_total's source,
// the HTTP route and status) are bounded by their owner, not here.
// LLM_EGRESS_TOTAL keeps the upper-case name SPEC §4.9 gives it, typed
// untyped: promtool refuses a counter whose _total suffix is upper-case.
package telemetry
