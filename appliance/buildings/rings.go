package buildings

import (
	"fmt"
	"strings"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geojson"
	"github.com/paulmach/osm"

	"linkplan/appliance"
)

// maxDroppedRingsNamed bounds the relations a buildings_rings_dropped
// warning names.
const maxDroppedRingsNamed = 5

// droppedRings counts the member ways of building multipolygons that
// osmgeojson left out of a relation it did assemble: an inner way in no
// outer ring (the courtyard is then solid), and, with several outer
// ways, an outer way that joins into no closed ring (an extract cut the
// ring; that part of the building is missing). A member way counts as
// kept when one of its vertices is a vertex of a ring of the same role
// in the assembled geometry (osmgeojson copies the nodes' coordinates).
// Relations that assembled into nothing are refused by
// refuseLostRelations; features from a single outer way carry every
// inner. It returns the ways dropped by role and the relations they
// belong to, in feature order.
func droppedRings(o *osm.OSM, feats []*geojson.Feature) (inner, outer int, relations []string) {
	rels := make(map[osm.RelationID]*osm.Relation, len(o.Relations))
	for _, r := range o.Relations {
		rels[r.ID] = r
	}
	ways := make(map[osm.WayID]*osm.Way, len(o.Ways))
	for _, w := range o.Ways {
		ways[w.ID] = w
	}
	var nodes map[osm.NodeID]orb.Point
	for _, f := range feats {
		if t, _ := f.Properties["type"].(string); t != "relation" {
			continue
		}
		if t, _ := f.Properties["tainted"].(bool); t {
			continue // members missing from the file: refused by parseOSM
		}
		id, _ := f.Properties["id"].(int)
		r := rels[osm.RelationID(id)]
		if r == nil {
			continue
		}
		var polys []orb.Polygon
		switch g := f.Geometry.(type) {
		case orb.Polygon:
			polys = []orb.Polygon{g}
		case orb.MultiPolygon:
			polys = g
		default:
			continue
		}
		kept := map[string]map[orb.Point]bool{"outer": {}, "inner": {}}
		for _, p := range polys {
			for i, ring := range p {
				role := "inner"
				if i == 0 {
					role = "outer"
				}
				for _, pt := range ring {
					kept[role][pt] = true
				}
			}
		}
		lostIn, lostOut := 0, 0
		for _, m := range r.Members {
			if m.Type != osm.TypeWay || (m.Role != "outer" && m.Role != "inner") {
				continue
			}
			pts := memberPoints(m, ways[osm.WayID(m.Ref)], o, &nodes)
			if len(pts) == 0 {
				continue // absent from the file: the feature is tainted, refused
			}
			found := false
			for _, pt := range pts {
				if kept[m.Role][pt] {
					found = true
					break
				}
			}
			if !found {
				if m.Role == "inner" {
					lostIn++
				} else {
					lostOut++
				}
			}
		}
		if lostIn+lostOut > 0 {
			inner, outer = inner+lostIn, outer+lostOut
			relations = append(relations, fmt.Sprintf("relation/%d", r.ID))
		}
	}
	return inner, outer, relations
}

// memberPoints gives a member way's vertices as osmgeojson reads them:
// the way's own locations, else its nodes' (nodes is filled on first
// use).
func memberPoints(m osm.Member, w *osm.Way, o *osm.OSM, nodes *map[osm.NodeID]orb.Point) []orb.Point {
	wn := m.Nodes
	if w != nil {
		wn = w.Nodes
	}
	var pts []orb.Point
	for _, n := range wn {
		if n.Lat != 0 || n.Lon != 0 {
			pts = append(pts, orb.Point{n.Lon, n.Lat})
			continue
		}
		if *nodes == nil {
			*nodes = make(map[osm.NodeID]orb.Point, len(o.Nodes))
			for _, nd := range o.Nodes {
				(*nodes)[nd.ID] = orb.Point{nd.Lon, nd.Lat}
			}
		}
		if p, ok := (*nodes)[n.ID]; ok {
			pts = append(pts, p)
		}
	}
	return pts
}

// droppedRingsWarning says which member ways were left out and where.
func droppedRingsWarning(inner, outer int, relations []string) appliance.Warning {
	var what []string
	if inner > 0 {
		what = append(what, fmt.Sprintf("%d inner %s in no outer ring (the courtyard is solid in the scene)", inner, plural(inner, "way", "ways")))
	}
	if outer > 0 {
		what = append(what, fmt.Sprintf("%d outer %s that joined into no closed ring (that part of the building is missing)", outer, plural(outer, "way", "ways")))
	}
	named := relations
	more := ""
	if len(named) > maxDroppedRingsNamed {
		named, more = named[:maxDroppedRingsNamed], fmt.Sprintf(" and %d more", len(relations)-maxDroppedRingsNamed)
	}
	return appliance.Warning{Code: "buildings_rings_dropped", Message: fmt.Sprintf(
		"Building multipolygons were imported without some of their member ways: %s; in %s%s.",
		strings.Join(what, "; "), strings.Join(named, ", "), more)}
}
