package planner

import (
	"math"

	"linkplan/appliance"
)

// bearings fills the bearings of c that the candidate scan left unset
// (NaN): receiver to tower, and tower to receiver for an omnidirectional
// tower.
func (c *cand) bearings(rx appliance.LatLon) {
	if math.IsNaN(c.bearRx) {
		c.bearRx = rx.BearingDeg(c.t.Pos())
	}
	if math.IsNaN(c.bearTx) {
		c.bearTx = c.t.Pos().BearingDeg(rx)
	}
}

// candLess orders candidates by free-space margin bound (best first), then
// distance, then tower id: a total order, since tower ids are unique.
func candLess(a, b *cand) bool {
	if a.optimist != b.optimist {
		return a.optimist > b.optimist
	}
	if a.distM != b.distM {
		return a.distM < b.distM
	}
	return a.t.ID < b.t.ID
}

// candHeap is a binary min-heap of candidates under candLess.
type candHeap []cand

func (h candHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h candHeap) down(i int) {
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && candLess(&h[r], &h[l]) {
			m = r
		}
		if !candLess(&h[m], &h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// pop removes and returns the least candidate.
func (h *candHeap) pop() cand {
	old := *h
	n := len(old) - 1
	c := old[0]
	old[0] = old[n]
	*h = old[:n]
	h.down(0)
	return c
}

// LegacySector names the generic sector of PatternLossDB in explanations.
const LegacySector = "generic 65° sector"

// HasRadiator reports whether a tower's antenna is more than the legacy
// generic sector of PatternLossDB: it names a catalogue antenna, or its
// record gives a tilt, a beamwidth or a front-to-back ratio.
func HasRadiator(t *appliance.Tower) bool {
	return t.AntennaID != "" || !math.IsNaN(t.TiltDeg) || t.BeamwidthDeg > 0 || t.FrontBackDB > 0
}

// horizontalPattern returns the attenuation of c's antenna toward the
// receiver at the horizon of its peak: the pattern loss itself for the
// legacy sector, a lower bound of it otherwise (appliance.Radiator).
func (c *cand) horizontalPattern() float64 {
	if c.rad != nil {
		return c.rad.HorizontalLossDB(c.bearTx)
	}
	return PatternLossDB(c.t.AzimuthDeg, c.bearTx)
}
