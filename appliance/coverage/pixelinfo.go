package coverage

import (
	"fmt"

	"linkplan/appliance"
)

// Pixel modes of a map (Request.Exact).
const (
	PixelModeDefault = "default"
	PixelModeExact   = "exact"
)

// PixelInfo says what a map's pixel stands for (package doc, "Pixels"): it
// travels in the summary event, GET's summary and every export.
type PixelInfo struct {
	Mode     string // PixelModeDefault or PixelModeExact
	Receiver string // the receiver position the pixel stands for
	Profile  string // the terrain profile its value was computed on
	// The measured agreement of the mode (and engine) with the
	// point-to-point answer on the pixel's own profile (/analyze_link for
	// a receiver at the pixel centre): the share of pixels within 1 dB
	// and 3 dB, %, and the largest difference seen, dB; Source says where
	// it was measured.
	Within1DBPct, Within3DBPct, MaxAbsDB float64
	Source                               string
}

// pixelAgreement is the default mode's agreement per engine (within 1 dB,
// %; within 3 dB, %; largest difference, dB), the worst over the Sumaré
// maps of the Rio sample: every pixel of the 5 km map
// (TestIssue22_PixelTruth) and 4000 random pixels (seed 22) of the 30 and
// 50 km maps at 3″ and the 10 km map at 1″ (BenchmarkIssue22_PixelTruth).
// fspl samples exactly (within a centimetre of Terrain.Profile's points)
// every sample of its own profile that the terrain bounds cannot rule out
// as the knife edge; p1812 every sample that can hold one of its maxima
// (horizons, Bullington slopes and ν, obstruction, roughness), its smooth
// surface integrated from the radial.
var pixelAgreement = map[appliance.EngineID][3]float64{
	appliance.EngineITM:   {99.59, 99.99, 3.18},
	appliance.EngineFSPL:  {100, 100, 0.016},
	appliance.EngineP1812: {100, 100, 0.034}, // the 10 km map at 1″ with its own radius's radials (2000 pixels, BenchmarkIssue22_ExactRatio)
}

// ownProfileAgreement is the default mode's agreement for engines without
// a PixelSweeper: every pixel computed on its own profile sampled through
// appliance.RadialProfiler (points within a centimetre of
// Terrain.Profile's), measured with p1812 on that path before it had a
// PixelSweeper.
var ownProfileAgreement = [3]float64{100, 100, 0.011}

// pixelInfo describes the pixels of req's map, profiled every stepM
// metres.
func pixelInfo(req Request, stepM float64) PixelInfo {
	p := PixelInfo{Receiver: fmt.Sprintf("the pixel centre, %g m above ground (isotropic, 0 dBi), the antenna pattern at its own bearing", req.RxHeightM)}
	if req.Exact {
		p.Mode = PixelModeExact
		p.Profile = fmt.Sprintf("its own: the terrain profile from the transmitter to the pixel centre every %.3f m, as /analyze_link builds it", stepM)
		p.Within1DBPct, p.Within3DBPct, p.MaxAbsDB = 100, 100, 0
		p.Source = "by construction; tested within 0.01 dB on every pixel of the 5 km Sumaré maps (TestIssue22_PixelTruth)"
		return p
	}
	p.Mode = PixelModeDefault
	p.Profile = fmt.Sprintf("its own: every %.3f m from the transmitter to the pixel centre, sampled within a centimetre of /analyze_link's", stepM)
	if req.Engine == appliance.EngineFSPL {
		p.Profile = fmt.Sprintf("its own (every %.3f m to the pixel centre, within a centimetre of /analyze_link's): the samples that can hold the knife edge sampled exactly, the others ruled out by terrain height bounds", stepM)
	}
	if req.Engine == appliance.EngineITM {
		p.Profile = fmt.Sprintf("its own (every %.3f m to the pixel centre) for the horizons, the end heights and the length; the terrain roughness and effective heights from the nearest radial's heights at the same distances", stepM)
	}
	if req.Engine == appliance.EngineP1812 {
		p.Profile = fmt.Sprintf("its own (every %.3f m to the pixel centre) for the horizons, the Bullington obstacles, the obstruction, the roughness, the end heights and the length: the samples that can hold them sampled exactly, the others ruled out by terrain height bounds; the least-squares smooth surface from the nearest radial's heights at the same distances", stepM)
	}
	a, ok := pixelAgreement[req.Engine]
	if !ok {
		a = ownProfileAgreement
	}
	p.Within1DBPct, p.Within3DBPct, p.MaxAbsDB = a[0], a[1], a[2]
	p.Source = "measured on the Sumaré (Rio) maps: every pixel of 5 km, 4000 random pixels of 30 and 50 km at 3 arc-seconds and 10 km at 1 arc-second (TestIssue22_PixelTruth, BenchmarkIssue22_PixelTruth)"
	return p
}
