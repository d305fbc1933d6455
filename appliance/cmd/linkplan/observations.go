package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/user"

	"linkplan/appliance"
	"linkplan/appliance/observations"
	"linkplan/store"
)

const observationsUsage = `usage:
  linkplan observations consent --source NAME --basis TEXT (--apply | --withdraw) [--data-dir DIR]
      stamp the training consent of every stored observation of exactly one
      source (SPEC §3): --apply makes them consented, --withdraw refused.
      No wildcard and no --all: run it once per source. The change and its
      basis text are written to the audit log in the same transaction.
      It opens the database: stop the appliance first.
`

// observationsCmd runs the observations subcommands.
func observationsCmd(_ context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "consent" {
		fmt.Fprint(stderr, observationsUsage)
		return fmt.Errorf("observations: the subcommand is consent: %w", errUsage)
	}
	fs := newFlags("observations consent", stderr)
	dataDir := fs.String("data-dir", defaultDataDir(), "state directory (database)")
	source := fs.String("source", "", "the one source to stamp (e.g. drivetest_tems); no wildcard")
	basis := fs.String("basis", "", "the legal basis of the change (required, audited)")
	apply := fs.Bool("apply", false, "mark the source's rows consented")
	withdraw := fs.Bool("withdraw", false, "mark the source's rows refused")
	all := fs.Bool("all", false, "refused: consent is stamped per named source")
	if err := fs.Parse(args[1:]); err != nil || fs.NArg() != 0 {
		fmt.Fprint(stderr, observationsUsage)
		return fmt.Errorf("observations consent: %w", errUsage)
	}
	switch {
	case *all:
		return fmt.Errorf("observations consent: --all is refused: name one source with --source: %w", errUsage)
	case *apply == *withdraw:
		return fmt.Errorf("observations consent: give exactly one of --apply and --withdraw: %w", errUsage)
	case *source == "":
		return fmt.Errorf("observations consent: --source is required: %w", errUsage)
	}
	db, err := store.Open(*dataDir, store.Options{})
	if err != nil {
		if errors.Is(err, store.ErrLocked) {
			return fmt.Errorf("observations consent: the database is in use (stop the appliance first): %w", err)
		}
		return fmt.Errorf("observations consent: %w", err)
	}
	defer db.Close()
	operator := "operator"
	if u, err := user.Current(); err == nil {
		operator = "operator:" + u.Username
	}
	n, err := observations.StampConsent(db, *source, *basis, *apply, operator)
	if errors.Is(err, appliance.ErrInvalid) {
		return fmt.Errorf("observations consent: %v: %w", err, errUsage)
	}
	if err != nil {
		return fmt.Errorf("observations consent: %w", err)
	}
	state := "refused"
	if *apply {
		state = "consented"
	}
	fmt.Fprintf(stdout, "%d observations of source %s are now %s (audited)\n", n, *source, state)
	return nil
}
