package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"linkplan/appliance"
)

// Version is stamped at build time with -ldflags "-X main.Version=...".
var Version = ""

func version() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

const usage = `usage: linkplan <command> [flags]

commands:
  serve      run the appliance (API, console) on embedded or given data
  terrain    build | info | elevation | verify terrain packs
  predict    run a propagation engine on a case (endpoints or explicit profile)
  coverage   compute a coverage map offline and write it as a GeoTIFF (--site|--tower ... --out map.tif)
  towers     import tower files (Anatel, MOSAICO, OpenCelliD formats)
  admin      totp | totp-forget: admin TOTP codes without oathtool, move the secret to an authenticator
  observations consent | attest | dividends settle: training consent of one source's observations; attestation that they are field measurements; data dividend settlement
  model      train | eval: drive-test models (gradient boosting, grouped CV, conformal band) and their figures;
             retrain | synth: one retrain of the served models offline; synthetic pipeline-validation data
  calibrate  cv | eval: calibrate the engines against drive tests (blocked folds) and evaluate on held-out blocks
  worker     compute heavy work units for an appliance served with --queue jetstream (--nats URL)
  nats-server run the embedded NATS JetStream server on its own (for serve --nats URL)
  ptp        plan a point-to-point link offline: budget per mode, P.530 availability, PDF report (--from ... --to ...)
  itu        check: reproduce an ITU-R reference table (P.837, P.838, P.530, P.1510) with the product's implementation
  raytrace   eval: compare the raytrace engine, fspl and P.1411 with drive tests in a building layer
  raytrace-worker  the local raytrace worker process (started and supervised by serve)
  backup     write a verified backup of a data directory (asks a serving appliance over its admin socket)
  restore    replace a data directory's database by a verified backup (the appliance stopped)
  verify     verify a backup file (manifest, SHA-256, structure, schema)
  promote    turn a stopped warm standby (serve --standby-of) into a primary
  db         check: structural check of a database file
  version    print the version

exit status: 0 done, 1 failed, 2 usage, 3 unusable data (a corrupt database or backup, or a newer schema)
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run dispatches a command line and returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	if wantsHelp(args[1:]) {
		return help(ctx, args, stdout)
	}
	err := dispatch(ctx, args, stdout, stderr)
	if errors.Is(err, errUnknownCommand) {
		fmt.Fprintf(stderr, "linkplan: unknown command %q\n%s", args[0], usage)
		return 2
	}
	if err != nil {
		fmt.Fprintln(stderr, "linkplan:", err)
		switch {
		case isUsage(err):
			return 2
		case errors.Is(err, appliance.ErrCorrupt) || errors.Is(err, appliance.ErrNewerSchema):
			return 3 // the data is unusable by this binary: a corrupt file, or a newer schema
		}
		return 1
	}
	return 0
}

// dispatch runs the command that args name.
func dispatch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	switch args[0] {
	case "serve":
		return serve(ctx, args[1:], stderr)
	case "terrain":
		return terrainCmd(ctx, args[1:], stdout, stderr)
	case "predict":
		return predictCmd(ctx, args[1:], os.Stdin, stdout, stderr)
	case "coverage":
		return coverageCmd(ctx, args[1:], stdout, stderr)
	case "towers":
		return towersCmd(ctx, args[1:], stdout, stderr)
	case "admin":
		return adminCmd(ctx, args[1:], time.Now, stdout, stderr)
	case "observations":
		return observationsCmd(ctx, args[1:], stdout, stderr)
	case "raytrace":
		return raytraceCmd(ctx, args[1:], stdout, stderr)
	case "raytrace-worker":
		return raytraceWorkerCmd(ctx, args[1:], stderr)
	case "model":
		if len(args) > 1 && (args[1] == "retrain" || args[1] == "synth") {
			return modelTrainingCmd(ctx, args[1:], stdout, stderr)
		}
		return modelCmd(ctx, args[1:], time.Now, stdout, stderr)
	case "calibrate":
		return calibrateCmd(ctx, args[1:], stdout, stderr)
	case "worker":
		return workerCmd(ctx, args[1:], stderr)
	case "nats-server":
		return natsServerCmd(ctx, args[1:], stderr)
	case "itu":
		return ituCmd(ctx, args[1:], stdout, stderr)
	case "ptp":
		return ptpCmd(ctx, args[1:], stdout, stderr)
	case "backup":
		return backupCmd(ctx, args[1:], stdout, stderr)
	case "restore":
		return restoreCmd(ctx, args[1:], stdout, stderr)
	case "promote":
		return promoteCmd(ctx, args[1:], stdout, stderr)
	case "verify":
		return verifyCmd(ctx, args[1:], stdout, stderr)
	case "db":
		return dbCmd(ctx, args[1:], stdout, stderr)
	case "version", "--version", "-version":
		fmt.Fprintln(stdout, "linkplan", version())
		return nil
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	return fmt.Errorf("%q: %w", args[0], errUnknownCommand)
}

// errUnknownCommand is dispatch's answer to a command it does not know.
var errUnknownCommand = fmt.Errorf("unknown command: %w", errUsage)
