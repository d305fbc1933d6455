package packer

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"time"

	"linkplan/appliance"
	"linkplan/terrain-packs/terrain"
)

// Options configures Build.
type Options struct {
	// SamplesPerDegree is the pack grid: 1200 (3″) or 3600 (1″), or any
	// value in 1..3600. 0 takes the grid of the .hgt inputs, which must
	// then all share one grid. Inputs on another grid are resampled
	// bilinearly (1″ → 3″ is exact decimation).
	SamplesPerDegree int
	// SeaTiles names tiles known to be open sea (SRTM names such as
	// "S24W041"); they are recorded as sea, without samples. A name that
	// also has an input file is an error.
	SeaTiles []string
	// Progress, when set, is called after each tile, from one goroutine at
	// a time.
	Progress func(Progress)
}

// Progress reports one finished tile.
type Progress struct {
	Done  int    // tiles finished so far
	Total int    // tiles in the pack
	Tile  string // the tile just finished
	Kind  string // land, sea or void
}

// Stats summarises a build.
type Stats struct {
	Tiles           int           `json:"tiles"`
	LandTiles       int           `json:"land_tiles"`
	SeaTiles        int           `json:"sea_tiles"`
	VoidTiles       int           `json:"void_tiles"`
	FilledSamples   int64         `json:"filled_samples"`   // voids filled by interpolation
	RawBytes        int64         `json:"raw_bytes"`        // land samples as int16, bytes
	CompressedBytes int64         `json:"compressed_bytes"` // land payloads, bytes
	FileBytes       int64         `json:"file_bytes"`       // the pack, bytes
	SHA256          string        `json:"sha256"`           // of the pack, hex
	Duration        time.Duration `json:"duration_ns"`      // wall time of the build
}

// Ratio returns compressed / raw bytes of the land tiles (0 without land).
func (s Stats) Ratio() float64 {
	if s.RawBytes == 0 {
		return 0
	}
	return float64(s.CompressedBytes) / float64(s.RawBytes)
}

// job is one tile to build: from an input file or a sea tile.
type job struct {
	tile  terrain.TileID
	input string // "" for a sea tile
}

// plan sorts inputs and sea tiles into one job per tile.
func plan(inputs []string, seaTiles []string) ([]job, error) {
	seen := make(map[terrain.TileID]string)
	var jobs []job
	for _, in := range inputs {
		t, err := TileFromFileName(in)
		if err != nil {
			return nil, err
		}
		if prev, dup := seen[t]; dup {
			return nil, fmt.Errorf("tile %s comes from both %s and %s: %w", t, prev, in, appliance.ErrInvalid)
		}
		seen[t] = in
		jobs = append(jobs, job{tile: t, input: in})
	}
	for _, name := range seaTiles {
		t, err := terrain.ParseTileName(name)
		if err != nil {
			return nil, fmt.Errorf("sea tile: %w", err)
		}
		if prev, dup := seen[t]; dup {
			return nil, fmt.Errorf("sea tile %s also comes from %q: %w", t, prev, appliance.ErrInvalid)
		}
		seen[t] = "(sea)"
		jobs = append(jobs, job{tile: t})
	}
	if len(jobs) == 0 {
		return nil, fmt.Errorf("no inputs and no sea tiles: %w", appliance.ErrInvalid)
	}
	sort.Slice(jobs, func(i, j int) bool {
		a, b := jobs[i].tile, jobs[j].tile
		if a.Lat != b.Lat {
			return a.Lat < b.Lat
		}
		return a.Lon < b.Lon
	})
	return jobs, nil
}

// gridOf returns the pack grid: opts.SamplesPerDegree or the one grid of
// the .hgt inputs (read from their uncompressed sizes).
func gridOf(jobs []job, want int) (int, error) {
	if want != 0 {
		if want < 1 || want > terrain.MaxSamplesPerDegree {
			return 0, fmt.Errorf("samples per degree %d outside 1..%d: %w", want, terrain.MaxSamplesPerDegree, appliance.ErrInvalid)
		}
		return want, nil
	}
	grid := 0
	for _, j := range jobs {
		if j.input == "" {
			continue
		}
		spd, err := hgtGrid(j.input)
		if err != nil {
			return 0, err
		}
		if grid != 0 && spd != grid {
			return 0, fmt.Errorf("inputs mix %d and %d samples per degree; set SamplesPerDegree: %w", grid, spd, appliance.ErrInvalid)
		}
		grid = spd
	}
	if grid == 0 {
		grid = 1200 // only sea tiles: the grid does not matter, use 3″
	}
	return grid, nil
}

// encoded is one finished tile.
type encoded struct {
	entry   terrain.Entry
	payload []byte
}

// buildTile reads, fills, resamples and encodes one tile.
func buildTile(j job, spd int, enc *terrain.Encoder, codec terrain.Codec) (encoded, error) {
	e := terrain.Entry{Tile: j.tile}
	if j.input == "" {
		e.Kind = terrain.KindSea
		return encoded{entry: e}, nil
	}
	s, srcSPD, err := ReadHGT(j.input)
	if err != nil {
		return encoded{}, err
	}
	filled, ok := FillVoids(s, srcSPD+1)
	if !ok {
		e.Kind = terrain.KindVoid
		return encoded{entry: e}, nil
	}
	if srcSPD != spd {
		s = Resample(s, srcSPD+1, spd+1)
	}
	return encodeSamples(e, s, uint32(filled), enc, codec)
}

func encodeSamples(e terrain.Entry, s []int16, filled uint32, enc *terrain.Encoder, codec terrain.Codec) (encoded, error) {
	e.Kind, e.Codec, e.Filled = terrain.KindLand, codec, filled
	first := true
	for _, v := range s {
		if v == terrain.NoData {
			e.Flags |= terrain.FlagNoData
			continue
		}
		if first || v < e.MinM {
			e.MinM = v
		}
		if first || v > e.MaxM {
			e.MaxM = v
		}
		first = false
	}
	if first {
		e.Kind, e.Codec, e.Flags = terrain.KindVoid, terrain.CodecNone, 0
		return encoded{entry: e}, nil
	}
	payload, err := enc.Encode(nil, s, codec)
	if err != nil {
		return encoded{}, fmt.Errorf("encode tile %s: %w", e.Tile, err)
	}
	e.Length, e.CRC = int64(len(payload)), terrain.Checksum(payload)
	return encoded{entry: e, payload: payload}, nil
}

// Build writes a pack to out from SRTM .hgt inputs (plain, .zip or .gz;
// the tile comes from the file name) and opts.SeaTiles. Voids are filled
// (FillVoids); an all-void input becomes a void tile. The pack is written
// to out+".tmp", synced and renamed, so out is either the old file or the
// complete new pack. Tiles are processed one at a time: memory stays near
// two decoded tiles whatever the number of inputs.
func Build(ctx context.Context, out string, inputs []string, opts Options) (Stats, error) {
	start := time.Now()
	jobs, err := plan(inputs, opts.SeaTiles)
	if err != nil {
		return Stats{}, fmt.Errorf("build %s: %w", out, err)
	}
	spd, err := gridOf(jobs, opts.SamplesPerDegree)
	if err != nil {
		return Stats{}, fmt.Errorf("build %s: %w", out, err)
	}
	enc, err := terrain.NewEncoder()
	if err != nil {
		return Stats{}, fmt.Errorf("build %s: %w", out, err)
	}
	defer enc.Close()

	tmp := out + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return Stats{}, fmt.Errorf("build %s: %w", out, err)
	}
	defer func() {
		if f != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	dataOff := int64(terrain.HeaderSize + terrain.EntrySize*len(jobs))
	if _, err := f.Seek(dataOff, io.SeekStart); err != nil {
		return Stats{}, fmt.Errorf("build %s: %w", out, err)
	}
	var st Stats
	entries := make([]terrain.Entry, len(jobs))
	off := dataOff
	for i, j := range jobs {
		if err := ctx.Err(); err != nil {
			return Stats{}, fmt.Errorf("build %s: %w", out, err)
		}
		t, err := buildTile(j, spd, enc, terrain.CodecZstdRaw)
		if err != nil {
			return Stats{}, fmt.Errorf("build %s: tile %s: %w", out, j.tile, err)
		}
		if t.payload != nil {
			t.entry.Offset = off
			if _, err := f.Write(t.payload); err != nil {
				return Stats{}, fmt.Errorf("build %s: write tile %s: %w", out, j.tile, err)
			}
			off += t.entry.Length
		}
		entries[i] = t.entry
		st.add(t.entry, spd)
		if opts.Progress != nil {
			opts.Progress(Progress{Done: i + 1, Total: len(jobs), Tile: j.tile.Name(), Kind: t.entry.Kind.String()})
		}
	}
	hi, err := terrain.MarshalHeaderIndex(terrain.Header{Version: terrain.VersionV1, SamplesPerDegree: spd, FileSize: off}, entries)
	if err != nil {
		return Stats{}, fmt.Errorf("build %s: %w", out, err)
	}
	if _, err := f.WriteAt(hi, 0); err != nil {
		return Stats{}, fmt.Errorf("build %s: write index: %w", out, err)
	}
	if err := finish(f, tmp, out); err != nil {
		return Stats{}, fmt.Errorf("build %s: %w", out, err)
	}
	f = nil
	st.FileBytes = off
	if st.SHA256, err = writeManifest(out); err != nil {
		return Stats{}, fmt.Errorf("build %s: %w", out, err)
	}
	st.Duration = time.Since(start)
	return st, nil
}

func (st *Stats) add(e terrain.Entry, spd int) {
	st.Tiles++
	switch e.Kind {
	case terrain.KindLand:
		st.LandTiles++
		st.RawBytes += int64(2 * (spd + 1) * (spd + 1))
		st.CompressedBytes += e.Length
		st.FilledSamples += int64(e.Filled)
	case terrain.KindSea:
		st.SeaTiles++
	case terrain.KindVoid:
		st.VoidTiles++
	}
}

// finish syncs and closes f, then renames tmp to out.
func finish(f *os.File, tmp, out string) error {
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("sync: %w", err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("close: %w", err)
	}
	if err := os.Rename(tmp, out); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("rename: %w", err)
	}
	if d, err := os.Open(filepath.Dir(out)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// writeManifest writes ManifestPath(out) for the finished pack and returns
// its sha256.
func writeManifest(out string) (string, error) {
	p, err := terrain.Open(out, terrain.WithCacheBytes(0))
	if err != nil {
		return "", fmt.Errorf("manifest: %w", err)
	}
	defer p.Close()
	m, err := p.Manifest(filepath.Base(out))
	if err != nil {
		return "", fmt.Errorf("manifest: %w", err)
	}
	b, err := MarshalManifest(m)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(ManifestPath(out), b, 0o644); err != nil {
		return "", fmt.Errorf("write manifest: %w", err)
	}
	return m.SHA256, nil
}

// MarshalManifest returns m as indented JSON with a final newline.
func MarshalManifest(m terrain.Manifest) ([]byte, error) {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("marshal manifest: %w", err)
	}
	return append(b, '\n'), nil
}
