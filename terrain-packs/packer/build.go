package packer

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"linkplan/appliance"
	"linkplan/terrain-packs/terrain"
)

// Options configures Build. The zero value builds a version-4 pack with
// the void mask on the inputs' grid with all cores.
type Options struct {
	// SamplesPerDegree is the pack grid: 1200 (3″) or 3600 (1″), or any
	// value in 1..3600. 0 takes the grid of the inputs, which must then
	// agree (.hgt: 1200 or 3600 from the file size; GeoTIFF: the nearest
	// whole number of pixels per degree). Inputs on another grid are
	// resampled bilinearly (1″ → 3″ is exact decimation).
	SamplesPerDegree int
	// Codec codes land tiles: terrain.CodecPredictive (the default) or
	// terrain.CodecZstdRaw (about 1.7× larger; with NoVoidMask and without
	// land cover, a version-1 pack that the oldest readers can open).
	Codec terrain.Codec
	// NoVoidMask leaves the void mask out: the pack is then version 1, 2
	// or 3 (readable by readers older than version 4), and its readers
	// cannot tell which heights were interpolated across source voids.
	NoVoidMask bool
	// SeaTiles names tiles known to be open sea (SRTM names such as
	// "S24W041"); they are recorded as sea, without samples. A name that
	// also has an input is an error.
	SeaTiles []string
	// AllZeroAsSea records an input tile whose samples are all exactly 0 m
	// (after void filling) as a sea tile: SRTM writes 0 over the ocean.
	AllZeroAsSea bool
	// GeoTIFFEPSG is the CRS assumed for a GeoTIFF (DEM or land cover)
	// without a GeoKeyDirectory; 0 means 4326 (WGS 84 latitude/longitude).
	GeoTIFFEPSG int
	// LandCover lists MapBiomas land-cover GeoTIFFs (Collection 6 codes;
	// any CRS terrain-packs/geotiff projects, SIRGAS 2000 / UTM included).
	// When set, the pack gets the land-cover layer (format version 3):
	// every tile of the pack gets one class per sample on the height grid
	// (clutter.ResampleTile), sea tiles are Water, and a tile no input
	// covers is stored as uniform class 0 (Unknown), explicitly. Where
	// inputs overlap, the first in this order with a known class at a
	// sample wins. Land cover does not add tiles: only the tiles of the
	// height inputs and SeaTiles are in the pack.
	LandCover []string
	// Workers is the number of tiles built at once; 0 means GOMAXPROCS.
	// The output does not depend on it.
	Workers int
	// Resume keeps the finished tiles of an interrupted build of the same
	// out path (in out+".parts") when they were made from the same input
	// files (path, size, modification time) with the same options; the
	// other tiles are rebuilt. Without Resume an old parts directory is
	// discarded.
	Resume bool
	// Progress, when set, is called once per tile as it finishes (resumed
	// tiles included), from one goroutine at a time, in completion order.
	Progress func(Progress)
}

// Progress reports one finished tile.
type Progress struct {
	Done  int    // tiles finished so far
	Total int    // tiles in the pack
	Tile  string // the tile just finished, e.g. "S23W044"
	Kind  string // land, sea or void
	Bytes int64  // its height payload, bytes
	// ClutterBytes is its land-cover payload, bytes (0 when uniform or
	// without the layer).
	ClutterBytes int64
	Resumed      bool // taken from an earlier interrupted build
}

// Stats summarises a build.
type Stats struct {
	Tiles         int   `json:"tiles"`
	LandTiles     int   `json:"land_tiles"`
	SeaTiles      int   `json:"sea_tiles"`
	VoidTiles     int   `json:"void_tiles"`
	ResumedTiles  int   `json:"resumed_tiles"`  // taken from an interrupted build
	FilledSamples int64 `json:"filled_samples"` // samples interpolated across voids (void-filled)
	// MeasuredFromLower counts the samples that were voids or NoData in an
	// input and were taken from a lower-priority input that measured them
	// (not void-filled).
	MeasuredFromLower int64 `json:"measured_from_lower"`
	// VoidMask says whether the pack has the void mask (version 4).
	VoidMask        bool  `json:"void_mask"`
	VoidMaskBytes   int64 `json:"void_mask_bytes"`  // void-mask payloads, bytes
	RawBytes        int64 `json:"raw_bytes"`        // land samples as int16, bytes
	CompressedBytes int64 `json:"compressed_bytes"` // land payloads, bytes
	FileBytes       int64 `json:"file_bytes"`       // the pack, bytes
	// Clutter says whether the pack has the land-cover layer.
	Clutter bool `json:"clutter"`
	// ClutterBytes is the total of the land-cover payloads, bytes.
	ClutterBytes int64 `json:"clutter_bytes"`
	// UncoveredTiles counts the tiles whose land cover is Unknown at every
	// sample (no land-cover input covers them; stored as uniform class 0).
	UncoveredTiles int           `json:"uncovered_tiles"`
	SHA256         string        `json:"sha256"`      // of the pack, hex
	Duration       time.Duration `json:"duration_ns"` // wall time of the build
}

// Ratio returns compressed / raw bytes of the land tiles (0 without land).
func (s Stats) Ratio() float64 {
	if s.RawBytes == 0 {
		return 0
	}
	return float64(s.CompressedBytes) / float64(s.RawBytes)
}

// source kinds.
const (
	srcSea = iota
	srcHGT
	srcGeoTIFF
)

// source is one height input of a tile.
type source struct {
	kind  int        // srcHGT or srcGeoTIFF
	input string     // .hgt or GeoTIFF path
	geo   *geoSource // GeoTIFF sources (footprint; each job opens the file)
}

// job is one tile to build.
type job struct {
	tile terrain.TileID
	kind int // srcSea, or srcHGT/srcGeoTIFF: the kind of srcs[0]
	// srcs are the height inputs of the tile in priority order (the order
	// of the inputs given to Build): at each sample the first that
	// measured it wins.
	srcs  []source
	index int // position in the pack
	// layer is set when the pack has the land-cover layer; cover lists
	// the land-cover inputs whose footprint touches the tile, in
	// Options.LandCover order.
	layer bool
	cover []*geoSource
}

func (j job) describe() string {
	if j.kind == srcSea {
		return "(sea tile)"
	}
	names := make([]string, len(j.srcs))
	for i, src := range j.srcs {
		names[i] = src.input
	}
	return strings.Join(names, " over ")
}

// plan sorts inputs and sea tiles into one job per tile, in index order;
// inputs supplying the same tile are layered in the order given.
func plan(inputs []string, opts Options) ([]job, error) {
	at := make(map[terrain.TileID]int) // position in jobs
	var jobs []job
	add := func(j job) error {
		i, dup := at[j.tile]
		switch {
		case !dup:
			at[j.tile] = len(jobs)
			jobs = append(jobs, j)
			return nil
		case j.kind == srcSea || jobs[i].kind == srcSea:
			return fmt.Errorf("tile %s comes from both %s and %s: %w", j.tile, jobs[i].describe(), j.describe(), appliance.ErrInvalid)
		}
		for _, src := range jobs[i].srcs {
			if src.input == j.srcs[0].input {
				return fmt.Errorf("input %s is given twice: %w", src.input, appliance.ErrInvalid)
			}
		}
		jobs[i].srcs = append(jobs[i].srcs, j.srcs...)
		return nil
	}
	epsg := opts.GeoTIFFEPSG
	if epsg == 0 {
		epsg = 4326
	}
	fail := func(err error) ([]job, error) { return nil, err }
	for _, in := range inputs {
		if isGeoTIFF(in) {
			g, err := openGeoTIFF(in, epsg)
			if err != nil {
				return fail(err)
			}
			ts := g.tiles()
			if len(ts) == 0 {
				return fail(fmt.Errorf("geotiff %s covers no tile: %w", in, appliance.ErrInvalid))
			}
			for _, t := range ts {
				if err := add(job{tile: t, kind: srcGeoTIFF, srcs: []source{{kind: srcGeoTIFF, input: in, geo: g}}}); err != nil {
					return fail(err)
				}
			}
			continue
		}
		t, err := TileFromFileName(in)
		if err != nil {
			return fail(err)
		}
		if err := add(job{tile: t, kind: srcHGT, srcs: []source{{kind: srcHGT, input: in}}}); err != nil {
			return fail(err)
		}
	}
	for _, name := range opts.SeaTiles {
		t, err := terrain.ParseTileName(name)
		if err != nil {
			return fail(fmt.Errorf("sea tile: %w", err))
		}
		if err := add(job{tile: t, kind: srcSea}); err != nil {
			return fail(err)
		}
	}
	if len(jobs) == 0 {
		return fail(fmt.Errorf("no inputs and no sea tiles: %w", appliance.ErrInvalid))
	}
	if len(opts.LandCover) > 0 {
		var covers []*geoSource
		for _, in := range opts.LandCover {
			if !isGeoTIFF(in) {
				return fail(fmt.Errorf("land cover %s: want a GeoTIFF (.tif, .tiff): %w", in, appliance.ErrInvalid))
			}
			g, err := openGeoTIFF(in, epsg)
			if err != nil {
				return fail(fmt.Errorf("land cover: %w", err))
			}
			covers = append(covers, g)
		}
		for i := range jobs {
			jobs[i].layer = true
			for _, g := range covers {
				if g.touches(jobs[i].tile) {
					jobs[i].cover = append(jobs[i].cover, g)
				}
			}
		}
	}
	sort.Slice(jobs, func(i, j int) bool {
		a, b := jobs[i].tile, jobs[j].tile
		if a.Lat != b.Lat {
			return a.Lat < b.Lat
		}
		return a.Lon < b.Lon
	})
	for i := range jobs {
		jobs[i].index = i
	}
	return jobs, nil
}

// gridOf returns the pack grid: want, or the one grid of the inputs.
func gridOf(jobs []job, want int) (int, error) {
	if want != 0 {
		if want < 1 || want > terrain.MaxSamplesPerDegree {
			return 0, fmt.Errorf("samples per degree %d outside 1..%d: %w", want, terrain.MaxSamplesPerDegree, appliance.ErrInvalid)
		}
		return want, nil
	}
	grid, from := 0, ""
	for _, j := range jobs {
		for _, src := range j.srcs {
			var spd int
			switch src.kind {
			case srcHGT:
				var err error
				if spd, err = hgtGrid(src.input); err != nil {
					return 0, err
				}
			case srcGeoTIFF:
				spd = src.geo.nativeSPD
			}
			if grid != 0 && spd != grid {
				return 0, fmt.Errorf("%s has %d samples per degree, %s has %d; set SamplesPerDegree: %w",
					from, grid, src.input, spd, appliance.ErrInvalid)
			}
			grid, from = spd, src.input
		}
	}
	if grid == 0 {
		grid = 1200 // only sea tiles: the grid does not matter, use 3″
	}
	return grid, nil
}

// built is one finished tile: its index entry (offset not yet laid out)
// and where its payload is.
type built struct {
	entry     terrain.Entry
	partPath  string // "" without payload
	fromLower int64  // samples taken from a lower-priority input
	resumed   bool
}

// Build writes a terrain pack to out from SRTM .hgt inputs (plain, .zip or
// .gz; the tile comes from the file name), GeoTIFF DEMs (.tif/.tiff, one
// or more tiles each, resampled onto the pack grid) and opts.SeaTiles.
//
// Tiles are built in parallel (opts.Workers), each into its own part file
// under out+".parts" (this is what Resume reuses), then assembled in index
// order into out+".tmp", synced and renamed to out; the manifest goes to
// ManifestPath(out) and the parts directory is removed. The output is
// byte-for-byte the same whatever the worker count, the input order or
// resumption. Memory stays near Workers decoded tiles (2.9 MB each for
// 3″, 26 MB for 1″) plus their coding buffers and, for GeoTIFF tiles, a
// 16 MB strip cache per worker, whatever the number of tiles and inputs. On error or cancellation the finished parts are kept for Resume.
func Build(ctx context.Context, out string, inputs []string, opts Options) (Stats, error) {
	start := time.Now()
	st, err := build(ctx, out, inputs, opts)
	if err != nil {
		return Stats{}, fmt.Errorf("build %s: %w", out, err)
	}
	st.Duration = time.Since(start)
	return st, nil
}

func build(ctx context.Context, out string, inputs []string, opts Options) (Stats, error) {
	if opts.Codec == terrain.CodecNone {
		opts.Codec = terrain.CodecPredictive
	}
	if opts.Codec != terrain.CodecPredictive && opts.Codec != terrain.CodecZstdRaw {
		return Stats{}, fmt.Errorf("codec %s: %w", opts.Codec, appliance.ErrInvalid)
	}
	jobs, err := plan(inputs, opts)
	if err != nil {
		return Stats{}, err
	}
	spd, err := gridOf(jobs, opts.SamplesPerDegree)
	if err != nil {
		return Stats{}, err
	}
	partsDir := out + ".parts"
	if !opts.Resume {
		if err := os.RemoveAll(partsDir); err != nil {
			return Stats{}, fmt.Errorf("clear parts: %w", err)
		}
	}
	if err := os.MkdirAll(partsDir, 0o755); err != nil {
		return Stats{}, fmt.Errorf("parts directory: %w", err)
	}
	enc, err := terrain.NewEncoder()
	if err != nil {
		return Stats{}, err
	}
	defer enc.Close()

	results, err := runJobs(ctx, jobs, opts, spd, partsDir, enc)
	if err != nil {
		return Stats{}, err
	}
	st, err := assemble(out, results, spd, opts.Codec, len(opts.LandCover) > 0, !opts.NoVoidMask)
	if err != nil {
		return Stats{}, err
	}
	if err := os.RemoveAll(partsDir); err != nil {
		return Stats{}, fmt.Errorf("remove parts: %w", err)
	}
	return st, nil
}

// runJobs builds (or resumes) every tile with opts.Workers goroutines and
// returns the results in index order.
func runJobs(ctx context.Context, jobs []job, opts Options, spd int, partsDir string, enc *terrain.Encoder) ([]built, error) {
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, len(jobs))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	type result struct {
		i   int
		b   built
		err error
	}
	todo := make(chan job)
	done := make(chan result)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range todo {
				b, err := buildPart(ctx, j, spd, opts, partsDir, enc)
				if err != nil {
					err = fmt.Errorf("tile %s from %s: %w", j.tile, j.describe(), err)
				}
				select {
				case done <- result{i: j.index, b: b, err: err}:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() {
		defer close(todo)
		for _, j := range jobs {
			select {
			case todo <- j:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		wg.Wait()
		close(done)
	}()

	results := make([]built, len(jobs))
	var firstErr error
	n := 0
	for r := range done {
		if r.err != nil {
			if firstErr == nil {
				firstErr = r.err
				cancel()
			}
			continue
		}
		if firstErr != nil {
			continue
		}
		results[r.i] = r.b
		n++
		if opts.Progress != nil {
			e := r.b.entry
			opts.Progress(Progress{Done: n, Total: len(jobs), Tile: e.Tile.Name(), Kind: e.Kind.String(),
				Bytes: e.Length, ClutterBytes: e.Clutter.Length, Resumed: r.b.resumed})
		}
	}
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil || n != len(jobs) {
		if err == nil {
			err = context.Canceled
		}
		return nil, fmt.Errorf("build interrupted after %d of %d tiles (continue with Resume): %w", n, len(jobs), err)
	}
	return results, nil
}

// buildPart builds one tile into its part file, or reuses a valid one.
func buildPart(ctx context.Context, j job, spd int, opts Options, partsDir string, enc *terrain.Encoder) (built, error) {
	if err := ctx.Err(); err != nil {
		return built{}, err
	}
	rec, err := recipe(j, spd, opts)
	if err != nil {
		return built{}, err
	}
	path := filepath.Join(partsDir, j.tile.Name()+".part")
	if opts.Resume {
		if e, fromLower, ok := readPartHeader(path, rec, j.tile); ok {
			b := built{entry: e, fromLower: fromLower, resumed: true}
			if e.Length > 0 || e.Clutter.Length > 0 || e.Void.Length > 0 {
				b.partPath = path
			}
			return b, nil
		}
	}
	e, payload, vpayload, fromLower, err := makeTile(j, spd, opts, enc)
	if err != nil {
		return built{}, err
	}
	var cpayload []byte
	if j.layer {
		if e.Clutter, cpayload, err = makeClutter(j, e.Kind, spd, enc); err != nil {
			return built{}, err
		}
	}
	if err := writePart(path, rec, e, fromLower, payload, cpayload, vpayload); err != nil {
		return built{}, err
	}
	b := built{entry: e, fromLower: fromLower}
	if e.Length > 0 || e.Clutter.Length > 0 || e.Void.Length > 0 {
		b.partPath = path
	}
	return b, nil
}

// makeTile reads the tile's inputs, layers them in priority order,
// fills the remaining voids and encodes the tile: its index entry (with
// the void-mask entry when opts asks for the mask), height payload and
// void-mask payload, and the number of samples taken from a lower-priority
// input.
func makeTile(j job, spd int, opts Options, enc *terrain.Encoder) (terrain.Entry, []byte, []byte, int64, error) {
	e := terrain.Entry{Tile: j.tile}
	if j.kind == srcSea {
		e.Kind = terrain.KindSea
		return e, nil, nil, 0, nil
	}
	s, fillable, fromLower, err := layerSources(j, spd)
	if err != nil {
		return e, nil, nil, 0, err
	}
	var mask []bool
	if fillable {
		mask = make([]bool, len(s))
		for i, v := range s {
			mask[i] = v == terrain.NoData
		}
		filled, ok := FillVoids(s, spd+1)
		if !ok {
			e.Kind = terrain.KindVoid
			return e, nil, nil, fromLower, nil
		}
		e.Filled = uint32(filled)
	}
	if opts.AllZeroAsSea && allZero(s) {
		e = terrain.Entry{Tile: j.tile, Kind: terrain.KindSea}
		return e, nil, nil, fromLower, nil
	}
	e, payload, err := encodeSamples(e, s, enc, opts.Codec)
	if err != nil || e.Kind != terrain.KindLand || opts.NoVoidMask || e.Filled == 0 {
		if e.Kind != terrain.KindLand {
			e.Filled = 0
		}
		return e, payload, nil, fromLower, err
	}
	vpayload, count := enc.EncodeVoidMask(nil, mask)
	if uint32(count) != e.Filled {
		return e, nil, nil, 0, fmt.Errorf("void mask counts %d samples, %d filled", count, e.Filled)
	}
	e.Void = terrain.VoidEntry{Codec: terrain.VoidZstdBitmap, Count: e.Filled,
		Length: int64(len(vpayload)), CRC: terrain.Checksum(vpayload)}
	return e, payload, vpayload, fromLower, nil
}

// layerSources returns the samples of tile j on the spd grid: at each
// sample the value of the first source (in priority order) that measured
// it; NoData where none did. fillable is true when a source is an .hgt
// file (which covers the whole tile, so its NoData samples are voids to
// fill); GeoTIFF-only tiles keep NoData outside their footprint.
// fromLower counts the samples the first source lacked and a later one
// supplied.
func layerSources(j job, spd int) (s []int16, fillable bool, fromLower int64, err error) {
	for k, src := range j.srcs {
		var t []int16
		switch src.kind {
		case srcHGT:
			raw, srcSPD, err := ReadHGT(src.input)
			if err != nil {
				return nil, false, 0, err
			}
			t = raw
			if srcSPD != spd {
				t = Resample(raw, srcSPD+1, spd+1)
			}
			fillable = true
		case srcGeoTIFF:
			if t, err = src.geo.tile(j.tile, spd); err != nil {
				return nil, false, 0, err
			}
		}
		if k == 0 {
			s = t
			continue
		}
		for i, v := range s {
			if v == terrain.NoData && t[i] != terrain.NoData {
				s[i] = t[i]
				fromLower++
			}
		}
	}
	return s, fillable, fromLower, nil
}

func allZero(s []int16) bool {
	for _, v := range s {
		if v != 0 {
			return false
		}
	}
	return true
}

func encodeSamples(e terrain.Entry, s []int16, enc *terrain.Encoder, codec terrain.Codec) (terrain.Entry, []byte, error) {
	e.Kind, e.Codec = terrain.KindLand, codec
	lo, hi, ok := minMax(s)
	if !ok {
		return terrain.Entry{Tile: e.Tile, Kind: terrain.KindVoid}, nil, nil
	}
	e.MinM, e.MaxM = lo, hi
	for _, v := range s {
		if v == terrain.NoData {
			e.Flags |= terrain.FlagNoData
			break
		}
	}
	payload, err := enc.Encode(nil, s, codec)
	if err != nil {
		return e, nil, err
	}
	e.Length, e.CRC = int64(len(payload)), terrain.Checksum(payload)
	return e, payload, nil
}

// assemble lays out the index and copies the part payloads, in index
// order, into out.
func assemble(out string, results []built, spd int, codec terrain.Codec, withClutter, withVoids bool) (Stats, error) {
	st := Stats{Clutter: withClutter, VoidMask: withVoids}
	entries := make([]terrain.Entry, len(results))
	off := int64(terrain.HeaderSize + terrain.EntrySize*len(results))
	if withClutter {
		off += int64(terrain.ClutterEntrySize * len(results))
	}
	if withVoids {
		off += int64(terrain.VoidEntrySize * len(results))
	}
	version := terrain.VersionV1
	for i, b := range results {
		e := b.entry
		if e.Kind == terrain.KindLand {
			e.Offset = off
			off += e.Length
			if e.Codec == terrain.CodecPredictive {
				version = terrain.VersionV2
			}
		}
		if e.Clutter.Codec == terrain.ClutterZstd {
			e.Clutter.Offset = off
			off += e.Clutter.Length
		}
		if e.Void.Codec == terrain.VoidZstdBitmap {
			e.Void.Offset = off
			off += e.Void.Length
		}
		entries[i] = e
		st.add(e, spd)
		st.MeasuredFromLower += b.fromLower
		if b.resumed {
			st.ResumedTiles++
		}
	}
	if codec == terrain.CodecPredictive {
		version = terrain.VersionV2
	}
	if withClutter {
		version = terrain.VersionV3
	}
	if withVoids {
		version = terrain.VersionV4
	}
	hi, err := terrain.MarshalHeaderIndex(terrain.Header{Version: version, SamplesPerDegree: spd, FileSize: off,
		Clutter: withClutter, VoidMask: withVoids}, entries)
	if err != nil {
		return Stats{}, err
	}
	tmp := out + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return Stats{}, fmt.Errorf("create: %w", err)
	}
	if err := writePack(f, hi, results); err != nil {
		f.Close()
		os.Remove(tmp)
		return Stats{}, err
	}
	if err := finish(f, tmp, out); err != nil {
		return Stats{}, err
	}
	st.FileBytes = off
	if st.SHA256, err = writeManifest(out); err != nil {
		return Stats{}, err
	}
	return st, nil
}

func writePack(f *os.File, hi []byte, results []built) error {
	if _, err := f.Write(hi); err != nil {
		return fmt.Errorf("write index: %w", err)
	}
	for _, b := range results {
		if b.partPath == "" {
			continue
		}
		if err := copyPayloads(f, b); err != nil {
			return fmt.Errorf("tile %s: %w", b.entry.Tile, err)
		}
	}
	return nil
}

// copyPayloads streams a part's height payload, its land-cover payload
// and its void-mask payload into w, checking their CRC32C.
func copyPayloads(w io.Writer, b built) error {
	pf, err := os.Open(b.partPath)
	if err != nil {
		return fmt.Errorf("open part: %w", err)
	}
	defer pf.Close()
	e := b.entry
	for _, sec := range [3]struct {
		off, length int64
		crc         uint32
	}{{partHeaderSize, e.Length, e.CRC}, {partHeaderSize + e.Length, e.Clutter.Length, e.Clutter.CRC},
		{partHeaderSize + e.Length + e.Clutter.Length, e.Void.Length, e.Void.CRC}} {
		if sec.length == 0 {
			continue
		}
		cw := &crcWriter{w: w}
		n, err := io.Copy(cw, io.NewSectionReader(pf, sec.off, sec.length))
		if err != nil {
			return fmt.Errorf("copy part: %w", err)
		}
		if n != sec.length || cw.crc != sec.crc {
			return fmt.Errorf("part %s is damaged (%d bytes, crc %08x, want %d, %08x): %w",
				b.partPath, n, cw.crc, sec.length, sec.crc, terrain.ErrCorrupt)
		}
	}
	return nil
}

type crcWriter struct {
	w   io.Writer
	crc uint32
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func (c *crcWriter) Write(p []byte) (int, error) {
	c.crc = crc32.Update(c.crc, castagnoli, p)
	return c.w.Write(p)
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
	st.VoidMaskBytes += e.Void.Length
	if st.Clutter {
		st.ClutterBytes += e.Clutter.Length
		if e.Kind != terrain.KindSea && e.Clutter.Codec == terrain.ClutterUniform && e.Clutter.Class == 0 {
			st.UncoveredTiles++
		}
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
	syncDir(filepath.Dir(out))
	return nil
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
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
