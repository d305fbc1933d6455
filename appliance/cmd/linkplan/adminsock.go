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
	"strconv"
	"syscall"
	"time"

	"linkplan/appliance"
)

// The admin socket (issue 21): DIR/admin.sock, a Unix socket the serving
// appliance listens on so that commands run on the same machine can ask it
// for what needs the open database (bbolt's lock forbids a second opener):
// linkplan backup of a serving data directory. It speaks HTTP/1.1.
//
// Who may connect: the socket is mode 0600 in the data directory (0700),
// so only the appliance's user and root reach it; on Linux the appliance
// also reads the peer's credentials (SO_PEERCRED) and closes a connection
// from any other user. No network client can reach it. Routes:
//
//	GET /status   {"version", "pid"}: an appliance serves this data directory
//	POST /backup  a verified backup file, streamed (application/x-tar), with the
//	              X-Linkplan-Backup-Sha256 header (the database's SHA-256); audited
//	              as admin.backup (trigger cli, the peer's uid)
//
// A path too long for a Unix socket (108 bytes on Linux) leaves the
// appliance without one: it logs why, and linkplan backup then reports that
// the appliance serving the directory cannot be asked.

// AdminSocketName is the admin socket's name in the data directory.
const AdminSocketName = "admin.sock"

// maxSocketPath is the longest path a Unix socket address holds (Linux's
// sun_path is 108 bytes, NUL included).
const maxSocketPath = 107

// adminSocket serves the admin socket.
type adminSocket struct {
	ln   net.Listener
	srv  *http.Server
	path string
	done chan struct{}
}

// socketBackups is what the admin socket needs of the appliance.
type socketBackups interface {
	Take(ctx context.Context, trigger string, audit *appliance.AuditEntry) (*appliance.BackupFile, error)
}

// listenAdminSocket starts the admin socket of dataDir. The caller holds
// the database lock, so a socket file left there is stale and replaced.
func listenAdminSocket(dataDir string, backups socketBackups, log *slog.Logger) (*adminSocket, error) {
	path := filepath.Join(dataDir, AdminSocketName)
	if abs, err := filepath.Abs(path); err == nil && len(abs) > maxSocketPath {
		return nil, fmt.Errorf("admin socket %s: the path is %d bytes, longer than a Unix socket address holds (%d)", abs, len(abs), maxSocketPath)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("admin socket: remove a stale socket: %w", err)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("admin socket: %w", err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		_ = ln.Close()
		return nil, fmt.Errorf("admin socket: %w", err)
	}
	s := &adminSocket{ln: peerChecked{ln.(*net.UnixListener), log}, path: path, done: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /status", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, "{\"version\":%q,\"pid\":%d}\n", version(), os.Getpid())
	})
	mux.HandleFunc("POST /backup", func(w http.ResponseWriter, r *http.Request) {
		uid := "unknown"
		if c, ok := r.Context().Value(peerKey{}).(peer); ok {
			uid = strconv.Itoa(c.uid)
		}
		f, err := backups.Take(r.Context(), appliance.BackupTriggerCLI, &appliance.AuditEntry{Action: "admin.backup",
			ActorKey: "admin-socket:uid=" + uid, TenantID: appliance.SystemTenantID, Route: "admin.sock POST /backup"})
		if err != nil {
			log.Error("backup over the admin socket failed", "err", err)
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		defer f.Body.Close()
		w.Header().Set("Content-Type", "application/x-tar")
		w.Header().Set("Content-Length", strconv.FormatInt(f.Bytes, 10))
		w.Header().Set("X-Linkplan-Backup-Sha256", f.Manifest.DB.SHA256)
		if _, err := io.Copy(w, f.Body); err != nil {
			log.Warn("backup over the admin socket: the client left", "err", err)
		}
	})
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second,
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			if pc, ok := c.(peerConn); ok {
				return context.WithValue(ctx, peerKey{}, pc.peer)
			}
			return ctx
		}}
	go func() {
		defer close(s.done)
		if err := s.srv.Serve(s.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("admin socket stopped", "err", err)
		}
	}()
	log.Info("admin socket listening", "path", path)
	return s, nil
}

// close stops the socket (a backup being streamed gets up to 10 s) and
// removes its file.
func (s *adminSocket) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = s.srv.Shutdown(ctx)
	<-s.done
	_ = os.Remove(s.path)
}

// peer is the credentials of the process at the other end of a
// connection.
type peer struct{ uid, pid int }

type peerKey struct{}

// peerConn is an accepted connection with its peer's credentials.
type peerConn struct {
	net.Conn
	peer peer
}

// peerChecked accepts connections only from the appliance's own user and
// root (peerCredentials: SO_PEERCRED on Linux).
type peerChecked struct {
	*net.UnixListener
	log *slog.Logger
}

func (l peerChecked) Accept() (net.Conn, error) {
	for {
		c, err := l.UnixListener.AcceptUnix()
		if err != nil {
			return nil, err
		}
		p, err := peerCredentials(c)
		if err != nil {
			l.log.Warn("admin socket: peer credentials unreadable; connection closed", "err", err)
			_ = c.Close()
			continue
		}
		if p.uid >= 0 && p.uid != 0 && p.uid != os.Getuid() {
			l.log.Warn("admin socket: connection from another user refused", "uid", p.uid, "pid", p.pid)
			_ = c.Close()
			continue
		}
		return peerConn{c, p}, nil
	}
}

// socketClient is an HTTP client of the admin socket at path.
func socketClient(path string) *http.Client {
	return &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", path)
		},
		DisableCompression: true,
	}}
}

// errNoAppliance means no appliance answers on the admin socket of a data
// directory (no socket file, or a stale one).
var errNoAppliance = errors.New("no appliance answers on the admin socket")

// askAppliance sends a request to the admin socket of dataDir. A missing
// or stale socket is errNoAppliance.
func askAppliance(ctx context.Context, dataDir, method, route string) (*http.Response, error) {
	path := filepath.Join(dataDir, AdminSocketName)
	notMine := fmt.Errorf("the admin socket %s is not reachable by this user (permission denied): run this command as the appliance's user or root", path)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil, errNoAppliance
	} else if errors.Is(err, os.ErrPermission) {
		return nil, notMine
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://linkplan"+route, nil)
	if err != nil {
		return nil, err
	}
	res, err := socketClient(path).Do(req)
	if err != nil {
		var op *net.OpError
		if errors.As(err, &op) && op.Op == "dial" {
			if errors.Is(op.Err, os.ErrPermission) {
				return nil, notMine
			}
			return nil, fmt.Errorf("%w (%v)", errNoAppliance, op.Err)
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
			// the appliance closes a connection whose peer is neither its
			// own user nor root before reading it (peer credentials): the
			// client reads EOF, or a reset when its request was already sent
			return nil, fmt.Errorf("the appliance closed its admin socket %s to this user without an answer: it answers its own user and root only (run this command as one of them); its log says why", path)
		}
		return nil, fmt.Errorf("admin socket %s: %w", path, err)
	}
	return res, nil
}
