package towerset

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"sort"
	"sync"

	"linkplan/appliance"
)

// Index is the R-tree the set keeps (store/spatial).
type Index interface {
	appliance.TowerIndex
	Replace(ts []*appliance.Tower)
	Upsert(t *appliance.Tower)
	Delete(ids ...string)
}

// Search is the full-text index of the towers (store/search).
type Search interface {
	ReplaceTowersInBackground(fingerprint string, ts []*appliance.Tower) error
	UpsertTower(ctx context.Context, fingerprint string, t *appliance.Tower) error
	DeleteTower(ctx context.Context, fingerprint, id string) error
}

// UserTowers lists the tenants' registered towers (store).
type UserTowers interface {
	UserTowers() ([]*appliance.Tower, error)
}

// Deps are what the set writes to and reads from.
type Deps struct {
	Index  Index
	Search Search
	Store  UserTowers
	// Synthetic towers join every catalogue swap after the public ones.
	Synthetic []*appliance.Tower
	// OnPublic, when set, learns the public towers (catalogue and
	// synthetic, never a tenant's own) after each swap, under the lock:
	// the inputs digest announced to workers.
	OnPublic func(public []*appliance.Tower)
	// View is the index readers see (Visible); nil: Index. Tests wrap it.
	View func() appliance.TowerIndex
	Log  *slog.Logger // nil: discarded
}

// Service keeps the tower set. It is safe for concurrent use.
type Service struct {
	mu sync.Mutex
	d  Deps
}

// New returns the service over d.
func New(d Deps) *Service {
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	return &Service{d: d}
}

// Apply swaps in a new public catalogue (refresh.Service.Apply): the
// R-tree gets the public, synthetic and user towers; the search index is
// rebuilt in the background. Only a store error fails it.
func (s *Service) Apply(public []*appliance.Tower) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	user, err := s.d.Store.UserTowers()
	if err != nil {
		return fmt.Errorf("tower set: list user towers: %w", err)
	}
	all := make([]*appliance.Tower, 0, len(public)+len(s.d.Synthetic)+len(user))
	all = append(append(append(all, public...), s.d.Synthetic...), user...)
	s.d.Index.Replace(all)
	if s.d.OnPublic != nil {
		s.d.OnPublic(all[:len(public)+len(s.d.Synthetic)])
	}
	if err := s.d.Search.ReplaceTowersInBackground(Fingerprint(all), all); err != nil {
		s.d.Log.Warn("tower search index not rebuilt", "err", err)
	}
	return nil
}

// Upsert adds a tower the store has committed (a registration) to both
// indexes.
func (s *Service) Upsert(t *appliance.Tower) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.d.Index.Upsert(t)
	// "" as fingerprint: the next start re-indexes the full set.
	if err := s.d.Search.UpsertTower(context.Background(), "", t); err != nil {
		s.d.Log.Warn("tower search index not updated", "tower", t.ID, "err", err)
	}
}

// Delete removes towers the store has deleted (a privacy erase) from both
// indexes.
func (s *Service) Delete(ids []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.d.Index.Delete(ids...)
	for _, id := range ids {
		// "" as fingerprint: the next start re-indexes the full set.
		if err := s.d.Search.DeleteTower(context.Background(), "", id); err != nil {
			s.d.Log.Warn("tower search index not updated", "tower", id, "err", err)
		}
	}
}

// Visible returns the tower id when tenantID may see it (public, or its
// own); false when there is no such tower or it is another tenant's.
func (s *Service) Visible(tenantID, id string) (*appliance.Tower, bool) {
	var ix appliance.TowerIndex = s.d.Index
	if s.d.View != nil {
		ix = s.d.View()
	}
	t, ok := ix.Get(id)
	if !ok || !t.VisibleTo(tenantID) {
		return nil, false
	}
	return t, true
}

// Fingerprint identifies a tower set (ids, positions, operators, heights)
// so a persisted search index is reused only for the same set.
func Fingerprint(ts []*appliance.Tower) string {
	h := sha256.New()
	ids := make([]int, len(ts))
	for i := range ids {
		ids[i] = i
	}
	sort.Slice(ids, func(x, y int) bool { return ts[ids[x]].ID < ts[ids[y]].ID })
	var buf []byte
	for _, i := range ids {
		t := ts[i]
		buf = fmt.Appendf(buf[:0], "%s|%s|%.7f|%.7f|%g|%s|%s\n", t.ID, t.Operator, t.Lat, t.Lon, t.HeightM, t.Municipality, t.StationNumber)
		h.Write(buf)
	}
	return hex.EncodeToString(h.Sum(nil))
}
