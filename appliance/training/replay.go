package training

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"linkplan/appliance"
	"linkplan/engines/ml"
)

// modelSet is the part of a model directory the replay compares: the
// global ridge, the band ridges and the residual GBM, recognised by kind
// and model version (whatever their file names: the shipped synthetic
// ridge is ridge-synthetic-rio.json). A residual model of a schema the
// feature builder does not make (the drive-test family, schema 100) is
// left out: it cannot be replayed on these rows.
type modelSet struct {
	ridge    *ml.Artifact
	bands    map[int]*ml.Artifact
	residual *ml.Artifact
}

func setOf(arts map[string]*ml.Artifact, f Featurizer) modelSet {
	s := modelSet{bands: map[int]*ml.Artifact{}}
	usable := func(a *ml.Artifact) bool {
		_, err := f.Schema(a.Schema.Version)
		return err == nil
	}
	for _, a := range arts {
		if !usable(a) {
			continue
		}
		switch {
		case a.Kind == ml.KindRidge && a.ModelVersion == VersionRidge:
			s.ridge = a
		case a.Kind == ml.KindRidge && strings.HasPrefix(a.ModelVersion, "ridge-") && strings.HasSuffix(a.ModelVersion, "mhz-v1"):
			b, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(a.ModelVersion, "ridge-"), "mhz-v1"))
			if err == nil {
				s.bands[b] = a
			}
		case a.Kind == ml.KindGBM && a.ModelVersion == VersionResidual:
			s.residual = a
		}
	}
	return s
}

// Replay is the holdout RMSE of one model set; nil fields: no such model.
type Replay struct {
	// Provenance is the set's data provenance (its residual engine's, else
	// its ridge's; "" unknown to the replay).
	Provenance string
	N          int
	RMSEDB     *float64 // ridge family: band model where one exists, else the global ridge
	ResidualDB *float64 // baseline + residual GBM
}

// replay scores a model set on the holdout rows of c. Each model gets the
// vector of its own schema version (computed once per version); a model
// whose schema these rows cannot have (version 2 where a receiver has no
// land-cover class) cannot serve them and scores nothing.
func replay(ctx context.Context, f Featurizer, c *Corpus, holdout []int, set modelSet) (Replay, error) {
	out := Replay{N: len(holdout)}
	vecs := map[int][][]float64{c.Schema.Version: pick(c.X, holdout)}
	vectors := func(version int) ([][]float64, error) {
		if v, ok := vecs[version]; ok {
			return v, nil
		}
		v := make([][]float64, len(holdout))
		for i, j := range holdout {
			x, _, err := f.Vector(ctx, &c.Obs[j], version)
			if err != nil {
				return nil, fmt.Errorf("replay: row %s, schema %d: %w", c.Obs[j].ID, version, err)
			}
			v[i] = x
		}
		vecs[version] = v
		return v, nil
	}
	if set.ridge != nil || len(set.bands) > 0 {
		var se float64
		n := 0
		for i, j := range holdout {
			a := set.bands[c.Bands[j]]
			if a == nil {
				a = set.ridge
			}
			if a == nil {
				continue // a band-only set has nothing for this row
			}
			v, err := vectors(a.Schema.Version)
			if errors.Is(err, appliance.ErrUnavailable) {
				break // a schema these rows cannot have (no land cover): the model cannot serve them
			}
			if err != nil {
				return out, err
			}
			p, err := a.Predict(v[i])
			if err != nil {
				return out, err
			}
			d := p - c.Y[j]
			se += d * d
			n++
		}
		if n == len(holdout) && n > 0 {
			r := math.Sqrt(se / float64(n))
			out.RMSEDB = &r
		}
	}
	if set.residual != nil {
		v, err := vectors(set.residual.Schema.Version)
		if errors.Is(err, appliance.ErrUnavailable) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		var se float64
		for i, j := range holdout {
			p, err := set.residual.Predict(v[i])
			if err != nil {
				return out, err
			}
			d := c.Baseline[j] + p - c.Y[j]
			se += d * d
		}
		r := math.Sqrt(se / float64(len(holdout)))
		out.ResidualDB = &r
	}
	return out, nil
}

// provenance is the data provenance of the set's comparable models: its
// residual engine's, else its global ridge's ("" when it has neither). A
// drive-test model is not in the set (setOf), so it neither blocks nor
// counts.
func (s modelSet) provenance() string {
	switch {
	case s.residual != nil:
		return s.residual.DataProvenance
	case s.ridge != nil:
		return s.ridge.DataProvenance
	}
	return ""
}

// Decide applies the promotion rule to the replays of the candidate and
// of the served models: promoted when nothing comparable is served, or
// when the candidate's ridge family is strictly better and its residual
// engine is no worse where both have one (SPEC §2.6: no regression in
// residual metrics). Equal is kept, except that a candidate of attested
// real data replaces a served set that is not real when it is no worse
// (the same rows, attested since, gain their claim). A candidate whose
// data provenance is not real never replaces a served set trained on
// attested real data (provenance real): rows nobody attested, however
// well they replay on their own holdout, do not displace a
// field-accuracy claim.
func Decide(cand, served Replay) (bool, string) {
	f := func(p *float64) string { return strconv.FormatFloat(*p, 'f', 3, 64) }
	if served.Provenance == ProvenanceReal && cand.Provenance != ProvenanceReal {
		return false, fmt.Sprintf("the served models are trained on attested real data and the candidate's data_provenance is %s: "+
			"only attested rows may replace them (linkplan observations attest)", cand.Provenance)
	}
	if served.RMSEDB == nil {
		return true, fmt.Sprintf("nothing comparable is served; candidate holdout RMSE %s dB on %d rows", f(cand.RMSEDB), cand.N)
	}
	// A candidate of attested real data replaces a set that is not real
	// when it is no worse: the same rows, attested since, gain the claim.
	upgrade := cand.Provenance == ProvenanceReal && served.Provenance != ProvenanceReal
	if !(*cand.RMSEDB < *served.RMSEDB) && !(upgrade && *cand.RMSEDB <= *served.RMSEDB) {
		return false, fmt.Sprintf("candidate holdout RMSE %s dB is not better than the served %s dB on %d rows", f(cand.RMSEDB), f(served.RMSEDB), cand.N)
	}
	if cand.ResidualDB != nil && served.ResidualDB != nil && *cand.ResidualDB > *served.ResidualDB {
		return false, fmt.Sprintf("candidate holdout RMSE %s dB beats the served %s dB, but its residual engine regresses (%s dB against %s dB)",
			f(cand.RMSEDB), f(served.RMSEDB), f(cand.ResidualDB), f(served.ResidualDB))
	}
	if upgrade && !(*cand.RMSEDB < *served.RMSEDB) {
		return true, fmt.Sprintf("candidate of attested real data, holdout RMSE %s dB, no worse than the served %s dB (data_provenance %s) on %d rows",
			f(cand.RMSEDB), f(served.RMSEDB), served.Provenance, cand.N)
	}
	return true, fmt.Sprintf("candidate holdout RMSE %s dB beats the served %s dB on %d rows", f(cand.RMSEDB), f(served.RMSEDB), cand.N)
}
