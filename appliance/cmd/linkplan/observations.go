package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/user"
	"time"

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
  linkplan observations attest --source NAME --basis TEXT [--withdraw] [--data-dir DIR]
      attest that the stored rows of exactly one source are field
      measurements: only attested rows count as real data for a model's
      grade and field-accuracy claim (GET /coverage/model/info,
      /health/audit-gate); a source label a tenant chose never does. It
      covers the rows of the source stored now (rows stored later need
      another attestation), prints how many, and is audited with its basis
      in the same transaction. --withdraw reverses it: the next retrain
      counts the rows as unattested, and a served model trained on them
      stops claiming at the next start. No wildcard and no --all; the
      source synthetic (the generator's) is refused. It opens the
      database: stop the appliance first.
  linkplan observations dividends settle [--data-dir DIR]
      settle every unsettled data dividend event (SPEC §2.13) at the
      operator's policy: DATA_DIVIDEND_FORM (invoice_credit, tier_discount or
      payout) and DATA_DIVIDEND_RATE_BRL_PER_EVENT (> 0) from the
      environment. Without both it is refused and nothing changes. Audited.
`

// observationsCmd runs the observations subcommands.
func observationsCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) >= 2 && args[0] == "dividends" && args[1] == "settle" {
		return settleCmd(ctx, args[2:], stdout, stderr)
	}
	if len(args) >= 1 && args[0] == "attest" {
		return attestCmd(ctx, args[1:], stdout, stderr)
	}
	if len(args) == 0 || args[0] != "consent" {
		fmt.Fprint(stderr, observationsUsage)
		return fmt.Errorf("observations: the subcommands are consent, attest and dividends settle: %w", errUsage)
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
	db, err := openOffline(ctx, *dataDir, offlineOptions{}, stderr)
	if err != nil {
		if errors.Is(err, store.ErrLocked) {
			return fmt.Errorf("observations consent: the database is in use (stop the appliance first): %w", err)
		}
		return fmt.Errorf("observations consent: %w", err)
	}
	defer db.Close()
	n, err := observations.StampConsent(db, *source, *basis, *apply, operatorName())
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

// attestCmd is linkplan observations attest.
func attestCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("observations attest", stderr)
	dataDir := fs.String("data-dir", defaultDataDir(), "state directory (database)")
	source := fs.String("source", "", "the one source to attest (e.g. drivetest_tems); no wildcard")
	basis := fs.String("basis", "", "why the rows are field measurements, or why the attestation is withdrawn (required, audited)")
	withdraw := fs.Bool("withdraw", false, "withdraw the source's attestation")
	all := fs.Bool("all", false, "refused: attestation is per named source")
	if err := fs.Parse(args); err != nil || fs.NArg() != 0 {
		fmt.Fprint(stderr, observationsUsage)
		return fmt.Errorf("observations attest: %w", errUsage)
	}
	switch {
	case *all:
		return fmt.Errorf("observations attest: --all is refused: name one source with --source: %w", errUsage)
	case *source == "":
		return fmt.Errorf("observations attest: --source is required: %w", errUsage)
	}
	db, err := openOffline(ctx, *dataDir, offlineOptions{}, stderr)
	if err != nil {
		if errors.Is(err, store.ErrLocked) {
			return fmt.Errorf("observations attest: the database is in use (stop the appliance first): %w", err)
		}
		return fmt.Errorf("observations attest: %w", err)
	}
	defer db.Close()
	a, err := observations.AttestSource(db, *source, *basis, *withdraw, operatorName(), time.Now())
	if errors.Is(err, appliance.ErrInvalid) {
		return fmt.Errorf("observations attest: %v: %w", err, errUsage)
	}
	if err != nil {
		return fmt.Errorf("observations attest: %w", err)
	}
	if *withdraw {
		fmt.Fprintf(stdout, "the attestation of source %s is withdrawn (audited): its %d rows no longer count as field measurements from the next retrain, and a served model trained on them stops claiming at the next start\n", a.Source, a.Rows)
		return nil
	}
	fmt.Fprintf(stdout, "%d stored observations of source %s are attested as field measurements (audited); rows stored later need another attestation\n", a.Rows, a.Source)
	return nil
}

// operatorName names the operator running a CLI command in audit rows.
func operatorName() string {
	if u, err := user.Current(); err == nil {
		return "operator:" + u.Username
	}
	return "operator"
}

// settleCmd is linkplan observations dividends settle.
func settleCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("observations dividends settle", stderr)
	dataDir := fs.String("data-dir", defaultDataDir(), "state directory (database)")
	if err := fs.Parse(args); err != nil || fs.NArg() != 0 {
		fmt.Fprint(stderr, observationsUsage)
		return fmt.Errorf("observations dividends settle: %w", errUsage)
	}
	form, rate := os.Getenv(observations.EnvDividendForm), os.Getenv(observations.EnvDividendRate)
	// The policy is checked before the database is opened: a refusal
	// changes nothing and needs no stopped appliance.
	if _, err := observations.DividendPolicy(form, rate); err != nil {
		return fmt.Errorf("observations dividends settle: %w", err)
	}
	db, err := openOffline(ctx, *dataDir, offlineOptions{}, stderr)
	if err != nil {
		if errors.Is(err, store.ErrLocked) {
			return fmt.Errorf("observations dividends settle: the database is in use (stop the appliance first): %w", err)
		}
		return fmt.Errorf("observations dividends settle: %w", err)
	}
	defer db.Close()
	n, err := observations.SettleDividends(db, form, rate, operatorName(), time.Now())
	if err != nil {
		return fmt.Errorf("observations dividends settle: %w", err)
	}
	fmt.Fprintf(stdout, "%d data dividend events settled as %s (audited)\n", n, form)
	return nil
}
