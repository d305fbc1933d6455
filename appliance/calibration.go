package appliance

import (
	"math"
	"strconv"
)

// Calibration of a tenant's predictions against its own measurements
// (issue 26 scope 5; package appliance/calibration fits it, the planner and
// the coverage maps apply it). The offsets are fitted on the residuals
// observed − predicted (dB) of the tenant's consented observations, per
// engine and per calibration cell (one transmitter on one band), and
// applied only to that tenant's answers for those transmitters.

// WarnCalibrationOutsideArea: the answer's transmitter is calibrated
// against the tenant's measurements, but the receiver (or part of a map)
// lies outside the area the measurements cover: only the transmitter's
// offset applies there, not the local correction, and the offset was
// fitted elsewhere.
const WarnCalibrationOutsideArea = "calibration_outside_area"

// CalibrationInfo is the calibration an answer carries for one number
// (the wire object "calibration").
type CalibrationInfo struct {
	// OffsetDB was added to the engine's predicted level, dB (positive:
	// the measurements were stronger than the engine predicts).
	OffsetDB float64 `json:"offset_db"`
	// N is the number of observations of the calibration cell.
	N int `json:"n"`
	// CVRMSEBeforeDB and CVRMSEAfterDB are the cell's cross-validated RMSE
	// of the engine without and with the calibration, dB (spatially
	// blocked folds; package appliance/calibration).
	CVRMSEBeforeDB float64 `json:"cv_rmse_before_db"`
	CVRMSEAfterDB  float64 `json:"cv_rmse_after_db"`
	// Engine is the engine the calibration corrects.
	Engine EngineID `json:"engine"`
	// Cell names the calibration cell ("tower:<id>@<band>MHz" or
	// "tx:<lat>,<lon>@<band>MHz").
	Cell string `json:"cell"`
	// InsideArea is false where the receiver lies outside the area the
	// cell's measurements cover (then OffsetDB is the cell's offset alone
	// and the answer warns calibration_outside_area).
	InsideArea bool `json:"inside_area"`
	// FittedAtUnix is when the calibration was fitted, epoch seconds.
	FittedAtUnix float64 `json:"fitted_at"`
}

// TenantCalibration is a tenant's fitted calibration: one EngineCalibration
// per engine the fit covered.
type TenantCalibration struct {
	TenantID     string              `json:"tenant_id"`
	FittedAtUnix float64             `json:"fitted_at"` // epoch seconds
	Engines      []EngineCalibration `json:"engines"`
}

// EngineCalibration is the calibration of one engine's predictions.
type EngineCalibration struct {
	Engine EngineID `json:"engine"`
	// N is the number of residuals the fit used (every cell's).
	N int `json:"n"`
	// NValidated is the number of residuals the cross-validation could
	// test: those whose transmitter also has measurements in other folds
	// (the others would get no calibration there).
	NValidated int `json:"n_validated"`
	// CVRMSEBeforeDB and CVRMSEAfterDB are the cross-validated RMSE of the
	// engine over the validated residuals without and with the
	// calibration, dB.
	CVRMSEBeforeDB float64 `json:"cv_rmse_before_db"`
	CVRMSEAfterDB  float64 `json:"cv_rmse_after_db"`
	// Applied is false when the calibration does not improve the
	// cross-validated RMSE: it is then never applied (Reason says why).
	Applied bool   `json:"applied"`
	Reason  string `json:"reason,omitempty"`
	// Note says why an applied calibration holds less than the fit could
	// have (the cell layers refused by the fold rule), "" otherwise.
	Note string `json:"note,omitempty"`
	// Method names the fitted layers: "offset", then "+slope" (a band
	// distance slope), "+sectorsN" (N azimuth sectors per cell), "+local"
	// (the local field), in that order.
	Method string            `json:"method"`
	Cells  []CellCalibration `json:"cells"`
	// Bands hold the tenant-wide offset of each band, for transmitters in
	// the calibrated region without measurements of their own.
	Bands []BandCalibration `json:"bands"`
}

// BandCalibration is the tenant-wide offset of one band for one engine:
// the level its cells' offsets deviate from. It applies to a transmitter
// of the band that has no cell of its own, inside Region only.
type BandCalibration struct {
	BandMHz int `json:"band_mhz"`
	// OffsetDB is the tenant-wide offset at 1 km, dB; SlopeDB the distance
	// slope, dB per decade (CalibrationDistanceTerm).
	OffsetDB float64 `json:"offset_db"`
	SlopeDB  float64 `json:"slope_db_per_decade"`
	N        int     `json:"n"`
	// NValidated counts the residuals that tested it: those whose
	// transmitter the training folds did not know.
	NValidated     int     `json:"n_validated"`
	CVRMSEBeforeDB float64 `json:"cv_rmse_before_db"`
	CVRMSEAfterDB  float64 `json:"cv_rmse_after_db"`
	Applied        bool    `json:"applied"`
	Reason         string  `json:"reason,omitempty"`
	// Region is the box of the band's transmitters and receivers widened
	// by appliance/calibration's region margin.
	Region CalibrationRegion `json:"region"`
}

// CalibrationRegion is a box in WGS84 degrees.
type CalibrationRegion struct {
	MinLat float64 `json:"min_lat"`
	MinLon float64 `json:"min_lon"`
	MaxLat float64 `json:"max_lat"`
	MaxLon float64 `json:"max_lon"`
}

// Contains reports whether p lies in the region (edges included).
func (r CalibrationRegion) Contains(p LatLon) bool {
	return p.Lat >= r.MinLat && p.Lat <= r.MaxLat && p.Lon >= r.MinLon && p.Lon <= r.MaxLon
}

// CellCalibration is the calibration of one transmitter on one band for
// one engine.
type CellCalibration struct {
	// Key is the cell's key (CalibrationCellKey).
	Key string `json:"key"`
	// TowerID is the tower of the observations ("" when they named a
	// transmitter position only).
	TowerID string `json:"tower_id,omitempty"`
	// Tx is the transmitter position, WGS84 degrees (LatLon(Tx)).
	Tx CalibrationPosition `json:"tx"`
	// BandMHz is the nominal band of the cell (CalibrationBandMHz).
	BandMHz int `json:"band_mhz"`
	// OffsetDB is the cell's offset at 1 km, dB, added everywhere the
	// calibration applies, with SlopeDB times CalibrationDistanceTerm.
	OffsetDB float64 `json:"offset_db"`
	// SlopeDB is the band's distance slope, dB per decade of distance (0
	// when the fit chose none).
	SlopeDB float64 `json:"slope_db_per_decade"`
	// SectorsDB are the cell's azimuth-sector offsets, dB, added to
	// OffsetDB: sector j covers receivers whose bearing from Tx lies in
	// [j·360/len, (j+1)·360/len) degrees from north (CalibrationSector).
	// Empty when the fit chose none.
	SectorsDB []float64 `json:"sector_offsets_db,omitempty"`
	N         int       `json:"n"`
	// NValidated is the number of the cell's residuals the
	// cross-validation tested (its measurements in one fold of blocks
	// while other folds also had some). 0: all its measurements lie in one
	// fold, so the cell has no held-out test of its own; it is applied
	// with its engine's calibration and carries the engine's figures.
	NValidated int `json:"n_validated"`
	// CVRMSEBeforeDB and CVRMSEAfterDB: the cross-validated RMSE of the
	// cell's validated residuals (the engine's when none), dB.
	CVRMSEBeforeDB float64 `json:"cv_rmse_before_db"`
	CVRMSEAfterDB  float64 `json:"cv_rmse_after_db"`
	// Applied is false when the calibration does not improve the cell's
	// cross-validated RMSE: the cell is then never applied.
	Applied bool   `json:"applied"`
	Reason  string `json:"reason,omitempty"`
	// GridM is the side of the squares of Area, metres, in the local frame
	// of Tx (CalibrationSquare).
	GridM float64 `json:"grid_m"`
	// Area is the calibrated area: the squares near the cell's
	// measurements, each with its local correction, dB, added to OffsetDB
	// (0 when the fit chose no local layer).
	Area []CalibrationSquare `json:"area,omitempty"`
	// AreaSquares is len(Area) where a listing leaves Area out.
	AreaSquares int `json:"area_squares,omitempty"`

	index map[int64]float64 // Area by square, built on first use
}

// CalibrationPosition is a position in WGS84 degrees as a calibration
// stores and shows it ({"lat","lon"}); LatLon(p) converts it.
type CalibrationPosition struct {
	Lat float64 `json:"lat"`
	Lon float64 `json:"lon"`
}

// CalibrationSquare is one square of a calibrated area: its column (east)
// and row (north) in the cell's local frame (CellCalibration.Square) and
// its local correction, dB.
type CalibrationSquare struct {
	X       int32   `json:"x"`
	Y       int32   `json:"y"`
	LocalDB float64 `json:"local_db"`
}

// calibrationEarthRadiusM is the sphere of the local frames, metres.
const calibrationEarthRadiusM = 6371008.8

// CalibrationFrame returns the column and row of the square of side gridM
// metres holding p, in the local frame of origin: east and north metres on
// the tangent plane, x = R·Δλ·cos φ0, y = R·Δφ (R = 6 371 008.8 m), then
// floor(x / gridM), floor(y / gridM). The frame is good to a fraction of a
// square over the tens of kilometres of a calibration cell.
func CalibrationFrame(origin, p LatLon, gridM float64) (x, y int32) {
	dLon := math.Remainder(p.Lon-origin.Lon, 360)
	ex := calibrationEarthRadiusM * dLon * math.Pi / 180 * math.Cos(origin.Lat*math.Pi/180)
	ny := calibrationEarthRadiusM * (p.Lat - origin.Lat) * math.Pi / 180
	return int32(math.Floor(ex / gridM)), int32(math.Floor(ny / gridM))
}

func squareKey(x, y int32) int64 { return int64(x)<<32 | int64(uint32(y)) }

// CalibrationDistanceTerm is the distance variable of the calibration
// slopes: log10(d / 1 km), d the transmitter–receiver distance, at least
// 10 m.
func CalibrationDistanceTerm(tx, rx LatLon) float64 {
	return math.Log10(math.Max(tx.DistanceM(rx), 10) / 1000)
}

// CalibrationSector returns the azimuth sector of rx seen from tx among n
// equal sectors clockwise from north: floor(bearing / (360° / n)), 0 for
// n ≤ 1.
func CalibrationSector(tx, rx LatLon, n int) int {
	if n <= 1 {
		return 0
	}
	b := tx.BearingDeg(rx) // [0, 360)
	if !(b >= 0) {
		b = 0 // NaN: rx at tx
	}
	return min(int(b/(360/float64(n))), n-1)
}

// At returns the cell's correction at receiver rx, dB, and whether rx lies
// in the calibrated area: OffsetDB + SlopeDB·CalibrationDistanceTerm + the
// offset of rx's azimuth sector, plus the local correction of rx's square,
// without it outside the area. It is safe for concurrent use once Prepare
// has run.
func (c *CellCalibration) At(rx LatLon) (offsetDB float64, inside bool) {
	base := c.OffsetDB
	if c.SlopeDB != 0 {
		base += c.SlopeDB * CalibrationDistanceTerm(LatLon(c.Tx), rx)
	}
	if len(c.SectorsDB) > 0 {
		base += c.SectorsDB[CalibrationSector(LatLon(c.Tx), rx, len(c.SectorsDB))]
	}
	if c.GridM <= 0 {
		return base, false
	}
	x, y := CalibrationFrame(LatLon(c.Tx), rx, c.GridM)
	local, ok := c.index[squareKey(x, y)]
	if !ok {
		return base, false
	}
	return base + local, true
}

// Prepare builds the lookup index of the area; call it once before At
// (Prepare on a TenantCalibration prepares every cell).
func (c *CellCalibration) Prepare() {
	c.index = make(map[int64]float64, len(c.Area))
	for _, s := range c.Area {
		c.index[squareKey(s.X, s.Y)] = s.LocalDB
	}
}

// Prepare builds the lookup index of every cell.
func (t *TenantCalibration) Prepare() {
	for i := range t.Engines {
		for j := range t.Engines[i].Cells {
			t.Engines[i].Cells[j].Prepare()
		}
	}
}

// CalibrationMatchM is how far a transmitter may lie from a cell's
// position and still take its calibration when the cell has no tower id
// (or the answer's transmitter is not that tower), metres.
const CalibrationMatchM = 30.0

// CalibrationTarget is the calibration that applies to one transmitter's
// predictions by one engine: its own cell's, or the band's tenant-wide
// offset.
type CalibrationTarget struct {
	Engine       EngineID
	Cell         *CellCalibration // nil: Band applies
	Band         *BandCalibration
	FittedAtUnix float64
}

// For returns the calibration of engine's predictions from a transmitter
// (tower id, "" for an explicit site, and position) on frequency freqMHz,
// or nil: the applied cell of the tower id on the band, else the nearest
// applied cell of the band within CalibrationMatchM of pos, else the
// band's applied tenant-wide offset when pos lies in its region. An
// engine calibration that is not applied gives nil.
func (t *TenantCalibration) For(engine EngineID, towerID string, pos LatLon, freqMHz float64) *CalibrationTarget {
	if t == nil {
		return nil
	}
	band := CalibrationBandMHz(freqMHz)
	for i := range t.Engines {
		e := &t.Engines[i]
		if e.Engine != engine || !e.Applied {
			continue
		}
		var best *CellCalibration
		bestD := CalibrationMatchM
		for j := range e.Cells {
			c := &e.Cells[j]
			if !c.Applied || c.BandMHz != band {
				continue
			}
			if towerID != "" && c.TowerID == towerID {
				best = c
				break
			}
			if d := pos.DistanceM(LatLon(c.Tx)); d <= bestD {
				best, bestD = c, d
			}
		}
		if best != nil {
			return &CalibrationTarget{Engine: engine, Cell: best, FittedAtUnix: t.FittedAtUnix}
		}
		for j := range e.Bands {
			b := &e.Bands[j]
			if b.Applied && b.BandMHz == band && b.Region.Contains(pos) {
				return &CalibrationTarget{Engine: engine, Band: b, FittedAtUnix: t.FittedAtUnix}
			}
		}
		return nil
	}
	return nil
}

// At returns the correction at receiver rx of a transmitter at tx, dB,
// and what an answer carries for it.
func (c *CalibrationTarget) At(tx, rx LatLon) CalibrationInfo {
	if c.Cell == nil {
		b := c.Band
		return CalibrationInfo{OffsetDB: b.OffsetDB + b.SlopeDB*CalibrationDistanceTerm(tx, rx), N: b.N, CVRMSEBeforeDB: b.CVRMSEBeforeDB, CVRMSEAfterDB: b.CVRMSEAfterDB,
			Engine: c.Engine, Cell: "band@" + strconv.Itoa(b.BandMHz) + "MHz", FittedAtUnix: c.FittedAtUnix}
	}
	off, inside := c.Cell.At(rx)
	return CalibrationInfo{OffsetDB: off, N: c.Cell.N, CVRMSEBeforeDB: c.Cell.CVRMSEBeforeDB, CVRMSEAfterDB: c.Cell.CVRMSEAfterDB,
		Engine: c.Engine, Cell: c.Cell.Key, InsideArea: inside, FittedAtUnix: c.FittedAtUnix}
}

// Warning returns the warning an answer owes for info, if any: outside the
// calibrated area of the transmitter's cell, or a transmitter without
// measurements of its own (the band's tenant-wide offset).
func (info *CalibrationInfo) Warning() (Warning, bool) {
	if info.InsideArea {
		return Warning{}, false
	}
	if len(info.Cell) > 5 && info.Cell[:5] == "band@" {
		return Warning{Code: WarnCalibrationOutsideArea, Message: "this transmitter has no measurements of the tenant's own: the tenant-wide offset of the band (" +
			info.Cell + ", fitted on the tenant's other transmitters) applies, not a calibration of this transmitter"}, true
	}
	return OutsideAreaWarning(info.Cell), true
}

// OutsideAreaWarning is the warning of an answer whose receiver lies
// outside the calibrated area of its transmitter's cell.
func OutsideAreaWarning(cell string) Warning {
	return Warning{Code: WarnCalibrationOutsideArea, Message: "the tenant's calibration of this transmitter (" + cell +
		") was fitted on measurements elsewhere: only its transmitter-wide offset applies here, not the local correction of the measured area"}
}

// CalibrationBands are the nominal bands of calibration cells, MHz (SPEC
// §2.5's seven bands).
var calibrationBands = [...]int{700, 850, 900, 1800, 2100, 2600, 3500}

// CalibrationBandMHz returns the band of a frequency: the nearest of SPEC
// §2.5's seven bands (700, 850, 900, 1800, 2100, 2600, 3500 MHz; a tie
// goes to the lower band).
func CalibrationBandMHz(freqMHz float64) int {
	best, bestD := calibrationBands[0], math.Inf(1)
	for _, b := range calibrationBands {
		if d := math.Abs(freqMHz - float64(b)); d < bestD {
			best, bestD = b, d
		}
	}
	return best
}

// CalibrationCellKey returns the key of the calibration cell of an
// observation: "tower:<id>@<band>MHz" when it names a tower, else
// "tx:<lat>,<lon>@<band>MHz" with the transmitter position to 5 decimals
// (about 1 m).
func CalibrationCellKey(towerID string, tx LatLon, freqMHz float64) string {
	band := strconv.Itoa(CalibrationBandMHz(freqMHz)) + "MHz"
	if towerID != "" {
		return "tower:" + towerID + "@" + band
	}
	return "tx:" + strconv.FormatFloat(tx.Lat, 'f', 5, 64) + "," + strconv.FormatFloat(tx.Lon, 'f', 5, 64) + "@" + band
}

// CalibrationSettings is a tenant's choice about calibration (opt-in,
// SPEC-style consent of the tenant: off until it turns it on).
type CalibrationSettings struct {
	TenantID string `json:"tenant_id"`
	Enabled  bool   `json:"enabled"`
	// ChangedAtUnix is when Enabled last changed, epoch seconds, and
	// ChangedBy the key that changed it.
	ChangedAtUnix float64 `json:"changed_at"`
	ChangedBy     string  `json:"changed_by"`
	// Tier is the tier of the key that changed it: the caps and lane of
	// the refits that new observations queue.
	Tier Tier `json:"tier"`
}

// Calibrations gives the calibration of a tenant's predictions, nil when
// the tenant has none applied (not opted in, not fitted yet, or refused).
// The planner and the coverage maps look it up; package
// appliance/calibration implements it.
type Calibrations interface {
	Calibration(tenantID string) *TenantCalibration
}
