package buildings

import (
	"fmt"
	"math"

	"github.com/paulmach/orb/geojson"
	"github.com/paulmach/osm"
	"github.com/tidwall/rtree"

	"linkplan/appliance"
)

// isPart reports whether OpenStreetMap tags make a building:part.
func isPart(tags map[string]string) bool {
	v := tags["building:part"]
	return v != "" && v != "no"
}

// indoorPart names the indoor=* value of a building:part that maps an
// indoor room (Simple Indoor Tagging: an elevator shaft, a room), "" for
// a part of the building's outer shape.
func indoorPart(tags map[string]string) string {
	if v := tags["indoor"]; isPart(tags) && v != "" && v != "no" {
		return v
	}
	return ""
}

// buildingRelation reports whether a relation is a building multipolygon.
func buildingRelation(r *osm.Relation) bool {
	if r.Tags.Find("type") != "multipolygon" {
		return false
	}
	b, p := r.Tags.Find("building"), r.Tags.Find("building:part")
	return (b != "" && b != "no") || (p != "" && p != "no")
}

// refuseLostRelations refuses, with a reason, every building multipolygon
// relation of the file that assembled into no feature (osmgeojson drops a
// relation whose outer ways cannot be joined into a closed ring, as when
// an extract cut one of them away): seen holds the ids of the features
// that were assembled.
func (c *collector) refuseLostRelations(o *osm.OSM, seen map[string]bool) {
	ways := make(map[osm.WayID]*osm.Way, len(o.Ways))
	for _, w := range o.Ways {
		ways[w.ID] = w
	}
	nodes := make(map[osm.NodeID]bool, len(o.Nodes))
	for _, n := range o.Nodes {
		nodes[n.ID] = true
	}
	for _, r := range o.Relations {
		id := fmt.Sprintf("relation/%d", r.ID)
		if !buildingRelation(r) || seen[id] {
			continue
		}
		members, missing := 0, 0
		for _, m := range r.Members {
			if m.Type != osm.TypeWay || (m.Role != "outer" && m.Role != "inner") {
				continue
			}
			members++
			w := ways[osm.WayID(m.Ref)]
			if w == nil {
				if len(m.Nodes) == 0 {
					missing++
				}
				continue
			}
			for _, n := range w.Nodes {
				if !nodes[n.ID] && (n.Lat == 0 && n.Lon == 0) {
					missing++
					break
				}
			}
		}
		if missing > 0 {
			c.refuse(id, "is a multipolygon with members missing from the file (%d of its %d member ways absent or incomplete): its outer ring could not be closed", missing, members)
		} else {
			c.refuse(id, "is a multipolygon whose outer ways do not join into a closed ring")
		}
	}
}

// replaceOutlinesByParts applies the Simple 3D Buildings rule: when
// building:part shapes describe a building, its outline (the way or
// multipolygon tagged building) is only the 2D footprint and is dropped,
// so that the parts' heights shape the scene. An outline is dropped when
// it is the outline member of a type=building relation whose part members
// were kept, or when a kept building:part lies inside it (every vertex of
// the part's outer rings inside the outline or within 0.5 m of its edge).
// It returns the number of outlines dropped and of parts that replace
// them.
func replaceOutlinesByParts(im *Import, o *osm.OSM, parts map[string]bool) (outlines, replacing int) {
	if len(parts) == 0 {
		return 0, 0
	}
	kept := make(map[string]int, len(im.Buildings))
	for i, b := range im.Buildings {
		kept[b.ID] = i
	}
	drop := map[string]bool{}
	used := map[string]bool{}
	for _, r := range o.Relations {
		if r.Tags.Find("type") != "building" {
			continue
		}
		var outline, hasParts []string
		for _, m := range r.Members {
			id := fmt.Sprintf("%s/%d", m.Type, m.Ref)
			if _, ok := kept[id]; !ok {
				continue
			}
			switch m.Role {
			case "outline":
				outline = append(outline, id)
			case "part":
				if parts[id] {
					hasParts = append(hasParts, id)
				}
			}
		}
		if len(outline) > 0 && len(hasParts) > 0 {
			for _, id := range outline {
				drop[id] = true
			}
			for _, id := range hasParts {
				used[id] = true
			}
		}
	}
	var tr rtree.RTreeG[int]
	for i, b := range im.Buildings {
		if parts[b.ID] {
			lo, hi := lonLatBox(b)
			tr.Insert(lo, hi, i)
		}
	}
	for _, b := range im.Buildings {
		if parts[b.ID] || drop[b.ID] {
			continue
		}
		lo, hi := lonLatBox(b)
		const padDeg = 1e-5 // ≈ 1 m: a part's vertex on the outline
		lo, hi = [2]float64{lo[0] - padDeg, lo[1] - padDeg}, [2]float64{hi[0] + padDeg, hi[1] + padDeg}
		var inside []string
		tr.Search(lo, hi, func(_, _ [2]float64, i int) bool {
			if partInside(im.Buildings[i], b) {
				inside = append(inside, im.Buildings[i].ID)
			}
			return true
		})
		if len(inside) > 0 {
			drop[b.ID] = true
			for _, id := range inside {
				used[id] = true
			}
		}
	}
	if len(drop) == 0 {
		return 0, 0
	}
	out := im.Buildings[:0]
	for _, b := range im.Buildings {
		if !drop[b.ID] {
			out = append(out, b)
		}
	}
	for i := len(out); i < len(im.Buildings); i++ {
		im.Buildings[i] = appliance.Building{}
	}
	im.Buildings = out
	return len(drop), len(used)
}

func lonLatBox(b appliance.Building) (lo, hi [2]float64) {
	lo, hi = [2]float64{math.Inf(1), math.Inf(1)}, [2]float64{math.Inf(-1), math.Inf(-1)}
	for _, f := range b.Footprints {
		for _, p := range f.Outer {
			lo = [2]float64{min(lo[0], p.Lon), min(lo[1], p.Lat)}
			hi = [2]float64{max(hi[0], p.Lon), max(hi[1], p.Lat)}
		}
	}
	return lo, hi
}

// partInside reports whether every vertex of the part's outer rings lies
// inside one of the outline's outer rings or within 0.5 m of its edge.
func partInside(part, outline appliance.Building) bool {
	const tolM = 0.5
	f := localFrame(outline.Footprints[0].Outer[0])
	rings := make([][]xy, len(outline.Footprints))
	for i, fp := range outline.Footprints {
		rings[i] = f.ring(fp.Outer)
	}
	for _, fp := range part.Footprints {
		for _, p := range f.ring(fp.Outer) {
			in := false
			for _, r := range rings {
				if pointInRing(p, r) || distToRing(p, r) <= tolM {
					in = true
					break
				}
			}
			if !in {
				return false
			}
		}
	}
	return true
}

func distToRing(p xy, r []xy) float64 {
	d := math.Inf(1)
	for i := range r {
		a, b := r[i], r[(i+1)%len(r)]
		dx, dy := b.x-a.x, b.y-a.y
		t := 0.0
		if l := dx*dx + dy*dy; l > 0 {
			t = max(0, min(1, ((p.x-a.x)*dx+(p.y-a.y)*dy)/l))
		}
		d = min(d, math.Hypot(p.x-a.x-t*dx, p.y-a.y-t*dy))
	}
	return d
}

// outlinesWarning says how many outlines their parts replaced.
func outlinesWarning(outlines, parts int) appliance.Warning {
	return appliance.Warning{Code: "buildings_outlines_replaced_by_parts", Message: fmt.Sprintf(
		"%d building %s replaced by the %d building:part %s inside %s (Simple 3D Buildings: the parts carry the heights, the outline is only the footprint).",
		outlines, plural(outlines, "outline was", "outlines were"), parts, plural(parts, "shape", "shapes"), plural(outlines, "it", "them"))}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// heightKeys are the tags that shape a building's height (heights.go).
var heightKeys = []string{"height", "building:height", "min_height", "building:min_level", "building:levels", "roof:levels", "roof:height"}

// mergeOuterWays drops the ways tagged building that are outer members of
// a building multipolygon which assembled into a feature: the relation is
// the building (its tags are the building's), and keeping the way too
// would stand a second building in the same place, its walls inside the
// relation's. Where a relation with one such outer way has no height tag
// of its own, it takes the way's (old-style tagging put them on the way).
// It returns the features kept and the number of ways merged.
func mergeOuterWays(o *osm.OSM, feats []*geojson.Feature) ([]*geojson.Feature, int) {
	rels := map[string]*geojson.Feature{}
	for _, f := range feats {
		if t, _ := f.Properties["type"].(string); t == "relation" {
			rels[osmID(f)] = f
		}
	}
	outer := map[string]string{} // way feature id → relation feature id
	for _, r := range o.Relations {
		rid := fmt.Sprintf("relation/%d", r.ID)
		if _, ok := rels[rid]; !ok || !buildingRelation(r) {
			continue
		}
		for _, m := range r.Members {
			if m.Type == osm.TypeWay && m.Role == "outer" {
				outer[fmt.Sprintf("way/%d", m.Ref)] = rid
			}
		}
	}
	if len(outer) == 0 {
		return feats, 0
	}
	merged := map[string][]*geojson.Feature{} // relation id → its building outer ways
	var kept []*geojson.Feature
	for _, f := range feats {
		tags, _ := f.Properties["tags"].(map[string]string)
		if rid, ok := outer[osmID(f)]; ok && tags["building"] != "" && tags["building"] != "no" {
			merged[rid] = append(merged[rid], f)
			continue
		}
		kept = append(kept, f)
	}
	n := 0
	for rid, ways := range merged {
		n += len(ways)
		rt, _ := rels[rid].Properties["tags"].(map[string]string)
		if len(ways) != 1 || rt == nil {
			continue
		}
		own := false
		for _, k := range heightKeys {
			own = own || rt[k] != ""
		}
		if own {
			continue
		}
		wt, _ := ways[0].Properties["tags"].(map[string]string)
		for _, k := range heightKeys {
			if v := wt[k]; v != "" {
				rt[k] = v
			}
		}
	}
	return kept, n
}

// outerWaysWarning says how many ways their relations replaced.
func outerWaysWarning(n int) appliance.Warning {
	return appliance.Warning{Code: "buildings_outer_ways_merged", Message: fmt.Sprintf(
		"%d %s tagged building %s the outer ring of a building multipolygon and merged into it (one building, with the relation's tags, or the way's height tags where the relation has none).",
		n, plural(n, "way", "ways"), plural(n, "was", "were"))}
}
