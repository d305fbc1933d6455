package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"linkplan/appliance/admission"
	"linkplan/appliance/ai"
	"linkplan/appliance/decodebudget"
	"linkplan/appliance/observations"
	"linkplan/appliance/prediction"
	"linkplan/appliance/refresh"
	"linkplan/web"
	"linkplan/web/api"
	"linkplan/web/console"
)

const serveUsage = `usage:
  linkplan serve [--addr HOST:PORT] [--data-dir DIR] [flags]
      run the appliance (API, web console) on the embedded sample data or the
      terrain packs and tower sources of DIR, until SIGINT or SIGTERM
`

func serve(ctx context.Context, args []string, stderr io.Writer) error {
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
	var sc ssoConfig
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
	billingSecret := fs.String("billing-webhook-secret-file", "", "file holding the payment provider's webhook signing secret (Stripe whsec_...); empty: POST /billing/webhook answers 503")
	queue := fs.String("queue", queueBBolt, "job queue: bbolt (the database; the default, see docs/SCALING.md) or jetstream (NATS JetStream: job leases, and work units for `linkplan worker` processes; the embedded server unless --nats)")
	var nc natsConfig
	nc.addFlags(fs, true)
	var packs, towerFiles multi
	fs.Var(&packs, "terrain", "terrain pack file (repeatable); default: the embedded Rio de Janeiro sample")
	fs.Var(&towerFiles, "towers", "tower file in any supported format (repeatable); default: the embedded sample towers")
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
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: lvl}))
	if len(envSet.Applied)+len(envSet.Overridden) > 0 {
		log.Info("settings from the environment", "vars", strings.Join(envSet.Applied, " "), "overridden_by_flags", strings.Join(envSet.Overridden, " "))
	}
	for _, name := range envSet.Unknown {
		log.Warn("environment variable names no serve setting; ignored (a typo in /etc/linkplan/linkplan.conf?)", "var", name)
	}
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
	if *queue != queueBBolt && *queue != queueJetStream {
		return fmt.Errorf("serve: --queue must be %s or %s, got %q: %w", queueBBolt, queueJetStream, *queue, errUsage)
	}
	if *queue == queueBBolt && (nc.URL != "" || nc.Cert != "") {
		return fmt.Errorf("serve: --nats and --nats-cert need --queue %s: %w", queueJetStream, errUsage)
	}
	if os.Getenv("GOMEMLIMIT") == "" && *memLimit > 0 {
		// A soft limit: the collector works harder near it, and the runtime
		// caps its GC CPU share, so a larger live catalogue still runs. The
		// heavy-work budget comes on top: admitted maps and jobs must not
		// drive the collector into a spin.
		debug.SetMemoryLimit((*memLimit + *heavyMiB) << 20)
	}

	con, err := console.New(console.Files())
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	a, err := boot(ctx, config{DataDir: *dataDir, Packs: packs, TowerFiles: towerFiles, RefreshInterval: *interval, RefractivityDir: *refrDir,
		SSO: sc, BillingSecret: *billingSecret, Log: log, DecodeBudget: *decodeMiB << 20, AI: aic, ModelEndpoint: modelEndpoint,
		Observations: observations.Config{RequireSignature: *requireSig, DedupWindow: *dedupWindow}, Heavy: heavy,
		Queue: *queue, NATS: nc})
	if err != nil {
		return err
	}
	defer a.close()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("serve: listen %s: %w", *addr, err)
	}
	if err := a.refresh.Start(ctx); err != nil {
		return err
	}
	if err := a.jobs.Start(ctx); err != nil {
		return err
	}
	slots := heavy.Workers
	if slots <= 0 {
		slots = max(1, runtime.GOMAXPROCS(0)-1) // as the heavy-work budget
	}
	a.stopWorker = a.startLocalWorker(slots)
	if err := a.quota.Start(ctx); err != nil {
		return err
	}
	if err := a.privacy.Start(ctx); err != nil {
		return err
	}
	if err := a.training.Start(ctx); err != nil {
		return err
	}
	a.api.SetState(api.StateReady)
	log.Info("linkplan serving", "addr", ln.Addr().String(), "version", version())
	err = web.New(withConsole(a.api, con), log).Serve(ctx, ln, func() {
		a.api.SetState(api.StateStopping)
		// Before the streams are cut: a map still queued or computing ends
		// "interrupted by a restart", not canceled by its stream leaving.
		a.maps.Close()
	})
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	log.Info("linkplan stopped")
	return err
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
