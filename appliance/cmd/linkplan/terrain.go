package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"linkplan/appliance"
	"linkplan/terrain-packs/packer"
	"linkplan/terrain-packs/terrain"
)

const terrainUsage = `usage:
  linkplan terrain build --out PACK [--sea TILE,...] [--landcover TIF]... [--no-void-mask] INPUT...
                                      build a pack from SRTM .hgt(.zip|.gz) files and GeoTIFF DEMs, with an
                                      optional land-cover (clutter) layer from MapBiomas GeoTIFFs. INPUTs are
                                      in priority order: where several cover a tile, the first that measured
                                      a sample wins, so later DEMs fill the voids and NoData of earlier ones
                                      (e.g. SRTM v2.1 first, then a void-filled DEM or a survey); remaining
                                      .hgt voids are interpolated and marked in the pack's void mask.
                                      Other files among the INPUTs (README.txt, checksums, directories:
                                      DIR/* brings them) are skipped with a note on stderr
  linkplan terrain info PACK                                     print the pack summary as JSON
  linkplan terrain elevation --pack PACK LAT LON                 print the ground height in metres (a warning
                                                                 on stderr when it was interpolated across a void)
  linkplan terrain clutter --pack PACK LAT LON                   print the land-cover class as JSON
  linkplan terrain verify PACK                                   check every tile checksum and the manifest
`

func terrainCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, terrainUsage)
		return fmt.Errorf("terrain: a subcommand is required: %w", errUsage)
	}
	switch args[0] {
	case "build":
		return terrainBuild(ctx, args[1:], stdout, stderr)
	case "info":
		return terrainInfo(args[1:], stdout, stderr)
	case "elevation":
		return terrainElevation(args[1:], stdout, stderr)
	case "verify":
		return terrainVerify(ctx, args[1:], stdout, stderr)
	case "clutter":
		return terrainClutter(args[1:], stdout, stderr)
	}
	fmt.Fprint(stderr, terrainUsage)
	return fmt.Errorf("terrain: unknown subcommand %q: %w", args[0], errUsage)
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func terrainBuild(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("terrain build", stderr)
	out := fs.String("out", "", "output pack path")
	sea := fs.String("sea", "", "comma-separated tiles known to be open sea, e.g. S24W041,S24W042")
	spd := fs.Int("samples-per-degree", 0, "pack grid (1200 for 3\", 3600 for 1\"); 0 keeps the inputs' grid")
	quiet := fs.Bool("quiet", false, "no progress output")
	noVoidMask := fs.Bool("no-void-mask", false, "leave the void mask out (a pack older readers open, format 1 to 3; it cannot tell which heights were interpolated)")
	var landcover multi
	fs.Var(&landcover, "landcover", "MapBiomas land-cover GeoTIFF for the clutter layer (repeatable)")
	if err := fs.Parse(args); err != nil {
		fmt.Fprint(stderr, terrainUsage)
		return fmt.Errorf("terrain build: %w", errUsage)
	}
	if *out == "" || fs.NArg() == 0 && *sea == "" {
		fmt.Fprint(stderr, terrainUsage)
		return fmt.Errorf("terrain build: --out and at least one input are required: %w", errUsage)
	}
	opts := packer.Options{SamplesPerDegree: *spd, LandCover: landcover, NoVoidMask: *noVoidMask}
	if *sea != "" {
		opts.SeaTiles = strings.Split(*sea, ",")
	}
	if !*quiet {
		opts.Progress = func(p packer.Progress) {
			fmt.Fprintf(stderr, "[%d/%d] %s %s\n", p.Done, p.Total, p.Tile, p.Kind)
		}
	}
	// A shell glob (DIR/*) brings README files, checksums and directories
	// along: they are skipped with a note, the DEMs are built.
	var inputs []string
	for _, in := range fs.Args() {
		if why := packer.NotDEM(in); why != "" {
			fmt.Fprintf(stderr, "note: skipping %s: %s\n", in, why)
			continue
		}
		inputs = append(inputs, in)
	}
	if len(inputs) == 0 && fs.NArg() > 0 && *sea == "" {
		return fmt.Errorf("terrain build: none of the %d inputs is a DEM: %w", fs.NArg(), errUsage)
	}
	st, err := packer.Build(ctx, *out, inputs, opts)
	if err != nil {
		return fmt.Errorf("terrain build: %w", err)
	}
	return printJSON(stdout, st)
}

// packArg parses the one PACK operand of terrain info and verify (a flag
// set without flags: -h asks for help, "--" ends the flags).
func packArg(name string, args []string, stderr io.Writer) (string, error) {
	fs := newFlags(name, stderr)
	if err := fs.Parse(args); err != nil || fs.NArg() != 1 {
		fmt.Fprint(stderr, terrainUsage)
		return "", fmt.Errorf("%s: exactly one PACK is required: %w", name, errUsage)
	}
	return fs.Arg(0), nil
}

func terrainInfo(args []string, stdout, stderr io.Writer) error {
	path, err := packArg("terrain info", args, stderr)
	if err != nil {
		return err
	}
	p, err := terrain.Open(path)
	if err != nil {
		return fmt.Errorf("terrain info: %w", err)
	}
	defer p.Close()
	return printJSON(stdout, p.Info())
}

func terrainElevation(args []string, stdout, stderr io.Writer) error {
	path, pt, err := pointArgs("terrain elevation", args, stderr)
	if err != nil {
		return err
	}
	p, err := terrain.Open(path)
	if err != nil {
		return fmt.Errorf("terrain elevation: %w", err)
	}
	defer p.Close()
	h, err := p.ElevationM(pt)
	if err != nil {
		return fmt.Errorf("terrain elevation: %w", err)
	}
	// Every check before the height is printed: a failing void-mask read
	// leaves stdout empty, never a bare height without its warning.
	void, known, err := p.VoidStatusAt(pt)
	if err != nil {
		return fmt.Errorf("terrain elevation: %w", err)
	}
	fmt.Fprintf(stdout, "%.1f\n", h)
	switch {
	case void:
		fmt.Fprintf(stderr, "warning: the height at %g %g was interpolated across a void of the source DEM (void-filled); the real ground may be much higher\n", pt.Lat, pt.Lon)
	case !known:
		fmt.Fprintf(stderr, "warning: the pack has no void mask and the tile at %g %g had void-filled samples: this height may be interpolated across a DEM void; rebuild the pack to know\n", pt.Lat, pt.Lon)
	}
	return nil
}

// pointArgs parses "--pack PACK LAT LON" (negative numbers allowed).
func pointArgs(name string, args []string, stderr io.Writer) (string, appliance.LatLon, error) {
	fs := newFlags(name, stderr)
	pack := fs.String("pack", "", "pack path")
	rest, err := parseWithNumbers(fs, args)
	if err != nil || *pack == "" || len(rest) != 2 {
		fmt.Fprint(stderr, terrainUsage)
		return "", appliance.LatLon{}, fmt.Errorf("%s: --pack and LAT LON are required: %w", name, errUsage)
	}
	lat, err1 := strconv.ParseFloat(rest[0], 64)
	lon, err2 := strconv.ParseFloat(rest[1], 64)
	pt := appliance.LatLon{Lat: lat, Lon: lon}
	if err1 != nil || err2 != nil || !pt.Valid() {
		return "", pt, fmt.Errorf("%s: LAT LON must be degrees (-90..90, -180..180): %w", name, errUsage)
	}
	return *pack, pt, nil
}

func terrainClutter(args []string, stdout, stderr io.Writer) error {
	path, pt, err := pointArgs("terrain clutter", args, stderr)
	if err != nil {
		return err
	}
	p, err := terrain.Open(path)
	if err != nil {
		return fmt.Errorf("terrain clutter: %w", err)
	}
	defer p.Close()
	c, err := p.ClutterAt(pt)
	if err != nil {
		return fmt.Errorf("terrain clutter: %w", err)
	}
	return printJSON(stdout, map[string]any{"clutter_class": c.Class, "clutter_label": c.Label, "clutter_height_m": c.HeightM})
}

func terrainVerify(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	path, err := packArg("terrain verify", args, stderr)
	if err != nil {
		return err
	}
	rep, err := packer.Verify(ctx, path)
	if perr := printJSON(stdout, rep); perr != nil && err == nil {
		err = perr
	}
	if err != nil {
		return fmt.Errorf("terrain verify: %w", err)
	}
	return nil
}
