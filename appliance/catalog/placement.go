package catalog

import (
	"fmt"
	"hash/fnv"
	"io"
	"sort"

	"linkplan/appliance"
)

// Centroid-placement constants (SPEC §2.1: "about 800 m").
const (
	// OffsetMinM and OffsetMaxM bound the deterministic offset, in metres,
	// of a centroid-placed tower from its municipality seat; the mean is
	// 800 m.
	OffsetMinM = 600.0  // metres
	OffsetMaxM = 1000.0 // metres
	// MaxSpacingUncertaintyM caps the municipality-size term of a
	// centroid tower's uncertainty, in metres.
	MaxSpacingUncertaintyM = 25000.0 // metres
	// DefaultMaxSurveyedDistanceM is how far, in metres, a regulator tower
	// may lie from its municipality seat and still count as surveyed
	// (unless the municipality is larger, see Placer.MaxSurveyedDistanceM).
	DefaultMaxSurveyedDistanceM = 60000.0 // metres
	// DefaultSnapRadiusM is the snapping radius of SPEC §2.1, in metres.
	DefaultSnapRadiusM = 5000.0 // metres
)

// CentroidOffset returns the deterministic offset of the tower with the
// given id from its municipality seat: bearing in degrees [0, 360) and
// distance in metres [OffsetMinM, OffsetMaxM]. Both come from the 64-bit
// FNV-1a hash h of the id: bearing = (h mod 36000)/100, distance =
// OffsetMinM + ((h >> 32) mod 4001)/4000 · (OffsetMaxM − OffsetMinM). The
// same id always lands on the same spot, and towers of one municipality
// spread around the seat instead of stacking on it.
func CentroidOffset(id string) (bearingDeg, distM float64) {
	h := fnv.New64a()
	_, _ = h.Write([]byte(id))
	v := h.Sum64()
	bearingDeg = float64(v%36000) / 100
	distM = OffsetMinM + float64((v>>32)%4001)/4000*(OffsetMaxM-OffsetMinM)
	return bearingDeg, distM
}

// CentroidUncertaintyM is the position uncertainty, in metres, of a tower
// placed at municipality m's seat: the largest offset plus half the distance
// to the nearest other seat (a stand-in for the municipality's radius,
// capped at MaxSpacingUncertaintyM).
func CentroidUncertaintyM(m Municipality) float64 {
	return OffsetMaxM + min(m.SpacingM/2, MaxSpacingUncertaintyM)
}

// PlaceAtCentroid puts t at municipality m's seat plus CentroidOffset(t.ID)
// and sets placement centroid, the uncertainty and the municipality fields.
func PlaceAtCentroid(t *appliance.Tower, m Municipality) {
	b, d := CentroidOffset(t.ID)
	p := m.Pos().Destination(b, d)
	t.Lat, t.Lon = p.Lat, p.Lon
	t.Placement = appliance.PlacementCentroid
	t.UncertaintyM = CentroidUncertaintyM(m)
	setMunicipality(t, m)
}

func setMunicipality(t *appliance.Tower, m Municipality) {
	t.Municipality, t.UF, t.IBGECode = m.Name, m.UF, m.IBGECode
}

// Placer positions regulator towers (SPEC §2.1).
type Placer struct {
	Gazetteer *Gazetteer
	// MaxSurveyedDistanceM, in metres, is the largest distance from the
	// municipality seat at which given coordinates are accepted as
	// surveyed; for a large municipality the limit grows to
	// 1.5 × its SpacingM. Zero means DefaultMaxSurveyedDistanceM.
	MaxSurveyedDistanceM float64
}

// NewPlacer returns a placer over g with default limits.
func NewPlacer(g *Gazetteer) *Placer {
	return &Placer{Gazetteer: g, MaxSurveyedDistanceM: DefaultMaxSurveyedDistanceM}
}

// PlaceStats counts what Place did.
type PlaceStats struct {
	Surveyed int // coordinates given and plausible
	Centroid int // placed at the municipality seat (no or implausible coordinates)
	Flagged  int // had coordinates that failed validation (included in Centroid)
	Crowd    int // crowd-sourced towers left as they are
	Rejected int // neither usable coordinates nor a known municipality
}

// Place finalises the position of every regulator station in res:
//   - the municipality is resolved by IBGE code, else by name and UF, and the
//     tower's Municipality/UF/IBGECode are set to the gazetteer's spelling;
//   - given coordinates inside Brazil and within the plausible distance of
//     the seat make the tower "surveyed" (SurveyedUncertaintyM);
//   - implausible coordinates are flagged (Station.Flags) and, like missing
//     ones, replaced by the seat plus CentroidOffset ("centroid");
//   - a station with neither usable coordinates nor a known municipality is
//     moved to res.Rejects; one with coordinates but an unknown municipality
//     stays surveyed and is flagged.
//
// Crowd-sourced (OpenCelliD) stations are left untouched.
func (p *Placer) Place(res *Result) PlaceStats {
	var stats PlaceStats
	maxD := p.MaxSurveyedDistanceM
	if maxD <= 0 {
		maxD = DefaultMaxSurveyedDistanceM
	}
	kept := res.Stations[:0]
	for _, st := range res.Stations {
		t := &st.Tower
		if t.Source == appliance.SourceOpenCelliD {
			stats.Crowd++
			kept = append(kept, st)
			continue
		}
		m, found := p.lookup(t)
		hasPos := hasPosition(t) && InBrazil(t.Lat, t.Lon)
		switch {
		case !found && !hasPos:
			stats.Rejected++
			res.Rejects = append(res.Rejects, Reject{st.Line, fmt.Sprintf(
				"station %s has no coordinates and municipality %q/%q (IBGE %q) is unknown",
				t.StationNumber, t.Municipality, t.UF, t.IBGECode)})
			continue
		case !found:
			st.Flags = append(st.Flags, fmt.Sprintf("municipality %q/%q (IBGE %q) unknown; coordinates not cross-checked",
				t.Municipality, t.UF, t.IBGECode))
			setSurveyed(t, t.Lat, t.Lon)
			stats.Surveyed++
		case hasPos:
			limit := max(maxD, 1.5*m.SpacingM)
			if d := m.Pos().DistanceM(t.Pos()); d > limit {
				flag := fmt.Sprintf("coordinates (%.5f, %.5f) are %.0f km from the seat of %s-%s (limit %.0f km); placed at centroid",
					t.Lat, t.Lon, d/1000, m.Name, m.UF, limit/1000)
				if n, nd, ok := p.Gazetteer.Nearest(t.Pos()); ok {
					flag += fmt.Sprintf(" (nearest seat: %s-%s, %.1f km)", n.Name, n.UF, nd/1000)
				}
				st.Flags = append(st.Flags, flag)
				PlaceAtCentroid(t, m)
				stats.Flagged++
				stats.Centroid++
			} else {
				setSurveyed(t, t.Lat, t.Lon)
				setMunicipality(t, m)
				stats.Surveyed++
			}
		default:
			if hasPosition(t) { // coordinates outside Brazil (parsers reject these already)
				st.Flags = append(st.Flags, fmt.Sprintf("coordinates (%v, %v) outside Brazil; placed at centroid", t.Lat, t.Lon))
				stats.Flagged++
			}
			PlaceAtCentroid(t, m)
			stats.Centroid++
		}
		kept = append(kept, st)
	}
	for i := len(kept); i < len(res.Stations); i++ {
		res.Stations[i] = Station{}
	}
	res.Stations = kept
	sortRejects(res.Rejects)
	return stats
}

func (p *Placer) lookup(t *appliance.Tower) (Municipality, bool) {
	if t.IBGECode != "" {
		if m, ok := p.Gazetteer.ByCode(t.IBGECode); ok {
			return m, true
		}
	}
	if t.Municipality != "" && t.UF != "" {
		return p.Gazetteer.ByName(t.Municipality, t.UF)
	}
	return Municipality{}, false
}

// sortRejects orders rejects by line (stable), so that placement rejects
// interleave with parse rejects.
func sortRejects(r []Reject) {
	sort.SliceStable(r, func(i, j int) bool { return r[i].Line < r[j].Line })
}

// Import parses r in format f and places the stations with p. p may be nil
// for OpenCelliD, which needs no placement.
func Import(f Format, r io.Reader, p *Placer) (*Result, PlaceStats, error) {
	res, err := Parse(f, r)
	if err != nil {
		return res, PlaceStats{}, err
	}
	if p == nil {
		if f != FormatOpenCelliD {
			return res, PlaceStats{}, fmt.Errorf("import %v: a placer is required: %w", f, appliance.ErrInvalid)
		}
		return res, PlaceStats{Crowd: len(res.Stations)}, nil
	}
	return res, p.Place(res), nil
}
