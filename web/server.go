package web

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// Timeouts of the server, chosen for an appliance on a LAN: generous enough
// for large uploads and slow clients, small enough that idle or stuck
// connections do not pile up.
const (
	ReadHeaderTimeout = 10 * time.Second
	ReadTimeout       = 60 * time.Second
	WriteTimeout      = 120 * time.Second
	IdleTimeout       = 120 * time.Second
	ShutdownTimeout   = 15 * time.Second
)

// Server is the appliance's HTTP server.
type Server struct {
	handler http.Handler
	log     *slog.Logger
}

// New returns a server for handler.
func New(handler http.Handler, log *slog.Logger) *Server {
	return &Server{handler: handler, log: log.With("component", "web")}
}

// Serve serves on ln until ctx is cancelled, then calls beforeShutdown (to
// flip readiness), cancels the base context of in-flight requests' streams
// and shuts down gracefully within ShutdownTimeout.
func (s *Server) Serve(ctx context.Context, ln net.Listener, beforeShutdown func()) error {
	base, cancelBase := context.WithCancel(context.Background())
	defer cancelBase()
	srv := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: ReadHeaderTimeout,
		ReadTimeout:       ReadTimeout,
		WriteTimeout:      WriteTimeout,
		IdleTimeout:       IdleTimeout,
		BaseContext:       func(net.Listener) context.Context { return base },
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	if beforeShutdown != nil {
		beforeShutdown()
	}
	s.log.Info("shutting down")
	// In-flight requests get ShutdownTimeout to finish; only then is the
	// base context cancelled (ending streams and stragglers) and the
	// remaining connections closed.
	sctx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
	defer cancel()
	err := srv.Shutdown(sctx)
	if err != nil {
		cancelBase()
		_ = srv.Close()
	}
	if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) && serr != nil {
		return serr
	}
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}
