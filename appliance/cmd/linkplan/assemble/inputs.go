package assemble

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"linkplan/appliance"
	"linkplan/appliance/catalog"
	"linkplan/appliance/refresh"
	"linkplan/appliance/sampledata"
	"linkplan/engines"
)

// TowerSetup returns the tower sources of a data directory and tower
// files, as serve and worker both load them: the embedded samples (kept
// when on the loaded terrain) and the synthetic towers of the terrain's
// box when neither files nor installed sources are given; else the files,
// and the sources installed in dataDir listed again at every refresh.
func TowerSetup(dataDir string, towerFiles []string, ter *TerrainSet) (srcs []refresh.Source, discover func() ([]refresh.Source, error), synthetic []*appliance.Tower, err error) {
	installed, err := InstalledSources(dataDir)
	if err != nil {
		return nil, nil, nil, err
	}
	if len(towerFiles) == 0 && len(installed) == 0 {
		onTerrain := func(t *appliance.Tower) bool { _, err := ter.ElevationM(t.Pos()); return err == nil }
		srcs = []refresh.Source{
			{Name: "embedded:anatel_erbs_sample.csv", Read: refresh.ReadAllFrom(sampledata.AnatelERBs()), Keep: onTerrain},
			{Name: "embedded:opencellid_724_sample.csv", Read: refresh.ReadAllFrom(sampledata.OpenCelliD()), Keep: onTerrain},
		}
		syn := catalog.SyntheticInBox(ter.Bounds(), 3, 1)
		for i := range syn {
			if onTerrain(&syn[i]) {
				synthetic = append(synthetic, &syn[i])
			}
		}
		return srcs, nil, synthetic, nil
	}
	for _, f := range towerFiles {
		srcs = append(srcs, refresh.FileSource(f))
	}
	// Files installed by `linkplan towers import --data-dir` are listed
	// again on every refresh, so a new one joins without a restart.
	discover = func() ([]refresh.Source, error) {
		files, err := InstalledSources(dataDir)
		srcs := make([]refresh.Source, len(files))
		for i, f := range files {
			srcs[i] = refresh.FileSource(f)
		}
		return srcs, err
	}
	return srcs, discover, nil, nil
}

// InputSet holds the digests of the read-only inputs heavy work computes
// on (appliance.Inputs): what the appliance announces to workers, and
// what a worker checks its own copy against. The towers digest changes
// with every catalogue refresh.
type InputSet struct {
	mu      sync.Mutex
	terrain string
	engines string
	towers  string
	// onChange is called (outside the lock) when the digests change.
	onChange func(appliance.Inputs)
}

// Inputs returns the current digests.
func (s *InputSet) Inputs() appliance.Inputs {
	s.mu.Lock()
	defer s.mu.Unlock()
	return appliance.Inputs{"terrain": s.terrain, "engines": s.engines, "towers": s.towers}
}

// SetTowers sets the towers digest from the public towers (sources and
// synthetic; never a tenant's own, which travel with its units).
func (s *InputSet) SetTowers(public []*appliance.Tower) {
	d := towersDigest(public)
	s.mu.Lock()
	changed := d != s.towers
	s.towers = d
	fn := s.onChange
	s.mu.Unlock()
	if changed && fn != nil {
		fn(s.Inputs())
	}
}

// NewInputSet computes the terrain and engines digests; version is the
// binary's, part of the engines digest.
func NewInputSet(ter *TerrainSet, reg *engines.Registry, refractivityDir, version string) (*InputSet, error) {
	tid, err := ter.Identity()
	if err != nil {
		return nil, err
	}
	eid, err := enginesDigest(reg, refractivityDir, version)
	if err != nil {
		return nil, err
	}
	return &InputSet{terrain: tid, engines: eid}, nil
}

// towersDigest is the SHA-256 of the towers, sorted by id, each as Go
// syntax (%#v: every field a computation may read, NaN included).
func towersDigest(ts []*appliance.Tower) string {
	sorted := slices.Clone(ts)
	slices.SortFunc(sorted, func(a, b *appliance.Tower) int { return strings.Compare(a.ID, b.ID) })
	h := sha256.New()
	for _, t := range sorted {
		fmt.Fprintf(h, "%#v\n", *t)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// enginesDigest is the SHA-256 of the binary's version, the engines'
// listing (ids, versions, methods, ranges) and the refractivity maps'
// bytes (none: the documented Brazil values).
func enginesDigest(reg *engines.Registry, refractivityDir, version string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "linkplan %s\n", version)
	if err := json.NewEncoder(h).Encode(reg.List()); err != nil {
		return "", fmt.Errorf("engines digest: %w", err)
	}
	if refractivityDir == "" {
		h.Write([]byte("refractivity: documented Brazil values\n"))
	} else {
		for _, name := range []string{"DN50.TXT", "N050.TXT"} {
			b, err := os.ReadFile(filepath.Join(refractivityDir, name))
			if err != nil {
				return "", fmt.Errorf("engines digest: %w", err)
			}
			sum := sha256.Sum256(b)
			fmt.Fprintf(h, "%s %x\n", name, sum)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// SourcesDir is where installed tower source files live in the data
// directory (linkplan towers import --data-dir).
const SourcesDir = "tower-sources"

// InstalledSources lists the tower source files installed in dataDir.
func InstalledSources(dataDir string) ([]string, error) {
	ents, err := os.ReadDir(filepath.Join(dataDir, SourcesDir))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list tower sources: %w", err)
	}
	var out []string
	for _, e := range ents {
		if e.Type().IsRegular() && e.Name()[0] != '.' {
			out = append(out, filepath.Join(dataDir, SourcesDir, e.Name()))
		}
	}
	sort.Strings(out)
	return out, nil
}
