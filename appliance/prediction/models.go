package prediction

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"linkplan/appliance"
	"linkplan/engines/ml"
)

// File names of a model directory (written by the training side).
const (
	FileRidge    = "ridge.json"
	FileResidual = "residual.json"
)

// BandFile is the file name of the band model of bandMHz
// (ridge-1800mhz.json).
func BandFile(bandMHz int) string { return "ridge-" + strconv.Itoa(bandMHz) + "mhz.json" }

// SnapBands are the seven bands of SPEC §2.5, MHz.
var SnapBands = []int{700, 850, 900, 1800, 2100, 2600, 3500}

// Shipped files and their roles (engines/ml/shipped).
const (
	ShippedRidge    = "ridge-synthetic-rio.json"
	ShippedResidual = "drivetest-dortmund-lte.json"
)

// ErrModelSet means a model directory is not a valid set; the served set
// is kept. It matches appliance.ErrInvalid.
var ErrModelSet = fmt.Errorf("model set: %w", appliance.ErrInvalid)

// Drive-test schema versions: models fed by ml.DriveTestFeatures (no
// terrain) that predict the received level directly.
const (
	SchemaDriveTest   = 100
	SchemaDriveTestV2 = 101
)

// modelSet is one consistent set of served models, swapped whole.
type modelSet struct {
	// Origin is "shipped" or the directory the set was read from.
	Origin   string
	LoadedAt time.Time
	Ridge    *ml.Artifact         // global ridge, nil when none
	Bands    map[int]*ml.Artifact // band ridge models by band, MHz
	Residual *ml.Artifact         // residual engine, nil when none
	// PrevResidual and PrevRidge are the artifacts of the newest
	// previous-<unix> directory, for the promotion gate's regression check
	// (nil when none).
	PrevResidual, PrevRidge *ml.Artifact
	// Live are the sources with a standing attestation on this appliance
	// when the set was loaded (Deps.Attestations); nil: none could be
	// read, and no appliance-scoped attestation is confirmed.
	Live map[string]bool
}

// Attestation statuses of AttestationInfo.
const (
	AttestationAttested  = "attested"
	AttestationPartial   = "partial"
	AttestationNone      = "none"
	AttestationWithdrawn = "withdrawn"
	AttestationNoModel   = "not_applicable"
)

// AttestationInfo is the attested share of a served model's training rows
// (`linkplan observations attest`): data_provenance real, and so a grade
// and a field-accuracy claim, needs status attested.
type AttestationInfo struct {
	// Status is attested (every training row is of a source attested when
	// it was stored, and every appliance attestation still stands),
	// partial (some rows), none (no row; synthetic rows are never
	// attested), withdrawn (an attestation the model relied on was
	// withdrawn since it was trained) or not_applicable (no model).
	Status         string              `json:"status"`
	AttestedRows   int                 `json:"attested_rows"`
	UnattestedRows int                 `json:"unattested_rows"`
	SyntheticRows  int                 `json:"synthetic_rows"`
	Sources        []ml.AttestedSource `json:"sources"`
	// WithdrawnSources are sources of Sources whose appliance
	// attestation no longer stands.
	WithdrawnSources []string `json:"withdrawn_sources"`
	// Detail says in words what the status means for this model.
	Detail string `json:"detail"`
}

// attestation reports a's attestation against the set's standing ones.
func (s *modelSet) attestation(a *ml.Artifact) AttestationInfo {
	out := AttestationInfo{Status: AttestationNoModel, Sources: []ml.AttestedSource{}, WithdrawnSources: []string{}}
	if a == nil {
		out.Detail = "no model of this role is served"
		return out
	}
	at := a.Attestation
	if at == nil {
		out.Status, out.Detail = AttestationNone, "the artifact records no attested row (written by an earlier build, or trained on rows no operator attested)"
		return out
	}
	out.AttestedRows, out.UnattestedRows, out.SyntheticRows = at.AttestedRows, at.UnattestedRows, at.SyntheticRows
	out.Sources = append(out.Sources, at.Sources...)
	for _, src := range at.Sources {
		if src.Scope == ml.ScopeAppliance && !s.Live[src.Source] {
			out.WithdrawnSources = append(out.WithdrawnSources, src.Source)
		}
	}
	switch {
	case len(out.WithdrawnSources) > 0:
		out.Status = AttestationWithdrawn
		out.Detail = "the attestation of " + join(out.WithdrawnSources) + " was withdrawn (or cannot be read) since the model was trained: its rows no longer count as field measurements"
	case at.AttestedRows > 0 && at.AttestedRows == a.NTrain:
		out.Status, out.Detail = AttestationAttested, fmtf("every one of the %d training rows is of an attested source", a.NTrain)
	case at.AttestedRows > 0:
		out.Status = AttestationPartial
		out.Detail = fmtf("%d of %d training rows are of attested sources (%d unattested, %d synthetic)", at.AttestedRows, a.NTrain, at.UnattestedRows, at.SyntheticRows)
	default:
		out.Status = AttestationNone
		out.Detail = fmtf("none of the %d training rows is of an attested source (%d unattested, %d synthetic): a source label is not an attestation", a.NTrain, at.UnattestedRows, at.SyntheticRows)
	}
	return out
}

// provenance is a's data provenance as served: the artifact's, except
// that real needs the attestation to stand (status attested); otherwise
// real rows that no standing attestation covers are unknown.
func (s *modelSet) provenance(a *ml.Artifact) string {
	p := provenanceOf(a)
	if p == ProvenanceReal && s.attestation(a).Status != AttestationAttested {
		return ProvenanceUnknown
	}
	return p
}

// driveTest reports whether a is a drive-test-family model.
func driveTest(a *ml.Artifact) bool {
	return a != nil && (a.Schema.Version == SchemaDriveTest || a.Schema.Version == SchemaDriveTestV2)
}

// readArtifact reads and validates one file of fsys.
func readArtifact(fsys fs.FS, name string) (*ml.Artifact, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	a, err := ml.ReadArtifact(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return a, nil
}

// checkSchema refuses an artifact whose feature schema the server cannot
// build: known(version) must give the same names in the same order.
func checkSchema(name string, a *ml.Artifact, known func(int) (ml.FeatureSchema, error)) error {
	s, err := known(a.Schema.Version)
	if err != nil {
		return fmt.Errorf("%s: feature schema version %d is not one this server builds: %v: %w", name, a.Schema.Version, err, ErrModelSet)
	}
	if !slices.Equal(s.Names, a.Schema.Names) {
		return fmt.Errorf("%s: feature schema version %d names differ from this server's: %w", name, a.Schema.Version, ErrModelSet)
	}
	return nil
}

// loadSet reads the set of fsys: roles maps file names to "ridge",
// "residual" or "band:<MHz>"; a missing file is no model of that role, any
// other problem fails the whole set.
func loadSet(fsys fs.FS, roles map[string]string, known func(int) (ml.FeatureSchema, error)) (*modelSet, error) {
	set := &modelSet{Bands: map[int]*ml.Artifact{}}
	names := make([]string, 0, len(roles))
	for n := range roles {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		a, err := readArtifact(fsys, name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%v: %w", err, ErrModelSet)
		}
		if err := checkSchema(name, a, known); err != nil {
			return nil, err
		}
		role := roles[name]
		switch {
		case role == "ridge" || strings.HasPrefix(role, "band:"):
			if a.Kind != ml.KindRidge || driveTest(a) {
				return nil, fmt.Errorf("%s: a local model must be kind ridge on schema 1 or 2, got kind %s schema %d: %w", name, a.Kind, a.Schema.Version, ErrModelSet)
			}
			if role == "ridge" {
				set.Ridge = a
			} else {
				b, _ := strconv.Atoi(strings.TrimPrefix(role, "band:"))
				set.Bands[b] = a
			}
		case role == "residual":
			if a.Kind != ml.KindGBM {
				return nil, fmt.Errorf("%s: the residual engine must be kind gbm, got %s: %w", name, a.Kind, ErrModelSet)
			}
			set.Residual = a
		}
	}
	return set, nil
}

// dirRoles are the roles of a model directory's files.
func dirRoles() map[string]string {
	r := map[string]string{FileRidge: "ridge", FileResidual: "residual"}
	for _, b := range SnapBands {
		r[BandFile(b)] = "band:" + strconv.Itoa(b)
	}
	return r
}

// shippedRoles are the roles of the shipped files.
func shippedRoles() map[string]string {
	return map[string]string{ShippedRidge: "ridge", ShippedResidual: "residual"}
}

// checkDir refuses unknown JSON files in a model directory (a band model
// of a band that is not one of the seven, a misspelt name): they would be
// silently ignored otherwise.
func checkDir(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("read model directory: %w", err)
	}
	roles := dirRoles()
	for _, e := range ents {
		n := e.Name()
		if strings.HasSuffix(n, ".json") && roles[n] == "" {
			return fmt.Errorf("%s: not a model file name (%s, %s or ridge-<700|850|900|1800|2100|2600|3500>mhz.json): %w", n, FileRidge, FileResidual, ErrModelSet)
		}
	}
	return nil
}

// newestPrevious returns the newest previous-<unix> directory of models,
// "" when none.
func newestPrevious(models string) string {
	ents, err := os.ReadDir(models)
	if err != nil {
		return ""
	}
	best, bestT, bestN := "", int64(-1), int64(-1)
	for _, e := range ents {
		s, ok := strings.CutPrefix(e.Name(), "previous-")
		if !ok || !e.IsDir() {
			continue
		}
		// previous-<unix s>[-n]: n orders swaps within one second.
		ts, ns, _ := strings.Cut(s, "-")
		t, err := strconv.ParseInt(ts, 10, 64)
		n := int64(0)
		if ns != "" {
			n, err = strconv.ParseInt(ns, 10, 64)
		}
		if err == nil && (t > bestT || t == bestT && n > bestN) {
			best, bestT, bestN = filepath.Join(models, e.Name()), t, n
		}
	}
	return best
}

// readPrevious loads the regression baseline; problems leave it nil.
func readPrevious(dir string, known func(int) (ml.FeatureSchema, error)) (ridge, residual *ml.Artifact) {
	if dir == "" {
		return nil, nil
	}
	set, err := loadSet(os.DirFS(dir), dirRoles(), known)
	if err != nil {
		return nil, nil
	}
	return set.Ridge, set.Residual
}

// originName is what the API shows of a set's origin: "shipped" or
// "directory" (the path stays in the logs).
func originName(o string) string {
	if o == "shipped" {
		return o
	}
	return "directory:" + path.Base(o)
}
