package assemble

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"linkplan/appliance"
	"linkplan/store/jsq"
	"linkplan/web/api"
)

// Queue backends (serve --queue).
const (
	QueueBBolt     = "bbolt"     // the job queue in the database
	QueueJetStream = "jetstream" // NATS JetStream leases and work units (store/jsq)
)

// NATSConfig is how serve reaches JetStream (--queue jetstream).
type NATSConfig struct {
	// URL of an external server (nats:// or tls://, user and password in
	// it); "" runs the embedded server in <data dir>/nats.
	URL string
	// Listen is the embedded server's client address (loopback by
	// default).
	Listen string
	// CA, Cert, Key: PEM files. With URL: the CA of the server's
	// certificate and a client certificate. Embedded: the server's
	// certificate and key (TLS required of workers), and the CA that
	// signs client certificates (then required too).
	CA, Cert, Key string
	// UnitAckWait is how long a worker may hold a unit without a
	// heartbeat (jsq.Config.UnitAckWait).
	UnitAckWait time.Duration
}

// AddFlags declares the NATS flags on fs.
func (c *NATSConfig) AddFlags(fs *flag.FlagSet, embedded bool) {
	fs.StringVar(&c.URL, "nats", "", "URL of an external NATS JetStream server (nats://user:password@host:4222 or tls://...); empty: the embedded server")
	fs.StringVar(&c.CA, "nats-ca", "", "PEM file of the CA of the NATS server's certificate (with --nats); of the workers' client certificates (embedded server)")
	fs.StringVar(&c.Cert, "nats-cert", "", "PEM certificate: the client's (with --nats), the embedded server's (TLS then required of workers)")
	fs.StringVar(&c.Key, "nats-key", "", "PEM key of --nats-cert")
	if embedded {
		fs.StringVar(&c.Listen, "nats-listen", jsq.DefaultListen, "client address of the embedded NATS server (--queue jetstream without --nats); loopback by default: give a routable address, with --nats-cert, for workers on other machines")
		fs.DurationVar(&c.UnitAckWait, "unit-ack-wait", jsq.DefaultUnitAckWait, "how long a worker may hold a work unit without a heartbeat before it is given to another")
	}
}

// natsLink is the connection to JetStream and, when embedded, its server.
type natsLink struct {
	nc     *nats.Conn
	server *jsq.Server // nil with an external server
	cfg    jsq.Config
	kind   string // "embedded" or "external"
}

// close closes the connection, then stops the embedded server.
func (l *natsLink) close() {
	if l == nil {
		return
	}
	if l.nc != nil {
		_ = l.nc.Drain()
		l.nc.Close()
	}
	if l.server != nil {
		l.server.Shutdown()
	}
}

// startNATS connects the appliance to JetStream: the embedded server in
// dataDir/nats (started here) or the external one, then sets up the
// streams, consumers and buckets.
func startNATS(ctx context.Context, dataDir string, c NATSConfig, log *slog.Logger) (*natsLink, error) {
	l := &natsLink{cfg: jsq.Config{UnitAckWait: c.UnitAckWait}}
	start := time.Now()
	if c.URL == "" {
		tc, err := ServerTLS(c)
		if err != nil {
			return nil, err
		}
		s, err := jsq.StartEmbedded(jsq.EmbeddedOptions{Dir: filepath.Join(dataDir, "nats"), Listen: c.Listen, TLS: tc})
		if err != nil {
			return nil, err
		}
		l.server, l.kind = s, "embedded"
		if l.nc, err = s.Connect("linkplan serve"); err != nil {
			s.Shutdown()
			return nil, err
		}
		// A local worker's URL, for `linkplan worker --nats "$(cat ...)"`
		// on this machine; its password is in credentials.json beside it.
		if err := os.WriteFile(filepath.Join(dataDir, "nats", "worker.url"), []byte(s.WorkerURL()+"\n"), 0o600); err != nil {
			l.close()
			return nil, fmt.Errorf("nats: worker URL file: %w", err)
		}
		log.Info("embedded NATS JetStream server started", "addr", s.Addr(), "store", filepath.Join(dataDir, "nats"),
			"worker_url_file", filepath.Join(dataDir, "nats", "worker.url"), "ms", time.Since(start).Milliseconds())
	} else {
		nc, err := jsq.Connect(c.URL, jsq.ConnectOptions{Name: "linkplan serve", CAFile: c.CA, CertFile: c.Cert, KeyFile: c.Key})
		if err != nil {
			return nil, err
		}
		l.nc, l.kind = nc, "external"
		log.Info("connected to the external NATS server", "url", nc.ConnectedUrlRedacted())
	}
	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := jsq.Setup(sctx, l.nc, l.cfg); err != nil {
		l.close()
		return nil, err
	}
	return l, nil
}

// startLocalWorker starts the appliance's own worker on the unit stream
// (--queue jetstream): the same runners as `linkplan worker`, slots
// goroutines, so that units are computed with no worker process at all.
// The returned function stops it and waits (its units finish first, at
// most a few seconds).
func (a *App) startLocalWorker(slots int) func() {
	if a.units == nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	host, _ := os.Hostname()
	go func() {
		defer close(done)
		err := jsq.RunWorker(ctx, a.nats.nc, a.nats.cfg, jsq.WorkerOptions{ID: "appliance@" + host, Version: a.cfg.Version, Slots: slots,
			Inputs: a.inputs.Inputs, Log: a.Log, Grace: 5 * time.Second,
			Run: func(ctx context.Context, u *appliance.WorkUnit) ([]byte, error) { return a.runners.Run(ctx, a.rec, u) }})
		if err != nil {
			a.Log.Error("the appliance's own unit worker stopped", "err", err)
		}
	}()
	return func() { cancel(); <-done }
}

// workerJSON is one worker in GET /health/ready's details.workers and
// /platform/maturity's workers dependency.
type workerJSON struct {
	ID      string `json:"id"`
	Host    string `json:"host"`
	Version string `json:"version"`
	State   string `json:"state"`            // ready, refusing, starting
	Reason  string `json:"reason,omitempty"` // why a refusing worker refuses
	Slots   int    `json:"slots"`
	Busy    int    `json:"busy"`
	Done    int64  `json:"units_done"`
	Failed  int64  `json:"units_failed"`
	Refused int64  `json:"units_refused"`
	Updated string `json:"updated"`
}

// scaleOutChecks are the readiness checks of --queue jetstream: the
// connection to the NATS server (not ready without it: no job or map can
// run), and the workers (advisory: a worker refusing work, with its
// reason; the appliance's own worker keeps computing).
func (a *App) scaleOutChecks() []api.Check {
	if a.nats == nil {
		return nil
	}
	var (
		mu   sync.Mutex
		last []workerJSON
	)
	list := func(ctx context.Context) ([]workerJSON, error) {
		st, err := jsq.Workers(ctx, a.nats.nc, a.nats.cfg)
		if err != nil {
			return nil, err
		}
		out := make([]workerJSON, len(st))
		for i, w := range st {
			out[i] = workerJSON{ID: w.ID, Host: w.Host, Version: w.Version, State: w.State, Reason: w.Reason, Slots: w.Slots,
				Busy: w.Busy, Done: w.Done, Failed: w.Failed, Refused: w.Refused, Updated: w.Updated.Format(time.RFC3339)}
		}
		return out, nil
	}
	kind := "embedded"
	if a.nats.server == nil {
		kind = "external"
	}
	return []api.Check{
		{Name: "nats", Kind: kind, Fn: func(context.Context) error {
			if st := a.nats.nc.Status(); st != nats.CONNECTED {
				return fmt.Errorf("not connected to the NATS server (%s): jobs and maps wait", st)
			}
			return nil
		}, Details: func() any {
			s := a.units.Stats()
			server := a.nats.nc.ConnectedUrlRedacted()
			if a.nats.server != nil {
				server = a.nats.server.Addr() // the appliance itself is connected in-process
			}
			return map[string]any{"mode": kind, "queue": QueueJetStream, "server": server,
				"units": map[string]int64{"published": s.Published.Load(), "merged": s.Merged.Load(), "duplicates_dropped": s.Duplicates.Load(),
					"stale_dropped": s.Stale.Load(), "failed": s.Failed.Load(), "compute_us": s.ComputeUS.Load(), "round_trip_us": s.RoundTripUS.Load(),
					"unit_bytes": s.UnitBytes.Load(), "result_bytes": s.ResultBytes.Load()}}
		}},
		{Name: "workers", Kind: "external", Advisory: true, Fn: func(ctx context.Context) error {
			ws, err := list(ctx)
			mu.Lock()
			last = ws
			mu.Unlock()
			if err != nil {
				return fmt.Errorf("worker list unreadable: %w", err)
			}
			var bad []string
			for _, w := range ws {
				if w.State == jsq.WorkerRefusing {
					bad = append(bad, fmt.Sprintf("worker %s refuses work: %s", w.ID, w.Reason))
				}
			}
			if len(bad) > 0 {
				return errors.New(strings.Join(bad, "; "))
			}
			return nil
		}, Details: func() any {
			mu.Lock()
			defer mu.Unlock()
			return map[string]any{"workers": append([]workerJSON{}, last...)}
		}},
	}
}

// ServerTLS is the embedded server's TLS configuration of c: its
// certificate, and the CA of client certificates when given; nil without
// a certificate.
func ServerTLS(c NATSConfig) (*tls.Config, error) {
	if c.Cert == "" {
		return nil, nil
	}
	cert, err := tls.LoadX509KeyPair(c.Cert, c.Key)
	if err != nil {
		return nil, fmt.Errorf("--nats-cert: %w", err)
	}
	tc := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	if c.CA != "" {
		pem, err := os.ReadFile(c.CA)
		if err != nil {
			return nil, fmt.Errorf("--nats-ca: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--nats-ca: %s holds no PEM certificate", c.CA)
		}
		tc.ClientCAs, tc.ClientAuth = pool, tls.RequireAndVerifyClientCert
	}
	return tc, nil
}
