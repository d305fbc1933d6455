package coverage

import (
	"fmt"
	"strconv"

	"linkplan/appliance/geoexport"
)

// viewshedAgreement is the default mode's measured agreement of a
// viewshed's class with /analyze's path check on the pixel's own
// Terrain.Profile: the share of identical pixels, %, the worst over
// every pixel of the 5 and 10 km Pedra Branca maps
// (TestIssue22_ViewshedExact) and 4000 random pixels (seed 22) of the
// Sumaré 30 and 50 km maps at 3″ and the 10 km map at 1″
// (BenchmarkIssue22_ViewshedPixelTruth): 100 % each.
const viewshedAgreement = 100.0

// viewshedPixelInfo says what a viewshed pixel stands for (package doc,
// "Pixels"; viewshed.go): its class in place of a level, so that
// Within1DBPct and Within3DBPct hold the share of pixels whose class is
// /analyze's and MaxAbsDB is 0.
func viewshedPixelInfo(req ViewshedRequest, stepM float64) PixelInfo {
	p := PixelInfo{Receiver: fmt.Sprintf("the pixel centre, %g m above ground", req.RxHeightM)}
	if req.Exact {
		p.Mode = PixelModeExact
		p.Profile = fmt.Sprintf("its own: the terrain profile from the site to the pixel centre every %.3f m, as /analyze builds it; the /analyze path check on it", stepM)
		p.Within1DBPct, p.Within3DBPct = 100, 100
		p.Source = "by construction (classes, not levels: the share of pixels identical to the /analyze path check); tested on every pixel of the 5 and 10 km Pedra Branca maps (TestIssue22_ViewshedExact)"
		return p
	}
	p.Mode = PixelModeDefault
	p.Profile = fmt.Sprintf("its own, every %.3f m from the site to the pixel centre (points within a centimetre of the profile /analyze builds): the /analyze path check on it, the samples that terrain height bounds cannot prove clear read exactly, near-ties on the profile /analyze builds", stepM)
	p.Within1DBPct, p.Within3DBPct = viewshedAgreement, viewshedAgreement
	p.Source = "classes, not levels: the share of pixels identical to the /analyze path check on their own profiles, every pixel of the 5 and 10 km Pedra Branca maps and 4000 random pixels of the Sumaré (Rio) 30 and 50 km maps at 3 arc-seconds and 10 km at 1 arc-second (TestIssue22_ViewshedExact, BenchmarkIssue22_ViewshedPixelTruth)"
	return p
}

// PixelMetadataItems are the GeoTIFF metadata items of p (what a pixel
// stands for): PIXEL_MODE, PIXEL_RECEIVER, PIXEL_PROFILE,
// PIXEL_WITHIN_1DB_PCT, PIXEL_WITHIN_3DB_PCT, PIXEL_MAX_ABS_DB and
// PIXEL_AGREEMENT_SOURCE; none when p has no mode.
func PixelMetadataItems(p PixelInfo) []geoexport.MetadataItem {
	if p.Mode == "" {
		return nil
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	return []geoexport.MetadataItem{
		{Name: "PIXEL_MODE", Value: p.Mode},
		{Name: "PIXEL_RECEIVER", Value: p.Receiver},
		{Name: "PIXEL_PROFILE", Value: p.Profile},
		{Name: "PIXEL_WITHIN_1DB_PCT", Value: f(p.Within1DBPct)},
		{Name: "PIXEL_WITHIN_3DB_PCT", Value: f(p.Within3DBPct)},
		{Name: "PIXEL_MAX_ABS_DB", Value: f(p.MaxAbsDB)},
		{Name: "PIXEL_AGREEMENT_SOURCE", Value: p.Source},
	}
}
