package buildings

import (
	"bytes"
	"context"
	"sort"

	"github.com/paulmach/osm"
	"github.com/paulmach/osm/osmxml"
)

// Bounds on the OpenStreetMap elements of one file (see the package doc):
// an extract with more should be filtered to its buildings first (osmium
// tags-filter FILE w/building r/building). The PBF decoder checks each
// count before it allocates for it.
const (
	MaxOSMNodes     = 4 << 20 // nodes
	MaxOSMWays      = 1 << 20 // ways
	MaxOSMRelations = 1 << 18 // relations
	MaxOSMWayNodes  = 4 << 20 // node references in all ways (40 bytes each; a layer holds at most 1 Mi vertices)
	MaxOSMTags      = 4 << 20 // tags of all ways and relations (32 bytes each; node tags are not kept)
	MaxOSMMembers   = 1 << 20 // members of all relations
)

// osmNode is a node as the importer keeps it while streaming: 24 bytes
// where an *osm.Node costs about 200.
type osmNode struct {
	id       osm.NodeID
	lat, lon float64
}

// osmCollect gathers the elements of one file, XML or PBF, within the
// bounds above.
type osmCollect struct {
	o      *osm.OSM
	nodes  []osmNode
	sorted bool
	// totals of the bounded arrays
	wayNodes, tags, members int
}

func tooMany(what string, limit int) error {
	return invalid("file", "holds more than %d OpenStreetMap %s; extract the buildings first (osmium tags-filter) or split the layer", limit, what)
}

// reserveNodes fails when n more nodes would pass MaxOSMNodes.
func (c *osmCollect) reserveNodes(n int) error {
	if n > MaxOSMNodes-len(c.nodes) {
		return tooMany("nodes", MaxOSMNodes)
	}
	return nil
}

func (c *osmCollect) addNode(id osm.NodeID, lat, lon float64) error {
	if err := c.reserveNodes(1); err != nil {
		return err
	}
	if n := len(c.nodes); n > 0 && c.nodes[n-1].id >= id {
		c.sorted = false
	}
	c.nodes = append(c.nodes, osmNode{id: id, lat: lat, lon: lon})
	return nil
}

// reserveWays fails when one more way would pass MaxOSMWays.
func (c *osmCollect) reserveWays() error {
	if len(c.o.Ways) >= MaxOSMWays {
		return tooMany("ways", MaxOSMWays)
	}
	return nil
}

// reserveRelations fails when one more relation would pass
// MaxOSMRelations.
func (c *osmCollect) reserveRelations() error {
	if len(c.o.Relations) >= MaxOSMRelations {
		return tooMany("relations", MaxOSMRelations)
	}
	return nil
}

// take adds n to the total *sum, failing when it would pass limit.
func (c *osmCollect) take(sum *int, n, limit int, what string) error {
	if n > limit-*sum {
		return tooMany(what, limit)
	}
	*sum += n
	return nil
}

// readOSM reads OpenStreetMap XML (osmxml's streaming scanner) or PBF
// (decodePBF, in this goroutine) and returns the ways and relations with
// only the nodes the ways reference. Nodes are kept compact while
// streaming, and the element counts are bounded.
func readOSM(ctx context.Context, data []byte, pbf bool, run *importRun) (*osm.OSM, error) {
	c := &osmCollect{o: &osm.OSM{}, sorted: true}
	if pbf {
		if err := decodePBF(ctx, data, run, c); err != nil {
			return nil, err
		}
	} else if err := c.scanXML(ctx, data); err != nil {
		return nil, err
	}
	return c.result(), nil
}

// scanXML streams OpenStreetMap XML into c.
func (c *osmCollect) scanXML(ctx context.Context, data []byte) error {
	sc := osmxml.New(ctx, bytes.NewReader(data))
	defer sc.Close()
	for sc.Scan() {
		var err error
		switch e := sc.Object().(type) {
		case *osm.Node:
			err = c.addNode(e.ID, e.Lat, e.Lon)
		case *osm.Way:
			if err = c.reserveWays(); err == nil {
				if err = c.take(&c.wayNodes, len(e.Nodes), MaxOSMWayNodes, "node references in ways"); err == nil {
					if err = c.take(&c.tags, len(e.Tags), MaxOSMTags, "tags on ways and relations"); err == nil {
						c.o.Ways = append(c.o.Ways, e)
					}
				}
			}
		case *osm.Relation:
			if err = c.reserveRelations(); err == nil {
				if err = c.take(&c.members, len(e.Members), MaxOSMMembers, "relation members"); err == nil {
					if err = c.take(&c.tags, len(e.Tags), MaxOSMTags, "tags on ways and relations"); err == nil {
						c.o.Relations = append(c.o.Relations, e)
					}
				}
			}
		}
		if err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return invalid("file", "OpenStreetMap XML is malformed: %s", plain(err))
	}
	return nil
}

// result puts into c.o the nodes the ways use, once each, in id order; a
// duplicate id keeps its last position, as a map filled in file order
// would.
func (c *osmCollect) result() *osm.OSM {
	nodes := c.nodes
	if !c.sorted {
		sort.SliceStable(nodes, func(i, j int) bool { return nodes[i].id < nodes[j].id })
	}
	o := c.o
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
	return o
}
