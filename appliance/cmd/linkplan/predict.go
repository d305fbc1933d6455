package main

import (
	"context"
	"fmt"
	"io"
	"linkplan/appliance/cmd/linkplan/assemble"
	"os"

	"linkplan/appliance"
	"linkplan/engines"
)

const predictUsage = `usage:
  linkplan predict [--engine ID] [--compare] [--terrain PACK]... [--refractivity-dir DIR] --input CASE.json
      run one engine (or every engine with --compare) on a case: two endpoints (terrain from the packs,
      default the embedded sample) or an explicit profile; format in engines/CASE_FORMAT.md. --input - reads stdin.
`

func predictCmd(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("predict", stderr)
	engine := fs.String("engine", "", "engine id (fspl, p1812, itm, p1411, p1812-p1411-hybrid, auto); overrides the case's")
	input := fs.String("input", "", "case file (JSON); - for standard input")
	compare := fs.Bool("compare", false, "run every available engine side by side")
	refr := fs.String("refractivity-dir", "", "directory with the ITU-R DN50.TXT and N050.TXT maps")
	var packs multi
	fs.Var(&packs, "terrain", "terrain pack (repeatable); default: the embedded sample")
	if err := fs.Parse(args); err != nil || *input == "" {
		fmt.Fprint(stderr, predictUsage)
		return fmt.Errorf("predict: --input is required: %w", errUsage)
	}
	var r io.Reader = stdin
	if *input != "-" {
		f, err := os.Open(*input)
		if err != nil {
			return fmt.Errorf("predict: %w", err)
		}
		defer f.Close()
		r = f
	}
	c, err := engines.ParseCase(r)
	if err != nil {
		return fmt.Errorf("predict: %w", err)
	}
	if *engine != "" {
		c.Engine = appliance.EngineID(*engine)
	}
	reg, err := engines.New(engines.Config{RefractivityDir: *refr})
	if err != nil {
		return fmt.Errorf("predict: %w", err)
	}
	var ter appliance.Terrain
	if c.Profile == nil {
		ts, _, err := assemble.OpenTerrain(packs)
		if err != nil {
			return err
		}
		defer func() {
			for _, p := range ts.Packs {
				_ = p.Close()
			}
		}()
		ter = ts
	}
	if *compare {
		rows, err := reg.CompareCase(ctx, c, ter)
		if err != nil {
			return fmt.Errorf("predict: %w", err)
		}
		return printJSON(stdout, rows)
	}
	res, err := reg.PredictCase(ctx, c, ter)
	if err != nil {
		return fmt.Errorf("predict: %w", err)
	}
	return printJSON(stdout, res)
}
