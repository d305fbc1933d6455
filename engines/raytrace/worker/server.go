package worker

import (
	"context"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"time"

	"linkplan/appliance"
	"linkplan/engines/raytrace"
)

// DefaultMaxUnitBytes bounds one unit's body: a scene input of the largest
// tier's layer (128 MiB of file; its gob is smaller than the file) with a
// heightfield.
const DefaultMaxUnitBytes = 512 << 20

// Server is the worker's HTTP API (package doc): it authenticates every
// request with the shared secret, decodes the unit, finds or builds its
// scene (cached by hash) and calls the Backend. It never opens the
// appliance's database: everything comes in the unit.
type Server struct {
	Backend raytrace.Backend
	// Secret is the shared secret: requests carry it as "Bearer <hex>".
	Secret []byte
	// Scenes caches built scenes by hash; nil: NewCache(8).
	Scenes *raytrace.Cache
	// MaxUnitBytes bounds a unit's body; 0: DefaultMaxUnitBytes.
	MaxUnitBytes int64
	// MaxMapPixels bounds a map unit's receivers; 0: raytrace.MaxMapReceivers.
	MaxMapPixels int
	Log          *slog.Logger
	stopping     atomic.Bool
}

// NewServer returns a server over backend with the secret and a cache of
// maxScenes scenes.
func NewServer(backend raytrace.Backend, secret []byte, maxScenes int, log *slog.Logger) *Server {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Server{Backend: backend, Secret: secret, Scenes: raytrace.NewCache(maxScenes), Log: log}
}

// Stopping makes the server answer CodeStopping from now on.
func (s *Server) Stopping() { s.stopping.Store(true) }

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set(HeaderProtocol, ProtocolVersion)
	if !s.authorized(r) {
		writeError(w, http.StatusUnauthorized, ErrorBody{Code: CodeUnauthorized, Message: "the worker's shared secret is missing or wrong"})
		return
	}
	if p := r.Header.Get(HeaderProtocol); p != ProtocolVersion {
		writeError(w, http.StatusBadRequest, ErrorBody{Code: CodeBadRequest,
			Message: fmt.Sprintf("protocol %q, this worker speaks %q: restart the worker with the appliance's binary", truncate(p, 40), ProtocolVersion)})
		return
	}
	if s.stopping.Load() {
		writeError(w, http.StatusServiceUnavailable, ErrorBody{Code: CodeStopping, Message: "the worker is stopping"})
		return
	}
	switch {
	case r.URL.Path == PathHealth && r.Method == http.MethodGet:
		h := Health{Protocol: ProtocolVersion, Backend: s.Backend.Name(), EngineVersion: raytrace.Version, PID: os.Getpid(),
			Scenes: s.cache().Len(), Workers: runtime.GOMAXPROCS(0)}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(h)
	case r.URL.Path == PathPoint && r.Method == http.MethodPost:
		var u pointUnit
		s.serveUnit(w, r, &u, &u.Scene, func(ctx context.Context, sc *raytrace.Scene) (any, error) {
			return s.Backend.Point(ctx, sc, u.Request)
		})
	case r.URL.Path == PathMap && r.Method == http.MethodPost:
		var u mapUnit
		s.serveUnit(w, r, &u, &u.Scene, func(ctx context.Context, sc *raytrace.Scene) (any, error) {
			if lim := s.MaxMapPixels; lim > 0 && (u.Request.NX > lim || u.Request.NY > lim || u.Request.NX*u.Request.NY > lim) {
				return nil, appliance.Invalid("nx", "nx·ny must be at most %d on this worker, got %d×%d", lim, u.Request.NX, u.Request.NY)
			}
			return s.Backend.Map(ctx, sc, u.Request)
		})
	default:
		writeError(w, http.StatusNotFound, ErrorBody{Code: CodeBadRequest, Message: "no such route: " + truncate(r.Method+" "+r.URL.Path, 100)})
	}
}

func (s *Server) cache() *raytrace.Cache {
	if s.Scenes == nil {
		s.Scenes = raytrace.NewCache(8)
	}
	return s.Scenes
}

func (s *Server) authorized(r *http.Request) bool {
	const prefix = "Bearer "
	h := r.Header.Get("Authorization")
	if len(h) <= len(prefix) || h[:len(prefix)] != prefix || len(s.Secret) == 0 {
		return false
	}
	got, err := hex.DecodeString(h[len(prefix):])
	return err == nil && subtle.ConstantTimeCompare(got, s.Secret) == 1
}

// serveUnit decodes a unit into u, resolves its scene and runs it, under
// recover: a panic is an internal error answer, never the end of the
// worker.
func (s *Server) serveUnit(w http.ResponseWriter, r *http.Request, u any, ref *SceneRef, run func(context.Context, *raytrace.Scene) (any, error)) {
	defer func() {
		if p := recover(); p != nil {
			s.Log.Error("raytrace worker: unit panicked", "path", r.URL.Path, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			writeError(w, http.StatusInternalServerError, ErrorBody{Code: CodeInternal, Message: "internal error in the raytrace worker"})
		}
	}()
	limit := s.MaxUnitBytes
	if limit <= 0 {
		limit = DefaultMaxUnitBytes
	}
	if err := decodeUnit(r.Body, limit, u); err != nil {
		writeError(w, http.StatusBadRequest, ErrorBody{Code: CodeBadRequest, Message: err.Error()})
		return
	}
	start := time.Now()
	sc, err := s.scene(ref)
	switch {
	case errors.Is(err, errSceneUnknown):
		writeError(w, http.StatusConflict, ErrorBody{Code: CodeSceneUnknown, Message: "the worker holds no scene " + ref.Hash + "; send its input"})
		return
	case err != nil:
		writeInvalid(w, err, CodeSceneMismatch)
		return
	}
	out, err := run(r.Context(), sc)
	if err != nil {
		if r.Context().Err() != nil {
			return // the appliance left: nobody reads the answer
		}
		if errors.Is(err, appliance.ErrInvalid) {
			writeInvalid(w, err, CodeInvalid)
			return
		}
		s.Log.Error("raytrace worker: unit failed", "path", r.URL.Path, "err", err)
		writeError(w, http.StatusInternalServerError, ErrorBody{Code: CodeInternal, Message: "the raytrace worker could not compute the unit"})
		return
	}
	b, err := encode(out)
	if err != nil {
		s.Log.Error("raytrace worker: encode answer", "err", err)
		writeError(w, http.StatusInternalServerError, ErrorBody{Code: CodeInternal, Message: "the raytrace worker could not encode its answer"})
		return
	}
	s.Log.Debug("raytrace worker: unit done", "path", r.URL.Path, "ms", time.Since(start).Milliseconds(), "bytes", len(b))
	w.Header().Set("Content-Type", "application/x-gob")
	_, _ = w.Write(b)
}

// scene returns the scene ref names: from the cache, or built from its
// input when the ref carries one (checked against the hash).
func (s *Server) scene(ref *SceneRef) (*raytrace.Scene, error) {
	if err := checkHash(ref.Hash); err != nil {
		return nil, err
	}
	if ref.Input == nil {
		// Never an entry for a unit without the input: it would evict a
		// built scene, and a concurrent unit with the input would share
		// its failed build.
		if sc, ok := s.cache().Lookup(ref.Hash); ok {
			return sc, nil
		}
		return nil, errSceneUnknown
	}
	sc, _, err := s.cache().Get(ref.Hash, func() (*raytrace.Scene, error) {
		sc, err := raytrace.NewScene(*ref.Input)
		if err != nil {
			return nil, fmt.Errorf("build scene: %w", wrapInvalid(err))
		}
		h := sc.Hash()
		if got := hex.EncodeToString(h[:]); got != ref.Hash {
			return nil, appliance.Invalid("scene.hash", "the scene input builds scene %s, not %s: the worker refuses a unit whose data differs from its name", got, ref.Hash)
		}
		return sc, nil
	})
	return sc, err
}

func wrapInvalid(err error) error {
	if errors.Is(err, appliance.ErrInvalid) {
		return err
	}
	return fmt.Errorf("%v: %w", err, appliance.ErrInvalid)
}

func writeInvalid(w http.ResponseWriter, err error, code string) {
	body := ErrorBody{Code: code, Message: err.Error()}
	var ve *appliance.ValidationError
	if errors.As(err, &ve) {
		body.Fields = ve.Fields
	}
	writeError(w, http.StatusUnprocessableEntity, body)
}

func writeError(w http.ResponseWriter, status int, body ErrorBody) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

// Serve serves s on ln until ctx ends, then stops accepting, answers
// CodeStopping to new requests and waits at most grace for the running
// units.
func Serve(ctx context.Context, ln net.Listener, s *Server, grace time.Duration) error {
	hs := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	s.Stopping()
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		_ = hs.Close()
	}
	return nil
}
