package training

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strconv"
	"sync"

	"linkplan/appliance"
	"linkplan/engines/ml"
	"linkplan/engines/ml/h3"
)

// Info is what the training bookkeeping needs besides a row's vector.
type Info struct {
	// Morphology is open_or_flat, rural_rolling or rural_mountainous (SPEC
	// §2.6, from the terrain standard deviation).
	Morphology string
	// BandMHz is the row's frequency snapped to the seven bands of SPEC
	// §2.5 (700 … 3500).
	BandMHz int
}

// Featurizer turns an observation's link into the feature vector of a
// schema version (SPEC §2.5). The composition root adapts
// features.Builder to it. A missing terrain tile is an error matching
// appliance.ErrTerrainMissing (never sea level); a version-2 vector where
// no land-cover layer covers the receiver matches appliance.ErrUnavailable;
// a link out of range matches appliance.ErrInvalid.
type Featurizer interface {
	Schema(version int) (ml.FeatureSchema, error)
	Vector(ctx context.Context, o *appliance.Observation, version int) ([]float64, Info, error)
}

// BaselineFunc returns the physics baseline of an observation's link: the
// received power, dBm, that the p1812-p1411-hybrid engine predicts
// (transmit power + both gains − cable loss − its path loss). Errors as
// Featurizer.
type BaselineFunc func(ctx context.Context, o *appliance.Observation) (dbm float64, err error)

// ReceivedPowerMetrics are the Observation.Metric values the corpus keeps:
// the wideband received level. LTE RSRP and UMTS RSCP are the power of one
// resource element or one code, tens of dB below it, and would teach the
// model an offset that depends on the carrier's bandwidth; those rows are
// skipped and counted (Corpus.SkippedMetric).
var ReceivedPowerMetrics = []string{"received_power", "signal_dbm", "rxlev", ""}

// Corpus is the featurised training set: one entry per kept row, in the
// store's order (link observations, then cell signal samples, each by
// tenant and observation id), so that training is deterministic.
type Corpus struct {
	Schema   ml.FeatureSchema
	X        [][]float64
	Y        []float64 // observed_dbm
	Baseline []float64 // hybrid baseline, dBm
	Cells    []h3.Cell // receiver's H3 resolution-8 cell
	Regions  []string  // receiver's macro-region (N, NE, CO, SE, S or "")
	Bands    []int     // SnapBandMHz
	Morph    []string  // morphology
	Sources  []string  // observation source
	// Attested[i] says row i's source was attested by an operator when
	// the row was stored (ApplyAttestations; all false until then).
	Attested []bool
	// Attestations are the standing attestations of the rows' sources
	// (ApplyAttestations), by source.
	Attestations map[string]appliance.SourceAttestation
	// BaselineValidity is the validity range of the engine of Baseline
	// (the residual engine's envelope takes it); nil: none stated.
	BaselineValidity *ml.EngineValidity
	// Obs are the kept rows (the holdout replay featurises them again for
	// a served model of another schema version).
	Obs []appliance.Observation

	// Stored is every stored row, consented or not; Consented the
	// consented ones read.
	Stored, Consented int
	// Skipped rows, by reason: terrain missing (never sea level), a metric
	// other than received power, a link the features refuse.
	SkippedTerrain, SkippedMetric, SkippedInvalid int
}

// N is the number of kept rows.
func (c *Corpus) N() int { return len(c.Y) }

// ErrNoConsentedCorpus means no stored observation is consented for
// training: a consent state (SPEC §3), not an empty dataset. It matches
// appliance.ErrInvalid (the retrain job fails for good; retrying changes
// nothing until an operator stamps consent).
var ErrNoConsentedCorpus = fmt.Errorf("no consented corpus: %w", appliance.ErrInvalid)

// ErrNoObservations means no observation is stored at all.
var ErrNoObservations = fmt.Errorf("no observations: %w", appliance.ErrInvalid)

// consentError is the refusal of SPEC §3 with the counts.
func consentError(stored int) error {
	if stored == 0 {
		return fmt.Errorf("no observation is stored at all: nothing to train on: %w", ErrNoObservations)
	}
	return fmt.Errorf("no observation is consented for training (%d stored, all refused): this is a consent state, not an empty dataset; "+
		"an operator grants consent per source with `linkplan observations consent --source NAME --basis TEXT --apply`: %w", stored, ErrNoConsentedCorpus)
}

// Data provenance values of SPEC §2.6 that training writes.
const (
	ProvenanceSynthetic = "synthetic"
	ProvenanceReal      = "real"
	ProvenanceMixed     = "mixed"
	ProvenanceUnknown   = "unknown"
	ProvenanceNone      = "none"
)

// DataProvenance maps the rows to SPEC §2.6's value from their sources
// and whether each was attested (attested[i], see ApplyAttestations; nil:
// none was): synthetic when every row is the generator's (source
// "synthetic"), real when every row is attested, unknown when every row is
// a measured source no operator attested (a tenant's label, e.g.
// "drivetest_synthgen", proves nothing), mixed when the rows are of more
// than one of these kinds, none without rows. Only real makes a field-
// accuracy claim (appliance/prediction Grade).
func DataProvenance(sources []string, attested []bool) string {
	syn, real, unattested := 0, 0, 0
	for i, s := range sources {
		switch {
		case s == SynthSource:
			syn++
		case attested != nil && attested[i]:
			real++
		default:
			unattested++
		}
	}
	kinds := 0
	for _, n := range []int{syn, real, unattested} {
		if n > 0 {
			kinds++
		}
	}
	switch {
	case kinds == 0:
		return ProvenanceNone
	case kinds > 1:
		return ProvenanceMixed
	case syn > 0:
		return ProvenanceSynthetic
	case real > 0:
		return ProvenanceReal
	}
	return ProvenanceUnknown
}

// ApplyAttestations marks the rows the standing attestations cover
// (appliance.SourceAttestation.Covers: same source, stored no later than
// the attestation); withdrawn ones cover nothing.
func (c *Corpus) ApplyAttestations(atts []appliance.SourceAttestation) {
	c.Attestations = map[string]appliance.SourceAttestation{}
	for _, a := range atts {
		if a.Live() {
			c.Attestations[a.Source] = a
		}
	}
	c.Attested = make([]bool, c.N())
	for i := range c.Obs {
		a, ok := c.Attestations[c.Obs[i].Source]
		c.Attested[i] = ok && a.Covers(&c.Obs[i])
	}
}

// attested is c.Attested[i], false before ApplyAttestations.
func (c *Corpus) attested(i int) bool { return c.Attested != nil && c.Attested[i] }

// attestationOf summarises the attested share of rows idx (nil when no
// row is attested and none is synthetic or unattested: no rows).
func (c *Corpus) attestationOf(idx []int) *ml.Attestation {
	at := &ml.Attestation{Sources: []ml.AttestedSource{}}
	rows := map[string]int{}
	for _, i := range idx {
		switch {
		case c.Sources[i] == SynthSource:
			at.SyntheticRows++
		case c.attested(i):
			at.AttestedRows++
			rows[c.Sources[i]]++
		default:
			at.UnattestedRows++
		}
	}
	for _, src := range slices.Sorted(maps.Keys(rows)) {
		a := c.Attestations[src]
		at.Sources = append(at.Sources, ml.AttestedSource{Source: src, Basis: a.Basis, AttestedBy: a.AttestedBy, AttestedAtUnix: a.AttestedAtUnix,
			Scope: ml.ScopeAppliance, Rows: rows[src]})
	}
	return at
}

// provenanceOf is DataProvenance of rows idx.
func (c *Corpus) provenanceOf(idx []int) string {
	att := make([]bool, len(idx))
	for j, i := range idx {
		att[j] = c.attested(i)
	}
	return DataProvenance(pick(c.Sources, idx), att)
}

// corpusRow is one row's featurisation result.
type corpusRow struct {
	x    []float64
	info Info
	base float64
	err  error
}

// featurise computes the vectors (schema version) and baselines of rows on
// up to workers goroutines, in row order. A row whose featurisation
// panics gets the *appliance.PanicError as its error (rec).
func featurise(ctx context.Context, rec *appliance.Recoverer, f Featurizer, base BaselineFunc, rows []appliance.Observation, version, workers int) []corpusRow {
	out := make([]corpusRow, len(rows))
	workers = max(1, min(workers, len(rows)))
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Go(func() {
			for i := w; i < len(rows); i += workers {
				featuriseRow(ctx, rec, f, base, &rows[i], version, &out[i])
			}
		})
	}
	wg.Wait()
	return out
}

func featuriseRow(ctx context.Context, rec *appliance.Recoverer, f Featurizer, base BaselineFunc, o *appliance.Observation, version int, r *corpusRow) {
	defer rec.Recover(ctx, "training.featurise", &r.err)
	if r.x, r.info, r.err = f.Vector(ctx, o, version); r.err != nil {
		return
	}
	if base != nil {
		if r.base, r.err = base(ctx, o); r.err != nil {
			r.err = fmt.Errorf("baseline: %w", r.err)
		}
	}
}

func keepMetric(m string) bool {
	for _, k := range ReceivedPowerMetrics {
		if m == k {
			return true
		}
	}
	return false
}

// BuildCorpus featurises the consented rows (stored is the count of every
// stored row, for the consent message): schema version 2 when clutter is
// true and every row has a land-cover class, else 1. Rows whose terrain is
// missing, whose metric is not received power or whose link the features
// refuse are skipped and counted. An empty consented set is the consent
// refusal (ErrNoConsentedCorpus) or ErrNoObservations.
func BuildCorpus(ctx context.Context, f Featurizer, base BaselineFunc, regionAt func(appliance.LatLon) string,
	consented []appliance.Observation, stored int, clutter bool, workers int) (*Corpus, error) {
	return buildCorpus(ctx, nil, f, base, regionAt, consented, stored, clutter, workers)
}

// buildCorpus is BuildCorpus with the Recoverer of the featurisation
// workers: a row whose featurisation panics fails the build with the
// row's id (the retrain job fails; the served models stay).
func buildCorpus(ctx context.Context, rec *appliance.Recoverer, f Featurizer, base BaselineFunc, regionAt func(appliance.LatLon) string,
	consented []appliance.Observation, stored int, clutter bool, workers int) (*Corpus, error) {
	if len(consented) == 0 {
		return nil, consentError(stored)
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	c := &Corpus{Stored: stored, Consented: len(consented)}
	rows := make([]appliance.Observation, 0, len(consented))
	for _, o := range consented {
		if !keepMetric(o.Metric) {
			c.SkippedMetric++
			continue
		}
		rows = append(rows, o)
	}
	version := 1
	if clutter {
		version = 2
	}
	var res []corpusRow
	for {
		res = featurise(ctx, rec, f, base, rows, version, workers)
		if version == 2 && anyIs(res, appliance.ErrUnavailable) {
			version = 1 // some receiver has no land-cover class: the whole corpus uses the 17 features
			continue
		}
		break
	}
	schema, err := f.Schema(version)
	if err != nil {
		return nil, fmt.Errorf("build corpus: %w", err)
	}
	c.Schema = schema
	for i, r := range res {
		switch {
		case r.err == nil:
		case errors.Is(r.err, appliance.ErrTerrainMissing):
			c.SkippedTerrain++
			continue
		case errors.Is(r.err, appliance.ErrInvalid):
			c.SkippedInvalid++
			continue
		default:
			return nil, fmt.Errorf("build corpus: row %s: %w", rows[i].ID, r.err)
		}
		o := rows[i]
		cell, err := h3.LatLngToCell(o.RxLat, o.RxLon, 8)
		if err != nil {
			return nil, fmt.Errorf("build corpus: row %s: h3 cell: %w", o.ID, err)
		}
		region := ""
		if regionAt != nil {
			region = regionAt(appliance.LatLon{Lat: o.RxLat, Lon: o.RxLon})
		}
		c.X = append(c.X, r.x)
		c.Y = append(c.Y, o.ObservedDBm)
		c.Baseline = append(c.Baseline, r.base)
		c.Cells = append(c.Cells, cell)
		c.Regions = append(c.Regions, region)
		c.Bands = append(c.Bands, r.info.BandMHz)
		c.Morph = append(c.Morph, r.info.Morphology)
		c.Sources = append(c.Sources, o.Source)
		c.Obs = append(c.Obs, o)
	}
	return c, nil
}

func anyIs(rows []corpusRow, target error) bool {
	for _, r := range rows {
		if r.err != nil && errors.Is(r.err, target) {
			return true
		}
	}
	return false
}

// BandKey is the rmse_by_band key of a band: "1800MHz".
func BandKey(bandMHz int) string { return strconv.Itoa(bandMHz) + "MHz" }
