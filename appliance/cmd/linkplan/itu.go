package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"linkplan/appliance"
	"linkplan/engines/itur"
	"linkplan/engines/itur/refcheck"
)

const ituUsage = `usage:
  linkplan itu check --cases FILE [--kind KIND] [--verbose]
      evaluate every row of an ITU-R reference table with the product's own
      ITU-R implementation (engines/itur: P.837-7 Annex 1, P.838-3,
      P.530-17, P.1510-1 and P.453 on the embedded maps) and compare each
      reference value with it, within the tolerance of its column
      (engines/itur/refcheck). Prints the failing values, then one line
      cases=N failed=N skipped=N max_abs_err=X
      (N rows; the rows with a failing value; the rows skipped; the largest
      |error| over every compared value, in each column's unit).
      The embedded maps cover Brazil only (latitude -34..6, longitude
      -75..-33): a row whose point lies outside them is SKIPPED, neither
      passed nor failed (the rows checked are cases - skipped); --verbose
      prints each skipped row and why. Tables without maps (P.838) are
      checked whole. Exits 1 when a row fails, 2 on a usage error or a file
      that is not a reference table; skipped rows alone do not fail.
      The kind of table is recognised from its header row: the ITU-Rpy
      Brazil tables (p837_rainfall_rate_brazil, grid_lookup_brazil,
      p838_specific_attenuation, p530_links_brazil) and the ITU-R SG3
      validation examples (ITURP837-7_rainfall_rate, _R001, _probability,
      ITURP838-3_rain_specific_attenuation, ITURP1510-1_temperature; two
      header lines, units in Latin-1). The two P.837 tables with the header
      lat,lon,p,Rp are told apart by "R001" in the file name, or by --kind.
`

// ituCmd runs the itu subcommands. Asked for help with -h, -help or --help
// (as `linkplan ... --help` does, help.go), it prints its usage on stdout
// and returns flag.ErrHelp.
func ituCmd(_ context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, ituUsage)
		return fmt.Errorf("itu: a subcommand is required (check): %w", errUsage)
	}
	switch args[0] {
	case "help":
		fmt.Fprint(stdout, ituUsage)
		return nil
	case "-h", "-help", "--help":
		fmt.Fprint(stdout, ituUsage)
		return fmt.Errorf("itu: %w", flag.ErrHelp)
	}
	if args[0] != "check" {
		fmt.Fprint(stderr, ituUsage)
		return fmt.Errorf("itu: unknown subcommand %q (check): %w", args[0], errUsage)
	}
	fs := newFlags("itu check", stderr)
	fs.Usage = func() { fmt.Fprint(fs.Output(), ituUsage) }
	cases := fs.String("cases", "", "reference CSV file to check (required)")
	kind := fs.String("kind", "", "force the table kind: "+kindList())
	verbose := fs.Bool("verbose", false, "also print every skipped row with its reason, and the largest error of every column")
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, ituUsage)
			fmt.Fprintln(stdout, "flags of linkplan itu check:")
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return fmt.Errorf("itu check: %w", flag.ErrHelp)
		}
		fmt.Fprint(stderr, ituUsage)
		return fmt.Errorf("itu check: %v: %w", err, errUsage)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("itu check: unexpected argument %q (the file goes in --cases): %w", fs.Arg(0), errUsage)
	}
	if *cases == "" {
		return fmt.Errorf("itu check: --cases FILE is required: %w", errUsage)
	}
	if *kind != "" && !validKind(*kind) {
		return fmt.Errorf("itu check: --kind %q: one of %s: %w", *kind, kindList(), errUsage)
	}
	f, err := os.Open(*cases)
	if err != nil {
		return fmt.Errorf("itu check: %w", err)
	}
	defer f.Close()
	tab, err := refcheck.Read(f, filepath.Base(*cases), refcheck.Kind(*kind))
	if err != nil {
		if errors.Is(err, appliance.ErrInvalid) {
			return fmt.Errorf("itu check: %s: %v: %w", *cases, err, errUsage)
		}
		return fmt.Errorf("itu check: %s: %w", *cases, err)
	}
	maps, err := itur.LoadMaps()
	if err != nil {
		return fmt.Errorf("itu check: %w", err)
	}
	res := refcheck.Check(maps, tab)
	for _, fl := range res.Failures {
		fmt.Fprintln(stdout, fl)
	}
	if *verbose {
		for _, sk := range res.Skips {
			fmt.Fprintln(stdout, sk)
		}
		fmt.Fprintf(stderr, "kind %s\n", res.Kind)
		for _, c := range res.Columns {
			fmt.Fprintf(stderr, "  %-36s n=%-4d max_abs_err=%.3g max_rel_err=%.3g\n", c.Column, c.Values, c.MaxAbsErr, c.MaxRelErr)
		}
	}
	fmt.Fprintln(stdout, res.Summary())
	if res.Failed > 0 {
		return fmt.Errorf("itu check: %d of %d rows failed", res.Failed, res.Cases)
	}
	return nil
}

func kindList() string {
	s := make([]string, len(refcheck.Kinds))
	for i, k := range refcheck.Kinds {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

func validKind(k string) bool {
	for _, x := range refcheck.Kinds {
		if string(x) == k {
			return true
		}
	}
	return false
}
