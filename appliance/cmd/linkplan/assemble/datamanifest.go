package assemble

import (
	"log/slog"

	"linkplan/appliance"
	"linkplan/appliance/datamanifest"
	"linkplan/appliance/sampledata"
	"linkplan/store"
	"linkplan/terrain-packs/sample"
)

// newDataManifest lists the data the appliance serves for GET
// /platform/maturity: the terrain packs in priority order (or the embedded
// sample), then the tower sources the refresh reads, named as its records
// name them (the --towers paths and the files installed in the data
// directory, listed again at each call as the refresh does; or the
// embedded samples, when the appliance started on them).
func newDataManifest(cfg Config, ter *TerrainSet, embeddedTowers bool, db *store.DB, log *slog.Logger) *datamanifest.Service {
	var packs []datamanifest.Input
	for i, p := range ter.Packs {
		info := p.Info()
		in := datamanifest.Input{Kind: appliance.DataKindTerrainPack, Tiles: info.TileCount,
			Bounds: &appliance.BBox{MinLat: float64(info.Bounds.MinLat), MinLon: float64(info.Bounds.MinLon),
				MaxLat: float64(info.Bounds.MaxLat), MaxLon: float64(info.Bounds.MaxLon)}}
		if len(cfg.Packs) == 0 {
			in.Name, in.Data = "embedded:rio.ltp", sample.Pack()
		} else {
			in.Path = cfg.Packs[i]
		}
		packs = append(packs, in)
	}
	return datamanifest.New(datamanifest.Deps{Refreshes: db, Log: log, Inputs: func() ([]datamanifest.Input, error) {
		out := append([]datamanifest.Input(nil), packs...)
		if embeddedTowers {
			return append(out,
				datamanifest.Input{Kind: appliance.DataKindTowerSource, Name: "embedded:anatel_erbs_sample.csv", Data: sampledata.AnatelERBs()},
				datamanifest.Input{Kind: appliance.DataKindTowerSource, Name: "embedded:opencellid_724_sample.csv", Data: sampledata.OpenCelliD()}), nil
		}
		for _, f := range cfg.TowerFiles {
			out = append(out, datamanifest.Input{Kind: appliance.DataKindTowerSource, Path: f})
		}
		installed, err := InstalledSources(cfg.DataDir)
		for _, f := range installed {
			out = append(out, datamanifest.Input{Kind: appliance.DataKindTowerSource, Path: f})
		}
		return out, err
	}})
}
