package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"linkplan/appliance"
	"linkplan/appliance/catalog"
	"linkplan/appliance/sampledata"
	"linkplan/terrain-packs/sample"
	"linkplan/terrain-packs/terrain"
)

// terrainSet is the loaded terrain: one or more packs, first match wins.
type terrainSet struct {
	*terrain.Layered
	packs []*terrain.Pack
}

// Check reads one sample of every pack, so readiness notices a pack file
// that became unreadable.
func (t *terrainSet) Check() error {
	if len(t.packs) == 0 {
		return fmt.Errorf("no terrain pack loaded")
	}
	for _, p := range t.packs {
		ents := p.Entries()
		if len(ents) == 0 {
			return fmt.Errorf("terrain pack has no tile")
		}
		if _, err := p.ReadTile(ents[0].Tile); err != nil {
			return err
		}
	}
	return nil
}

// bounds returns the union of the packs' bounds in degrees.
func (t *terrainSet) bounds() appliance.BBox {
	b := appliance.BBox{MinLat: 90, MinLon: 180, MaxLat: -90, MaxLon: -180}
	for _, p := range t.packs {
		in := p.Info().Bounds
		b.MinLat = min(b.MinLat, float64(in.MinLat))
		b.MinLon = min(b.MinLon, float64(in.MinLon))
		b.MaxLat = max(b.MaxLat, float64(in.MaxLat))
		b.MaxLon = max(b.MaxLon, float64(in.MaxLon))
	}
	return b
}

// openTerrain opens the given packs, or the embedded sample when none.
func openTerrain(paths []string) (*terrainSet, string, error) {
	ts := &terrainSet{}
	if len(paths) == 0 {
		p, err := terrain.OpenBytes(sample.Pack())
		if err != nil {
			return nil, "", fmt.Errorf("open embedded sample terrain: %w", err)
		}
		ts.packs = append(ts.packs, p)
		ts.Layered = terrain.NewLayered(ts.packs...)
		return ts, "embedded sample pack: SRTM3 v2.1 tiles S23W044 and S22W043 (Rio de Janeiro), 3 arc-second grid", nil
	}
	for _, path := range paths {
		p, err := terrain.Open(path)
		if err != nil {
			return nil, "", fmt.Errorf("open terrain pack: %w", err)
		}
		ts.packs = append(ts.packs, p)
	}
	ts.Layered = terrain.NewLayered(ts.packs...)
	return ts, "terrain packs: " + strings.Join(paths, ", "), nil
}

// towerStats summarises the loaded catalogue for the log.
type towerStats struct {
	Regulator, Crowd, Synthetic, Rejected int
	Source                                string
}

// loadTowers imports tower files (format detected from their first bytes),
// places regulator towers and snaps centroid-placed ones onto crowd towers.
// With no file it serves the embedded real samples that fall inside the
// terrain plus a synthetic set for the same area, clearly marked.
func loadTowers(ter *terrainSet, files []string) ([]*appliance.Tower, towerStats, error) {
	gaz, err := catalog.EmbeddedGazetteer()
	if err != nil {
		return nil, towerStats{}, err
	}
	placer := catalog.NewPlacer(gaz)
	var regulator, crowd []appliance.Tower
	var st towerStats
	add := func(name string, data []byte) error {
		f, err := catalog.DetectFormat(data)
		if err != nil {
			return fmt.Errorf("towers %s: %w", name, err)
		}
		var p *catalog.Placer
		if f != catalog.FormatOpenCelliD {
			p = placer
		}
		res, _, err := catalog.Import(f, bytes.NewReader(data), p)
		if err != nil {
			return fmt.Errorf("towers %s: %w", name, err)
		}
		st.Rejected += len(res.Rejects)
		if f == catalog.FormatOpenCelliD {
			crowd = append(crowd, res.Towers()...)
		} else {
			regulator = append(regulator, res.Towers()...)
		}
		return nil
	}
	var out []*appliance.Tower
	if len(files) == 0 {
		st.Source = "embedded samples"
		if err := add("embedded Anatel sample", sampledata.AnatelERBs()); err != nil {
			return nil, st, err
		}
		if err := add("embedded OpenCelliD sample", sampledata.OpenCelliD()); err != nil {
			return nil, st, err
		}
		b := ter.bounds()
		// Keep the sample towers that stand on loaded terrain.
		onTerrain := func(t *appliance.Tower) bool { _, err := ter.ElevationM(t.Pos()); return err == nil }
		syn := catalog.SyntheticInBox(b, 3, 1)
		for i := range syn {
			if onTerrain(&syn[i]) {
				out = append(out, &syn[i])
			}
		}
		st.Synthetic = len(out)
		keep := func(ts []appliance.Tower) []appliance.Tower {
			var k []appliance.Tower
			for _, t := range ts {
				if onTerrain(&t) {
					k = append(k, t)
				}
			}
			return k
		}
		catalog.Snap(regulator, crowd, catalog.DefaultSnapRadiusM)
		regulator, crowd = keep(regulator), keep(crowd)
	} else {
		st.Source = strings.Join(files, ", ")
		for _, name := range files {
			data, err := os.ReadFile(name)
			if err != nil {
				return nil, st, fmt.Errorf("towers: %w", err)
			}
			if err := add(name, data); err != nil {
				return nil, st, err
			}
		}
		catalog.Snap(regulator, crowd, catalog.DefaultSnapRadiusM)
	}
	st.Regulator, st.Crowd = len(regulator), len(crowd)
	for i := range regulator {
		out = append(out, &regulator[i])
	}
	for i := range crowd {
		out = append(out, &crowd[i])
	}
	return out, st, nil
}
