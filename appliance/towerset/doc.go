// Package towerset keeps the live tower set consistent: the public
// catalogue (what the refresh service imports), the synthetic towers and
// the tenants' registered towers, in the R-tree (store/spatial) and the
// full-text index (store/search). It owns the catalogue-consistency rules
// the composition root used to hold:
//
//   - one lock orders catalogue swaps, registrations and deletions: a swap
//     reads the user towers from the store under it, and a registration
//     (committed to the store before) adds its tower under it, so neither
//     can lose the other's work;
//   - a swap replaces the R-tree with public + synthetic + user towers and
//     rebuilds the search index in the background under the set's
//     fingerprint; a single upsert or delete updates both indexes with an
//     empty fingerprint, so the next start re-indexes the full set;
//   - a tower is visible to a tenant when it is public or the tenant's own
//     (appliance.Tower.VisibleTo); Visible is the one lookup that applies
//     it for the services that take a tower id from a request.
//
// # States and transitions
//
//	event                          R-tree                     search index                   lock
//	Apply(public) (refresh swap)   public+synthetic+user      rebuilt in background (fp)     held
//	Upsert(t) (after registration) t added or replaced         t upserted, fp ""              held
//	Delete(ids) (privacy erase)    ids removed                 ids deleted, fp ""              held
//	Visible(tenant, id)            read                        -                              not taken
//
// A search-index failure is logged and never fails the swap or the write:
// the R-tree is the source of every answer but full-text search.
package towerset
