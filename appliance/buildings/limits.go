package buildings

import (
	"context"
	"fmt"

	"github.com/paulmach/orb"

	"linkplan/appliance"
)

// Size limits of one feature and one layer (see the package doc). The
// layer's bounds on walls, tiles and extent are the scene's
// (appliance.BuildingLayerMax*): a layer the importer keeps is one
// engines/raytrace.NewScene builds.
const (
	// MaxRingsPerPolygon bounds the rings of one polygon (the outer ring
	// and its holes).
	MaxRingsPerPolygon = 64
	// MaxPartsPerFeature bounds the polygons of one multipolygon.
	MaxPartsPerFeature = 64
	// MaxFeatureVertices bounds the vertices of one feature, all rings
	// of all parts: validation compares the edges of a feature's rings
	// pairwise, so this bounds the work one feature costs (about 0.1 s).
	MaxFeatureVertices = 5 * MaxRingVertices
	// MinExpansionBytes is the decompressed size a small compressed file
	// may always reach, bytes, whatever MaxExpansion × its size.
	MinExpansionBytes = 1 << 20
	// ctxCheckVertices is how many vertices the collector validates
	// between two looks at the context.
	ctxCheckVertices = 1 << 14
)

// importRun is the state of one Parse shared by the decoders and the
// collector: the context, the decompression budget left and the layer's
// vertex count.
type importRun struct {
	ctx context.Context
	// budget is how many decompressed bytes the file may still expand
	// to, all layers of compression together (gzip, zip, PBF blobs).
	budget int64
	// limit is the budget at the start (for messages).
	limit    int64
	vertices int
	sinceCtx int
	err      error // a file-level failure found while collecting
}

func newRun(ctx context.Context, size int64, opts Options) *importRun {
	limit := min(opts.MaxBytes, size) * MaxExpansion
	limit = max(limit, MinExpansionBytes)
	return &importRun{ctx: ctx, budget: limit, limit: limit, sinceCtx: ctxCheckVertices}
}

// spend takes n decompressed bytes from the budget; false when they do not
// fit.
func (r *importRun) spend(n int64) bool {
	if n > r.budget {
		r.budget = 0
		return false
	}
	r.budget -= n
	return true
}

// tooLarge is the error of a file that expands beyond the budget.
func (r *importRun) tooLarge(what string) error {
	return invalid("file", "%s expands beyond %d bytes (at most %d× the uploaded size, or %d bytes for a small file); split the layer", what, r.limit, MaxExpansion, MinExpansionBytes)
}

// featureVertices checks the per-feature bounds before validation;
// the reason is "" when the feature may be validated.
func featureVertices(polys []orb.Polygon) (int, string) {
	if len(polys) > MaxPartsPerFeature {
		return 0, fmt.Sprintf("has %d parts, more than the %d one feature may have", len(polys), MaxPartsPerFeature)
	}
	n := 0
	for pi, p := range polys {
		if len(p) > MaxRingsPerPolygon {
			if len(polys) > 1 {
				return 0, fmt.Sprintf("part %d has %d rings (%d holes), more than the %d one polygon may have", pi+1, len(p), len(p)-1, MaxRingsPerPolygon)
			}
			return 0, fmt.Sprintf("has %d rings (%d holes), more than the %d one polygon may have", len(p), len(p)-1, MaxRingsPerPolygon)
		}
		for _, r := range p {
			n += len(r)
		}
	}
	if n > MaxFeatureVertices {
		return n, fmt.Sprintf("has %d vertices, more than the %d one feature may have", n, MaxFeatureVertices)
	}
	return n, ""
}

// admit counts a feature's vertices into the layer and looks at the
// context every ctxCheckVertices vertices; false when the import must stop
// (r.err says why).
func (r *importRun) admit(n int) bool {
	if r.err != nil {
		return false
	}
	r.sinceCtx += n
	if r.sinceCtx >= ctxCheckVertices {
		r.sinceCtx = 0
		if err := r.ctx.Err(); err != nil {
			r.err = fmt.Errorf("import building layer: %w", err)
			return false
		}
	}
	r.vertices += n
	if r.vertices > appliance.BuildingLayerMaxVertices {
		r.err = invalid("file", "holds more than %d ring vertices, the most one layer may hold; split the layer", appliance.BuildingLayerMaxVertices)
		return false
	}
	return true
}

// checkLayer applies the layer's bounds to the buildings kept: the extent
// (half the bounds' diagonal), the vertices and the walls' scattering
// tiles, measured as the scene measures them.
func checkLayer(bs []appliance.Building) error {
	sz := appliance.MeasureBuildingLayer(bs, appliance.BuildingLayerCentre(bs))
	if sz.HalfDiagonalM > appliance.BuildingLayerMaxHalfDiagonalM {
		return invalid("file", "spans %.1f km from its centre to a corner of its bounds; at most %.0f km is traced from a layer's centre: split the layer into smaller areas",
			sz.HalfDiagonalM/1000, appliance.BuildingLayerMaxHalfDiagonalM/1000)
	}
	if sz.Vertices > appliance.BuildingLayerMaxVertices {
		return invalid("file", "holds %d ring vertices; at most %d: split the layer", sz.Vertices, appliance.BuildingLayerMaxVertices)
	}
	if sz.WallTiles > appliance.BuildingLayerMaxWallTiles {
		return invalid("file", "has %.2f km² of walls (%d scattering tiles of at most %g m × %g m); at most %d tiles: split the layer or check the heights",
			sz.WallAreaM2/1e6, sz.WallTiles, appliance.RaytraceScatterTileM, appliance.RaytraceScatterTileM, appliance.BuildingLayerMaxWallTiles)
	}
	return nil
}
