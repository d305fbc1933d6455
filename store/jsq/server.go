package jsq

import (
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// Users of the embedded server. The appliance may do anything; a worker
// may only pull units, acknowledge them, publish results and its status,
// and read the announced inputs (WorkerPermissions).
const (
	ApplianceUser = "appliance"
	WorkerUser    = "worker"
)

// EmbeddedOptions configure StartEmbedded.
type EmbeddedOptions struct {
	// Dir holds the server's JetStream files and its credentials
	// (credentials.json, mode 0600); created when missing.
	Dir string
	// Listen is the client address, HOST:PORT; "" is DefaultListen.
	// Port 0 picks a free port (tests).
	Listen string
	// TLS, when set, is required of every client connection over TCP
	// (the appliance's own connection is in-process).
	TLS *tls.Config
	// MaxStoreBytes bounds the JetStream file store; 0 is
	// DefaultMaxStoreBytes.
	MaxStoreBytes int64
	// Prefix names the streams (Config.Prefix); "" is DefaultPrefix.
	Prefix string
}

// DefaultListen is the embedded server's address: loopback only, so that
// a single box exposes nothing; give a routable address (with TLS) for
// workers on other machines.
const DefaultListen = "127.0.0.1:4222"

// DefaultMaxStoreBytes bounds the embedded server's JetStream files:
// units and results are small and short-lived (1 GiB).
const DefaultMaxStoreBytes = 1 << 30

// Server is the embedded NATS server with JetStream.
type Server struct {
	ns    *server.Server
	creds Credentials
	tls   bool
}

// Credentials are the passwords of the embedded server's users, kept in
// <Dir>/credentials.json (mode 0600) so that workers can be given theirs
// and a restart keeps them.
type Credentials struct {
	AppliancePassword string `json:"appliance_password"`
	WorkerPassword    string `json:"worker_password"`
}

func randomSecret() (string, error) {
	var b [24]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

// loadCredentials reads <dir>/credentials.json, or writes new random ones.
func loadCredentials(dir string) (Credentials, error) {
	path := filepath.Join(dir, "credentials.json")
	var c Credentials
	raw, err := os.ReadFile(path)
	switch {
	case err == nil:
		if err := json.Unmarshal(raw, &c); err != nil || c.AppliancePassword == "" || c.WorkerPassword == "" {
			return c, fmt.Errorf("nats credentials %s: unreadable (remove it to make new ones): %v", path, err)
		}
		return c, nil
	case !errors.Is(err, os.ErrNotExist):
		return c, fmt.Errorf("nats credentials: %w", err)
	}
	if c.AppliancePassword, err = randomSecret(); err != nil {
		return c, fmt.Errorf("nats credentials: %w", err)
	}
	if c.WorkerPassword, err = randomSecret(); err != nil {
		return c, fmt.Errorf("nats credentials: %w", err)
	}
	raw, _ = json.MarshalIndent(c, "", "  ")
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(raw, '\n'), 0o600); err != nil {
		return c, fmt.Errorf("nats credentials: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return c, fmt.Errorf("nats credentials: %w", err)
	}
	return c, nil
}

// WorkerPermissions are what the worker user may do on the server: pull
// and acknowledge units of its consumer, publish results and its status,
// read the announced inputs. It cannot publish units, read results,
// create or delete streams, or subscribe to anything but its inboxes.
func WorkerPermissions(prefix string) *server.Permissions {
	p := prefix
	return &server.Permissions{
		Publish: &server.SubjectPermission{Allow: []string{
			"$JS.API.INFO",
			"$JS.API.CONSUMER.INFO." + p + "_UNITS.workers",
			"$JS.API.CONSUMER.MSG.NEXT." + p + "_UNITS.workers",
			"$JS.ACK." + p + "_UNITS.workers.>",
			p + ".results.>",
			"$JS.API.STREAM.INFO.KV_" + p + "_INPUTS",
			"$JS.API.DIRECT.GET.KV_" + p + "_INPUTS.>",
			"$JS.API.STREAM.MSG.GET.KV_" + p + "_INPUTS",
			"$JS.API.CONSUMER.CREATE.KV_" + p + "_INPUTS", // watching the announcement
			"$JS.API.CONSUMER.CREATE.KV_" + p + "_INPUTS.>",
			"$JS.API.CONSUMER.DELETE.KV_" + p + "_INPUTS.>",
			"$JS.FC.KV_" + p + "_INPUTS.>",
			"$JS.API.STREAM.INFO.KV_" + p + "_WORKERS",
			"$KV." + p + "_WORKERS.>",
		}},
		Subscribe: &server.SubjectPermission{Allow: []string{"_INBOX.>"}},
	}
}

// StartEmbedded starts the embedded server: JetStream storing in
// o.Dir/jetstream, clients on o.Listen with the users of Credentials
// (loopback by default). It returns once the server accepts clients.
func StartEmbedded(o EmbeddedOptions) (*Server, error) {
	if o.Dir == "" {
		return nil, errors.New("nats: embedded server: no directory")
	}
	if err := os.MkdirAll(o.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("nats: embedded server: %w", err)
	}
	creds, err := loadCredentials(o.Dir)
	if err != nil {
		return nil, err
	}
	listen := o.Listen
	if listen == "" {
		listen = DefaultListen
	}
	host, portS, err := net.SplitHostPort(listen)
	if err != nil {
		return nil, fmt.Errorf("nats: listen address %q: %w", listen, err)
	}
	port, err := strconv.Atoi(portS)
	if err != nil || port < 0 || port > 65535 {
		return nil, fmt.Errorf("nats: listen address %q: bad port", listen)
	}
	if port == 0 {
		port = server.RANDOM_PORT
	}
	prefix := o.Prefix
	if prefix == "" {
		prefix = DefaultPrefix
	}
	max := o.MaxStoreBytes
	if max <= 0 {
		max = DefaultMaxStoreBytes
	}
	opts := &server.Options{
		ServerName: "linkplan", Host: host, Port: port,
		JetStream: true, StoreDir: filepath.Join(o.Dir, "jetstream"),
		JetStreamMaxMemory: 64 << 20, JetStreamMaxStore: max,
		MaxPayload: MaxMessageBytes,
		NoSigs:     true, NoLog: true,
		Users: []*server.User{
			{Username: ApplianceUser, Password: creds.AppliancePassword},
			{Username: WorkerUser, Password: creds.WorkerPassword, Permissions: WorkerPermissions(prefix)},
		},
	}
	if o.TLS != nil {
		opts.TLSConfig, opts.TLS, opts.TLSVerify = o.TLS, true, o.TLS.ClientAuth == tls.RequireAndVerifyClientCert
	}
	ns, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("nats: embedded server: %w", err)
	}
	ns.Start()
	if !ns.ReadyForConnections(20 * time.Second) {
		ns.Shutdown()
		return nil, fmt.Errorf("nats: embedded server on %s did not start within 20 s", listen)
	}
	return &Server{ns: ns, creds: creds, tls: o.TLS != nil}, nil
}

// Addr is the address clients reach the server at (HOST:PORT).
func (s *Server) Addr() string {
	if a, ok := s.ns.Addr().(*net.TCPAddr); ok {
		return a.String()
	}
	return ""
}

// WorkerURL is the URL a worker connects with: the worker user and its
// password, the server's address.
func (s *Server) WorkerURL() string {
	scheme := "nats"
	if s.tls {
		scheme = "tls"
	}
	return (&url.URL{Scheme: scheme, User: url.UserPassword(WorkerUser, s.creds.WorkerPassword), Host: s.Addr()}).String()
}

// ApplianceURL is the URL the appliance's user connects with over TCP
// (a standalone server: linkplan nats-server).
func (s *Server) ApplianceURL() string {
	scheme := "nats"
	if s.tls {
		scheme = "tls"
	}
	return (&url.URL{Scheme: scheme, User: url.UserPassword(ApplianceUser, s.creds.AppliancePassword), Host: s.Addr()}).String()
}

// Connect returns the appliance's connection: in-process (no socket), as
// the appliance user.
func (s *Server) Connect(name string) (*nats.Conn, error) {
	nc, err := nats.Connect("", nats.InProcessServer(s.ns), nats.UserInfo(ApplianceUser, s.creds.AppliancePassword),
		nats.Name(name), nats.MaxReconnects(-1))
	if err != nil {
		return nil, fmt.Errorf("nats: connect in-process: %w", err)
	}
	return nc, nil
}

// Shutdown stops the server and waits for it.
func (s *Server) Shutdown() {
	s.ns.Shutdown()
	s.ns.WaitForShutdown()
}

// ConnectOptions configure Connect.
type ConnectOptions struct {
	Name string // the connection's name, shown by the server
	// CAFile is a PEM file of the CA that signed the server's
	// certificate; CertFile and KeyFile a client certificate, when the
	// server asks for one. Empty: the system's roots, no client
	// certificate (a tls:// URL still uses TLS).
	CAFile, CertFile, KeyFile string
	// ReconnectWait is the wait between reconnection attempts; 0 is
	// 250 ms. The connection retries forever.
	ReconnectWait time.Duration
}

// Connect connects to the NATS server at url (nats:// or tls://, the user
// and password in the URL), retrying for ever when the server goes away.
func Connect(url string, o ConnectOptions) (*nats.Conn, error) {
	wait := o.ReconnectWait
	if wait <= 0 {
		wait = 250 * time.Millisecond
	}
	opts := []nats.Option{nats.Name(o.Name), nats.MaxReconnects(-1), nats.ReconnectWait(wait),
		nats.RetryOnFailedConnect(false), nats.ReconnectBufSize(64 << 20)}
	if o.CAFile != "" || o.CertFile != "" {
		tc := &tls.Config{MinVersion: tls.VersionTLS12}
		if o.CAFile != "" {
			pem, err := os.ReadFile(o.CAFile)
			if err != nil {
				return nil, fmt.Errorf("nats: CA file: %w", err)
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return nil, fmt.Errorf("nats: CA file %s holds no PEM certificate", o.CAFile)
			}
			tc.RootCAs = pool
		}
		if o.CertFile != "" {
			cert, err := tls.LoadX509KeyPair(o.CertFile, o.KeyFile)
			if err != nil {
				return nil, fmt.Errorf("nats: client certificate: %w", err)
			}
			tc.Certificates = []tls.Certificate{cert}
		}
		opts = append(opts, nats.Secure(tc))
	}
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		return nil, fmt.Errorf("nats: connect %s: %w", redact(url), err)
	}
	return nc, nil
}

// redact removes the password of a URL for messages.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	u.User = url.User(u.User.Username())
	return u.String()
}
