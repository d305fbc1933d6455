package terrain

import (
	"errors"
	"fmt"

	"linkplan/appliance"
)

var (
	_ appliance.Terrain        = (*Layered)(nil)
	_ appliance.SparseProfiler = (*Layered)(nil)
	_ appliance.SparseRefiner  = (*Layered)(nil)
	_ appliance.SparseRefiner  = (*Pack)(nil)
)

// Layered answers from several packs: for each point the first pack (in the
// order given) that can answer wins. A pack that lacks the tile, or holds it
// as void, or has a NoData sample there, passes the point to the next pack.
// When no pack answers, the error is the *appliance.TileMissingError of the
// tile. Layered is safe for concurrent use; it does not own the packs.
type Layered struct {
	packs []*Pack
}

// NewLayered returns the packs layered in priority order (first wins).
func NewLayered(packs ...*Pack) *Layered {
	return &Layered{packs: append([]*Pack(nil), packs...)}
}

// Packs returns the layered packs in priority order.
func (l *Layered) Packs() []*Pack { return append([]*Pack(nil), l.packs...) }

// HasTile reports whether any pack's index holds t.
func (l *Layered) HasTile(t TileID) bool {
	for _, p := range l.packs {
		if p.HasTile(t) {
			return true
		}
	}
	return false
}

func (l *Layered) elevation(q appliance.LatLon, ref *tileRef) (float64, bool, *Pack, error) {
	if !q.Valid() {
		return 0, false, nil, appliance.Invalid("position", "%v is not a valid WGS84 position", q)
	}
	for _, p := range l.packs {
		h, sea, owner, err := p.elevation(q, ref)
		if err == nil {
			return h, sea, owner, nil
		}
		var miss *appliance.TileMissingError
		if !errors.As(err, &miss) {
			return 0, false, nil, err
		}
	}
	return 0, false, nil, &appliance.TileMissingError{Tile: TileOf(q).Name()}
}

// ElevationM returns the ground height at q in metres above mean sea level
// from the first pack that has it (see Pack.ElevationM).
func (l *Layered) ElevationM(q appliance.LatLon) (float64, error) {
	h, _, _, err := l.elevation(q, nil)
	return h, err
}

// Profile samples the great circle from a to b every stepM metres, each
// sample from the first pack that has it (see Pack.Profile). ClutterClass
// and ClutterHeightsM are filled (as by ClutterAt) only when the pack that
// answered every sample's height has the land-cover layer; otherwise they
// are nil.
func (l *Layered) Profile(a, b appliance.LatLon, stepM float64) (*appliance.PathProfile, error) {
	var cl clutterSampler
	if l.HasClutter() {
		cl = l.clutterClass
	}
	prof, err := profile(a, b, stepM, 1, l.elevation, cl, nil, 0)
	if err != nil {
		return nil, fmt.Errorf("layered: %w", err)
	}
	return prof, nil
}

// RadialProfile is Profile(a, b, stepM) with the sample positions of
// appliance.ProfilePath.FastPoints, within a centimetre of Profile's
// (appliance.RadialProfiler).
func (l *Layered) RadialProfile(a, b appliance.LatLon, stepM float64) (*appliance.PathProfile, error) {
	var cl clutterSampler
	if l.HasClutter() {
		cl = l.clutterClass
	}
	prof, err := radialProfile(a, b, stepM, l.elevation, cl)
	if err != nil {
		return nil, fmt.Errorf("layered: %w", err)
	}
	return prof, nil
}

// ProfileEvery returns the samples 0, every, 2·every, … and the last of
// the profile Profile(a, b, stepM) returns, bit-identical, without land
// cover, sea or void marks (appliance.SparseProfiler). every <= 1 gives
// the full profile, as Profile.
func (l *Layered) ProfileEvery(a, b appliance.LatLon, stepM float64, every int) (*appliance.PathProfile, error) {
	prof, err := profile(a, b, stepM, every, l.elevation, nil, nil, 0)
	if err != nil {
		return nil, fmt.Errorf("layered: %w", err)
	}
	return prof, nil
}

// ProfileEveryFrom is ProfileEvery(a, b, stepM, every), bit-identical,
// with the samples of prev, ProfileEvery(a, b, stepM, prevEvery), copied
// rather than sampled again (appliance.SparseRefiner).
func (l *Layered) ProfileEveryFrom(prev *appliance.PathProfile, prevEvery int, a, b appliance.LatLon, stepM float64, every int) (*appliance.PathProfile, error) {
	prof, err := profile(a, b, stepM, every, l.elevation, nil, prev, prevEvery)
	if err != nil {
		return nil, fmt.Errorf("layered: %w", err)
	}
	return prof, nil
}
