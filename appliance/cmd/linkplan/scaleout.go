package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/nats-io/nats.go"

	"linkplan/store/jsq"
)

// Queue backends (--queue).
const (
	queueBBolt     = "bbolt"
	queueJetStream = "jetstream"
)

// natsConfig is how serve reaches JetStream (--queue jetstream).
type natsConfig struct {
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

// addFlags declares the NATS flags on fs.
func (c *natsConfig) addFlags(fs *flag.FlagSet, embedded bool) {
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
func startNATS(ctx context.Context, dataDir string, c natsConfig, log *slog.Logger) (*natsLink, error) {
	l := &natsLink{cfg: jsq.Config{UnitAckWait: c.UnitAckWait}}
	start := time.Now()
	if c.URL == "" {
		var tc *tls.Config
		if c.Cert != "" {
			cert, err := tls.LoadX509KeyPair(c.Cert, c.Key)
			if err != nil {
				return nil, fmt.Errorf("--nats-cert: %w", err)
			}
			tc = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
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
