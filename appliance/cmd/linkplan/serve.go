package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/admission"
	"linkplan/appliance/ai"
	"linkplan/appliance/backup"
	"linkplan/appliance/basemap"
	"linkplan/appliance/cmd/linkplan/assemble"
	"linkplan/appliance/decodebudget"
	"linkplan/appliance/observations"
	"linkplan/appliance/prediction"
	"linkplan/appliance/refresh"
	"linkplan/appliance/standby"
	"linkplan/engines/raytrace/worker"
	"linkplan/store"
	"linkplan/web"
	"linkplan/web/api"
	"linkplan/web/console"
)

const serveUsage = `usage:
  linkplan serve [--addr HOST:PORT] [--data-dir DIR] [flags]
      run the appliance (API, web console) on the embedded sample data or the
      terrain packs and tower sources of DIR, until SIGINT or SIGTERM
`

func serve(ctx context.Context, args []string, stderr io.Writer) (err error) {
	fs := newFlags("serve", stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "listen address")
	dataDir := fs.String("data-dir", defaultDataDir(), "state directory (database, credentials)")
	logLevel := fs.String("log-level", "info", "debug, info, warn or error")
	interval := fs.Duration("refresh-interval", refresh.DefaultInterval, "time between tower source refreshes")
	memLimit := fs.Int64("memory-limit-mib", 320, "soft memory limit of the Go runtime, MiB (GOMEMLIMIT overrides; 0: none): keeps the first search-index build of a national catalogue under 400 MB resident")
	decodeMiB := fs.Int64("decode-budget-mib", decodebudget.DefaultLimit>>20, "memory all requests together may hold for decoding request bodies (JSON, multipart parts, gzip streams), MiB; past it a request answers 503 with Retry-After")
	refrDir := fs.String("refractivity-dir", "", "directory with the ITU-R DN50.TXT and N050.TXT maps (operator-supplied); default: documented Brazil values")
	requireSig := fs.Bool("observation-require-signature", os.Getenv("OBSERVATION_REQUIRE_SIGNATURE") == "true",
		"refuse unsigned observation batches with 401 (SPEC §5.3; default from OBSERVATION_REQUIRE_SIGNATURE=true)")
	dedupWindow := fs.Duration("observation-dedup-window", envSeconds("OBSERVATION_DEDUP_WINDOW_SEC", observations.DefaultDedupWindow),
		"time bucket of observation deduplication (SPEC §8.2; default from OBSERVATION_DEDUP_WINDOW_SEC, 60s)")
	var sc assemble.SSOConfig
	fs.StringVar(&sc.Issuer, "oidc-issuer", "", "OIDC issuer URL for single sign-on (bearer ID tokens, hosted login); empty: SSO off")
	fs.StringVar(&sc.ClientID, "oidc-client-id", "", "OIDC client id: the audience ID tokens must carry")
	fs.StringVar(&sc.ClientSecretFile, "oidc-client-secret-file", "", "file holding the OIDC client secret of the hosted login (empty: public client)")
	fs.StringVar(&sc.RedirectURL, "oidc-redirect-url", "", "hosted login callback URL registered at the issuer, e.g. https://host/auth/oidc/callback")
	fs.StringVar(&sc.JWKSFile, "oidc-jwks-file", "", "air-gapped sites: the issuer's JSON Web Key Set file; ID tokens are verified against it without contacting the issuer")
	var aic aiConfig
	fs.StringVar(&aic.ProviderURL, "ai-provider-url", "", "root URL of a self-hosted OpenAI-compatible chat-completions server for the AI routes (llama.cpp llama-server, e.g. http://127.0.0.1:8081; Ollama, e.g. http://127.0.0.1:11434); empty: the built-in template explainer only, no outbound call")
	fs.StringVar(&aic.Model, "ai-model", "", "model name the provider answers with (required with --ai-provider-url), e.g. qwen2.5:7b-instruct")
	fs.DurationVar(&aic.Timeout, "ai-timeout", ai.DefaultTimeout, "longest wait for one provider answer; past it the template explanation is given")
	cpuProfile := fs.String("cpuprofile", "", "write a Go CPU profile of the whole run to this file, ended at shutdown (go tool pprof); a local file for the operator: no HTTP route serves profiles")
	var modelEndpoint prediction.External
	fs.StringVar(&modelEndpoint.URL, "model-endpoint-url", os.Getenv("MODEL_ENDPOINT_URL"),
		"external model endpoint of POST /coverage/predict, asked first (JSON POST; down, slow or malformed: the local models answer); default from MODEL_ENDPOINT_URL; empty: none")
	fs.DurationVar(&modelEndpoint.Timeout, "model-endpoint-timeout", prediction.DefaultExternalTimeout, "longest wait for one external model endpoint answer")
	var heavy admission.Options
	fs.IntVar(&heavy.Workers, "heavy-workers", 0, "worker goroutines of heavy work in all (coverage maps, batch and repeater jobs); 0: GOMAXPROCS-1, at least 1, so that a core stays for /health and the other cheap routes")
	fs.IntVar(&heavy.MaxQueue, "heavy-queue", admission.DefaultMaxQueue, "heavy work waiting for the budget in all; a map start beyond it is a 503 with Retry-After")
	heavyMiB := fs.Int64("heavy-memory-mib", admission.DefaultMemBytes>>20, "memory budget of heavy work, MiB: maps and jobs wait in a queue beyond it (the Go soft memory limit is raised by as much)")
	rtWorker := fs.Bool("raytrace-worker", true, "start and supervise the local raytrace worker (linkplan raytrace-worker) for the raytrace engine's jobs and maps; false: requests that name engine raytrace answer 503")
	billingSecret := fs.String("billing-webhook-secret-file", "", "file holding the payment provider's webhook signing secret (Stripe whsec_...); empty: POST /billing/webhook answers 503")
	var bk assemble.BackupConfig
	fs.StringVar(&bk.Dir, "backup-dir", "", "directory of the scheduled backups (created, mode 0700): a verified backup every --backup-every, the newest --backup-keep kept; empty: no schedule (linkplan backup and POST /admin/backup still work). Also where the pre-migration backup goes (default DATA-DIR/backups)")
	fs.DurationVar(&bk.Every, "backup-every", backup.DefaultEvery, "interval of the scheduled backups (at least 1s); /health/ready reports them stale past two intervals")
	fs.IntVar(&bk.Keep, "backup-keep", backup.DefaultKeep, "scheduled backups kept by the rotation (at least 1)")
	var sb standbyConfig
	fs.StringVar(&sb.Of, "standby-of", "", "run as a warm standby of the primary at this URL (e.g. https://primary.example:8080): pull a verified snapshot every --standby-every into DATA/standby, serve /health and /health/failover only, refuse every other request with 409 until promoted (linkplan promote); empty: a primary")
	fs.StringVar(&sb.Key, "standby-key", "", "the standby key the primary's admin issued (POST /admin/standby-key on the primary); required with --standby-of. Prefer LINKPLAN_STANDBY_KEY in /etc/linkplan/linkplan.conf to the command line")
	fs.DurationVar(&sb.Every, "standby-every", standby.DefaultEvery, "interval of the standby's pulls (at least 1s): a promotion loses at most the writes of the last interval plus one pull's duration (the RPO, docs/OPERATIONS.md)")
	dbCheck := fs.Bool("db-check", true, "check the database file's structure before opening it (one pass over the file: 0.2 to 0.7 s per 100 MB measured, docs/OPERATIONS.md) and refuse to start on a corrupt one")
	queue := fs.String("queue", assemble.QueueBBolt, "job queue: bbolt (the database; the default, see docs/SCALING.md) or jetstream (NATS JetStream: job leases, and work units for 'linkplan worker' processes; the embedded server unless --nats)")
	var nc assemble.NATSConfig
	nc.AddFlags(fs, true)
	var packs, towerFiles multi
	fs.Var(&packs, "terrain", "terrain pack file (repeatable); default: the embedded Rio de Janeiro sample")
	fs.Var(&towerFiles, "towers", "tower file in any supported format (repeatable); default: the embedded sample towers")
	basemapFile := fs.String("basemap", "", "PMTiles archive (version 3) of raster (PNG, JPEG, WebP) or vector (MVT) tiles served same-origin at /basemap/ext/{z}/{x}/{y} as the console's basemap, e.g. an OpenStreetMap extract of the state made once with 'pmtiles extract' (docs/OPERATIONS.md); vector archives are drawn by the appliance into PNG tiles (/basemap/ext/raster/...) with place labels; empty: the terrain basemap alone")
	flagsUsage := fs.Usage
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), serveUsage)
		flagsUsage()
	}
	// Every flag may also come from LINKPLAN_<FLAG> (the packaged unit's
	// /etc/linkplan/linkplan.conf); the command line wins.
	envSet, err := parseWithEnv(fs, args, os.Environ())
	if errors.Is(err, errUsage) {
		return fmt.Errorf("serve: %w", err)
	} else if err != nil {
		return fmt.Errorf("serve: %w", errUsage)
	}
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(*logLevel)); err != nil {
		return fmt.Errorf("serve: --log-level: %w", errUsage)
	}
	if *interval < 1e9 {
		return fmt.Errorf("serve: --refresh-interval must be at least 1s: %w", errUsage)
	}
	if bk.Every < backup.MinEvery || bk.Keep < 1 {
		return fmt.Errorf("serve: --backup-every must be at least %v and --backup-keep at least 1: %w", backup.MinEvery, errUsage)
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: lvl}))
	log.Info("linkplan starting", "version", version(), "data_dir", filepath.Clean(*dataDir), "pid", os.Getpid())
	if len(envSet.Applied)+len(envSet.Overridden) > 0 {
		log.Info("settings from the environment", "vars", strings.Join(envSet.Applied, " "), "overridden_by_flags", strings.Join(envSet.Overridden, " "))
	}
	for _, name := range envSet.Unknown {
		log.Warn("environment variable names no serve setting; ignored (a typo in /etc/linkplan/linkplan.conf?)", "var", name)
	}
	// A SIGTERM or SIGINT at any moment of the start-up is a clean stop:
	// whatever step it interrupted returns the context's error, which is
	// not a failure (issue 21, scope 8).
	step := "start-up"
	defer func() {
		if err != nil && ctx.Err() != nil {
			log.Info("linkplan stopped by a signal during start-up", "step", step)
			log.Debug("interrupted start-up step", "err", err)
			err = nil
		}
	}()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return fmt.Errorf("serve: --cpuprofile: %v: %w", err, errUsage)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("serve: --cpuprofile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	if *decodeMiB < 1 {
		return fmt.Errorf("serve: --decode-budget-mib must be at least 1: %w", errUsage)
	}
	if *memLimit < 0 {
		return fmt.Errorf("serve: --memory-limit-mib must be >= 0: %w", errUsage)
	}
	if *heavyMiB <= 0 || heavy.Workers < 0 || heavy.MaxQueue <= 0 {
		return fmt.Errorf("serve: --heavy-memory-mib and --heavy-queue must be > 0, --heavy-workers >= 0: %w", errUsage)
	}
	heavy.MemBytes = *heavyMiB << 20
	if *queue != assemble.QueueBBolt && *queue != assemble.QueueJetStream {
		return fmt.Errorf("serve: --queue must be %s or %s, got %q: %w", assemble.QueueBBolt, assemble.QueueJetStream, *queue, errUsage)
	}
	if *queue == assemble.QueueBBolt && (nc.URL != "" || nc.Cert != "") {
		return fmt.Errorf("serve: --nats and --nats-cert need --queue %s: %w", assemble.QueueJetStream, errUsage)
	}
	if os.Getenv("GOMEMLIMIT") == "" && *memLimit > 0 {
		// A soft limit: the collector works harder near it, and the runtime
		// caps its GC CPU share, so a larger live catalogue still runs. The
		// heavy-work budget comes on top: admitted maps and jobs must not
		// drive the collector into a spin.
		debug.SetMemoryLimit((*memLimit + *heavyMiB) << 20)
	}

	if sb.Of != "" {
		if sb.Every < standby.MinEvery {
			return fmt.Errorf("serve: --standby-every must be at least %v: %w", standby.MinEvery, errUsage)
		}
		if sb.Key == "" {
			return fmt.Errorf("serve: --standby-of needs --standby-key (issued on the primary: POST /admin/standby-key): %w", errUsage)
		}
		step = "warm standby"
		return serveStandby(ctx, *addr, *dataDir, sb, packs, towerFiles, log)
	}
	if err := standby.CheckPrimaryStart(*dataDir); err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	con, err := console.New(console.Files())
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	if *dbCheck {
		step = "database check"
		if err := checkAtStart(ctx, *dataDir, log); err != nil {
			return err
		}
	}
	aiProvider, err := aic.provider()
	if err != nil {
		return err
	}
	var ext *basemap.External
	if *basemapFile != "" {
		step = "basemap archive"
		if ext, err = basemap.OpenExternal(*basemapFile); err != nil {
			return fmt.Errorf("serve: --basemap: %w", err)
		}
		defer ext.Close()
		in := ext.Info()
		log.Info("basemap archive", "file", *basemapFile, "tile_type", in.TileType, "zooms", fmt.Sprintf("%d..%d", in.MinZoom, in.MaxZoom), "drawn_by_console", in.Drawn)
	}
	cfg := assemble.Config{DataDir: *dataDir, Packs: packs, Basemap: ext, TowerFiles: towerFiles, RefreshInterval: *interval, RefractivityDir: *refrDir,
		SSO: sc, BillingSecret: *billingSecret, Log: log, Version: version(), DecodeBudget: *decodeMiB << 20, AI: aiProvider,
		ModelEndpoint: modelEndpoint, Backup: bk, CheckDB: checkIsolated,
		Observations: observations.Config{RequireSignature: *requireSig, DedupWindow: *dedupWindow}, Heavy: heavy,
		Queue: *queue, NATS: nc}
	if *rtWorker {
		rc := raytraceWorkerConfig{LogLevel: *logLevel, Stderr: stderr}
		cfg.Raytrace.NewWorker = func(onUp func(bool), onRestart func()) (*worker.Supervisor, func(), error) {
			return newRaytraceSupervisor(*dataDir, rc, log, onUp, onRestart)
		}
	}
	// A busy address is refused before anything is created or loaded (the
	// database, the admin credentials, the towers): the port is tried, let
	// go, and taken for good after the assembly.
	probe, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("serve: listen %s: %w", *addr, err)
	}
	_ = probe.Close()
	step = "assembly (database, terrain, towers, indexes, engines)"
	a, err := assemble.New(ctx, cfg)
	if err != nil {
		return err
	}
	served := false
	defer func() {
		a.Stop()
		if served { // the last line, once everything (the database last) is released
			log.Info("linkplan stopped")
		}
	}()
	step = "listen"
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("serve: listen %s: %w", *addr, err)
	}
	// The admin socket: linkplan backup asks the serving appliance through
	// it. Without one (a path too long for a socket address) the appliance
	// serves, and says why.
	if sock, err := listenAdminSocket(*dataDir, a.Backups, log); err != nil {
		log.Warn("no admin socket: linkplan backup cannot reach this appliance (POST /admin/backup still works)", "err", err)
	} else {
		defer sock.close()
	}
	step = "services"
	if err := a.Start(ctx); err != nil {
		return err
	}
	step = "serving"
	a.API.SetState(api.StateReady)
	log.Info("linkplan serving", "addr", ln.Addr().String(), "version", version())
	err = web.New(withConsole(a.API, con), log).Serve(ctx, ln, a.Stopping)
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	served = true
	return err
}

// checkStartError is serve's error for the start-up check's error err
// on the database file path of dataDir (nil: none).
func checkStartError(dataDir, path string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, store.ErrLocked):
		return fmt.Errorf("serve: %w", err)
	case errors.Is(err, appliance.ErrCorrupt):
		return fmt.Errorf("serve: the database file %s is corrupt: %w; restore a backup: linkplan restore --from FILE --data-dir %s (docs/OPERATIONS.md)", path, err, dataDir)
	case errors.Is(err, fs.ErrPermission):
		// Not a verdict on the file: another restore would not help.
		return fmt.Errorf("serve: cannot open %s: %w: %s", path, fs.ErrPermission, ownershipRemedy(dataDir))
	}
	return fmt.Errorf("serve: cannot check %s: %w", path, err)
}

// ownershipRemedy says what to do when serve may not open a file of
// dataDir (a restore or promote run as root by an older linkplan, a copy
// made as root): the Debian package's unit serves as the linkplan user.
func ownershipRemedy(dataDir string) string {
	return fmt.Sprintf("the data directory and its files must belong to the user serve runs as (chown -R linkplan:linkplan %s for the packaged service)", dataDir)
}

// envSeconds reads a whole number of seconds from the environment
// variable name, or returns def when it is unset or not a positive number.
func envSeconds(name string, def time.Duration) time.Duration {
	n, err := strconv.Atoi(os.Getenv(name))
	if err != nil || n <= 0 {
		return def
	}
	return time.Duration(n) * time.Second
}

// defaultDataDir is systemd's $STATE_DIRECTORY when set, else ./.data.
func defaultDataDir() string {
	if d := os.Getenv("STATE_DIRECTORY"); d != "" {
		return strings.Split(d, ":")[0]
	}
	return filepath.Join(".", ".data")
}

// checkAtStart checks the database file of dataDir in a child process
// (checkIsolated) before anything opens it: a corrupt file stops the
// start with a clear log line and exit status 3, never a panic and never
// a "database ok"; a file serve may not open (permission denied) or read
// is no verdict: exit status 1, naming the data directory's ownership. A
// missing file is a new data directory.
func checkAtStart(ctx context.Context, dataDir string, log *slog.Logger) error {
	path := filepath.Join(dataDir, store.FileName)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		log.Info("no database yet: a new one is created", "file", path)
		return nil
	} else if errors.Is(err, fs.ErrPermission) {
		return checkStartError(dataDir, path, err)
	}
	rep, err := checkIsolated(ctx, path)
	if ctx.Err() != nil {
		return err
	}
	if err == nil && len(rep.Problems) > 0 {
		err = fmt.Errorf("%d problem(s), the first: %s: %w", len(rep.Problems), rep.Problems[0], appliance.ErrCorrupt)
	}
	switch {
	case errors.Is(err, appliance.ErrCorrupt):
		log.Error("the database file is corrupt: refusing to start; restore a backup (linkplan restore, docs/OPERATIONS.md)",
			"file", path, "reason", err.Error())
		return checkStartError(dataDir, path, err)
	case err != nil && !errors.Is(err, store.ErrLocked):
		serr := checkStartError(dataDir, path, err)
		log.Error("cannot open the database file: refusing to start", "file", path, "reason", serr.Error())
		return serr
	case err != nil:
		return checkStartError(dataDir, path, err)
	}
	log.Info("database checked", "file", path, "bytes", rep.Bytes, "pages", rep.Pages, "schema_version", rep.Schema,
		"took", time.Duration(rep.DurationS*float64(time.Second)).Round(time.Millisecond).String())
	return nil
}
