package interference

import (
	"fmt"

	"linkplan/appliance"
	"linkplan/appliance/coverage"
)

// sinrAgreement is the default mode's measured agreement of the SINR
// with the direct computation from every transmitter's point-to-point
// answer at the pixel centre (package doc, "Pixels"), per engine: within
// 1 dB, %; within 3 dB, %; the largest difference, dB. The worst over
// every pixel of the hand-built 5 km map (TestIssue22_InterferencePixelTruth)
// and, for itm, 4000 random pixels (seed 22) of the three-transmitter Rio
// maps of 30 and 50 km at 3″ and 10 km at 1″
// (BenchmarkIssue22_InterferencePixelTruth): package doc, "Pixels".
var sinrAgreement = map[appliance.EngineID][3]float64{
	appliance.EngineITM:   {99.840, 99.994, 4.019},
	appliance.EngineFSPL:  {100, 100, 0.020},
	appliance.EngineP1812: {100, 100, 0.063},
}

// pixelInfo says what a pixel of req's map stands for, its transmitters
// profiled every stepM metres.
func pixelInfo(req Request, stepM float64) coverage.PixelInfo {
	t := req.Transmitters[0]
	p := coverage.PixelInfo{Receiver: fmt.Sprintf("the pixel centre, %g m above ground (isotropic, 0 dBi), each transmitter's antenna pattern at the pixel's own bearing from it", t.RxHeightM)}
	if req.exact() {
		p.Mode = coverage.PixelModeExact
		p.Profile = fmt.Sprintf("every transmitter's level on its own terrain profile to the pixel centre every %.3f m, as /analyze_link builds it (the engine's point-to-point answer); best server, carrier, interference, C/I and SINR combined from those levels", stepM)
		p.Within1DBPct, p.Within3DBPct = 100, 100
		p.Source = "by construction; tested within 0.01 dB (SINR, C/I and carrier; measured 0.000) on every pixel of the hand-built 5 km map for fspl, itm and p1812 (TestIssue22_InterferencePixelTruth)"
		return p
	}
	p.Mode = coverage.PixelModeDefault
	p.Profile = fmt.Sprintf("every transmitter's level as its heatmap's default pixel (its own profile to the pixel centre every %.3f m, with the engine's bounded approximations: see the heatmaps' pixel); best server, carrier, interference, C/I and SINR combined from those levels", stepM)
	a, ok := sinrAgreement[t.Engine]
	if !ok {
		// the other engines' default pixel is computed on its own profile
		// through the radial profiler (within a centimetre): as exact
		a = [3]float64{100, 100, 0.011}
	}
	p.Within1DBPct, p.Within3DBPct, p.MaxAbsDB = a[0], a[1], a[2]
	p.Source = "the SINR against the same formula on every transmitter's point-to-point answer at the pixel centre: every pixel of the hand-built 5 km map and 4000 random pixels of the Sumaré (Rio) three-transmitter maps of 30 and 50 km at 3 arc-seconds and 10 km at 1 arc-second (TestIssue22_InterferencePixelTruth, BenchmarkIssue22_InterferencePixelTruth)"
	return p
}
