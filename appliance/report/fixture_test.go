package report

import (
	"fmt"
	"math"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/planner"
)

// created is the fixed creation time of every test report.
var created = time.Date(2026, 11, 25, 6, 0, 0, 0, time.UTC)

// sampleInput is a realistic link report input: a 12.4 km path over rolling
// terrain with a ridge near 60 % of the way, checked by the planner's
// CheckPath (k = 4/3) at 850 MHz.
func sampleInput(tb testing.TB) Input {
	tb.Helper()
	const n = 600
	const lengthM = 12_400.0
	prof := &appliance.PathProfile{DistancesM: make([]float64, n), HeightsM: make([]float64, n), VoidFilled: make([]bool, n)}
	for i := range n {
		d := lengthM * float64(i) / (n - 1)
		x := d / lengthM
		h := 780 + 40*math.Sin(9*x) + 18*math.Sin(31*x+1) - 25*x
		// The ridge.
		h += 95 * math.Exp(-math.Pow((x-0.62)/0.05, 2))
		prof.DistancesM[i] = d
		prof.HeightsM[i] = h
		prof.VoidFilled[i] = i > 200 && i < 206
	}
	pc, err := planner.CheckPath(prof, 45, 10, 850)
	if err != nil {
		tb.Fatalf("CheckPath: %v", err)
	}
	tower := &appliance.Tower{
		ID: "anatel:1234567-ERB-Serra", Source: appliance.SourceAnatel, Operator: "Vivo",
		Lat: -22.912345, Lon: -47.061234, HeightM: 45, ERPDBm: 58.3, AzimuthDeg: 120, TiltDeg: 2,
		Placement: appliance.PlacementSurveyed, UncertaintyM: 30, Provenance: "Anatel SMP licensing export 2026-10",
		UpdatedUnix: time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC).Unix(),
	}
	pred := appliance.LinkPrediction{
		Engine: appliance.EngineP1812, EngineVersion: "p1812-8/1", PathLossDB: 1234.56 - 1100,
		LOSClear: pc.Obstacle.ClearanceM > 0, FresnelOK: pc.Obstacle.ClearanceF1 >= 0.6,
		MinClearanceRatio: pc.Obstacle.ClearanceF1, DiffractionDB: 6.8,
	}
	c := &appliance.LinkCandidate{
		Tower: tower, DistanceKm: 12.4, AzimuthDeg: 301.7, TowerToRxDeg: 121.6, Prediction: pred,
		EIRPDBm: 60.45, PatternLossDB: 1.3, TowerGroundM: pc.Profile[0].GroundM, Path: pc,
		Warnings: []appliance.Warning{
			{Code: appliance.WarnVoidFilledTerrain, Message: "The path crosses terrain heights interpolated across voids of the source DEM."},
			{Code: appliance.WarnNoLandCover, Message: "No land-cover layer covers this path; clutter losses are not modelled."},
		},
	}
	req := appliance.LinkRequest{
		Receiver: appliance.LatLon{Lat: -22.860512, Lon: -47.152908}, RxHeightM: 10, FreqMHz: 850,
		RxGainDBi: 12, CableLossDB: 2.5, RxThresholdDBm: -100,
	}
	c.RxPowerDBm = c.EIRPDBm - pred.PathLossDB - c.PatternLossDB + req.RxGainDBi - req.CableLossDB
	c.LinkMarginDB = c.RxPowerDBm - req.RxThresholdDBm
	return Input{Candidate: c, Request: req, ReceiverGroundM: math.NaN()}
}

// sampleSummary is a realistic batch summary input: 240 rows with every
// status, margins spread over -12..38 dB and a PDF quota that left some
// reports out.
func sampleSummary() SummaryInput {
	in := SummaryInput{
		JobID: "job_01JD7M8Q2X5K9", TenantID: "tn_acme", TenantName: "Acme Telecom",
		Engines:      []string{"p1812 p1812-8/1"},
		PDFsIncluded: 150, PDFsLeftOut: 62,
		PDFsLeftOutReason: "monthly PDF quota of the tier reached (500 a month)",
		Provenance: []string{
			"Towers: Anatel SMP licensing export 2026-10 (snapshot 2026-11-01)",
			"Terrain: SRTM 1 arc-second packs, void-filled (pack set 2026.2)",
			"Land cover: MapBiomas collection 9 (2023)",
		},
	}
	for i := range 240 {
		row := SummaryRow{
			Row: int64(i + 1), ReceiverID: fmt.Sprintf("rx-%04d", i+1),
			Lat: -22.9 + 0.01*float64(i%17), Lon: -47.06 - 0.013*float64(i%23),
			TowerID: fmt.Sprintf("anatel:%07d", 1000000+i%37), DistanceKm: 1.5 + float64(i%29)*0.7,
		}
		// A deterministic spread of margins, skewed high.
		row.MarginDB = -12 + 50*math.Pow(float64((i*101)%240)/240, 0.7)
		switch {
		case i%31 == 5:
			row.Status, row.Reason = StatusNoTower, "no tower within 30 km"
			row.TowerID, row.DistanceKm, row.MarginDB = "", math.NaN(), math.NaN()
		case i%53 == 7:
			row.Status, row.Reason = StatusError, "terrain tile S23W048 not installed"
			row.TowerID, row.DistanceKm, row.MarginDB = "", math.NaN(), math.NaN()
		case row.MarginDB < 10:
			row.Status, row.Reason = StatusLowMargin, "margin below 10 dB"
		default:
			row.Status = StatusOK
		}
		in.Rows = append(in.Rows, row)
	}
	return in
}
