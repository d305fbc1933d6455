package buildings

import (
	"bytes"
	"context"
	"sort"

	"github.com/paulmach/osm"
	"github.com/paulmach/osm/osmpbf"
	"github.com/paulmach/osm/osmxml"
)

// Bounds on the OpenStreetMap elements of one file (see the package doc):
// an extract with more should be filtered to its buildings first (osmium
// tags-filter FILE w/building r/building).
const (
	MaxOSMNodes     = 4 << 20 // nodes
	MaxOSMWays      = 1 << 20 // ways
	MaxOSMRelations = 1 << 18 // relations
)

// osmNode is a node as the importer keeps it while streaming: 24 bytes
// where an *osm.Node costs about 200.
type osmNode struct {
	id       osm.NodeID
	lat, lon float64
}

// readOSM streams OpenStreetMap XML (osmxml) or PBF (osmpbf, after
// checkPBF has walked its framing) and returns the ways and relations with
// only the nodes the ways reference. Nodes are kept compact while
// streaming, and the element counts are bounded.
func readOSM(ctx context.Context, data []byte, pbf bool, run *importRun) (*osm.OSM, error) {
	var sc osm.Scanner
	if pbf {
		if err := checkPBF(data, run); err != nil {
			return nil, err
		}
		sc = osmpbf.New(ctx, bytes.NewReader(data), 1)
	} else {
		sc = osmxml.New(ctx, bytes.NewReader(data))
	}
	defer sc.Close()
	kind := "XML"
	if pbf {
		kind = "PBF"
	}
	o := &osm.OSM{}
	var nodes []osmNode
	sorted := true
	for sc.Scan() {
		switch e := sc.Object().(type) {
		case *osm.Node:
			if len(nodes) >= MaxOSMNodes {
				return nil, invalid("file", "holds more than %d OpenStreetMap nodes; extract the buildings first (osmium tags-filter) or split the layer", MaxOSMNodes)
			}
			if n := len(nodes); n > 0 && nodes[n-1].id >= e.ID {
				sorted = false
			}
			nodes = append(nodes, osmNode{id: e.ID, lat: e.Lat, lon: e.Lon})
		case *osm.Way:
			if len(o.Ways) >= MaxOSMWays {
				return nil, invalid("file", "holds more than %d OpenStreetMap ways; extract the buildings first (osmium tags-filter) or split the layer", MaxOSMWays)
			}
			o.Ways = append(o.Ways, e)
		case *osm.Relation:
			if len(o.Relations) >= MaxOSMRelations {
				return nil, invalid("file", "holds more than %d OpenStreetMap relations; extract the buildings first (osmium tags-filter) or split the layer", MaxOSMRelations)
			}
			o.Relations = append(o.Relations, e)
		}
	}
	if err := sc.Err(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, invalid("file", "OpenStreetMap %s is malformed: %v", kind, err)
	}
	if !sorted {
		sort.SliceStable(nodes, func(i, j int) bool { return nodes[i].id < nodes[j].id })
	}
	// The nodes the ways use, once each, in id order; a duplicate id keeps
	// its last position, as a map filled in file order would.
	seen := map[osm.NodeID]bool{}
	for _, w := range o.Ways {
		for _, wn := range w.Nodes {
			if seen[wn.ID] {
				continue
			}
			seen[wn.ID] = true
			i := sort.Search(len(nodes), func(i int) bool { return nodes[i].id > wn.ID }) - 1
			if i >= 0 && nodes[i].id == wn.ID {
				o.Nodes = append(o.Nodes, &osm.Node{ID: wn.ID, Lat: nodes[i].lat, Lon: nodes[i].lon, Visible: true})
			}
		}
	}
	return o, nil
}
