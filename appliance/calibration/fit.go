package calibration

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"linkplan/appliance"
	"linkplan/engines/ml"
	"linkplan/engines/ml/h3"
)

// Residual is one observation's residual for one engine: observed −
// predicted received level, dB, with where it was measured and which
// calibration cell (transmitter and band) it belongs to.
type Residual struct {
	Cell    string           // appliance.CalibrationCellKey
	TowerID string           // "" when the observation named a position only
	Tx      appliance.LatLon // transmitter, WGS84 degrees
	Rx      appliance.LatLon // receiver, WGS84 degrees
	BandMHz int              // appliance.CalibrationBandMHz of the carrier
	DB      float64          // observed − predicted, dB
	// Block is the H3 cell of Rx at BlockResolution: the unit of the
	// spatially blocked folds (Blocks fills it).
	Block h3.Cell
	// X is appliance.CalibrationDistanceTerm of the path, decades of
	// distance (Blocks fills it).
	X float64
}

// Params are the settings of a fit. DefaultParams documents the defaults
// and why.
type Params struct {
	Folds      int       // outer blocked folds (the reported CV)
	InnerFolds int       // blocked folds that choose the shrinkage on the training rows
	Seed       uint64    // permutation seed of the folds
	KGlobal    float64   // shrinkage of each band's tenant-wide level, points
	KCells     []float64 // candidate shrinkages of the cell offsets, points
	// SectorCounts are the candidate numbers of azimuth sectors per cell
	// and KSectors the candidate shrinkages of a sector's offset toward
	// its cell's, points; the inner folds may also choose no sectors.
	SectorCounts []int
	KSectors     []float64
	// KLocals are the candidate shrinkages of the local layer, points of
	// kernel weight; the inner folds may also choose no local layer.
	KLocals []float64
	SigmaM  float64 // Gaussian kernel of the local layer, metres
	GridM   float64 // square side of the local layer and the area, metres
	// SupportMin is the kernel-weighted number of observations a square
	// needs to belong to the calibrated area.
	SupportMin float64
	// RegionMarginM widens the box of a band's measurements into the
	// region where its tenant-wide level applies, metres.
	RegionMarginM float64
	// MaxFoldWorseningDB refuses a calibration that makes any outer fold's
	// RMSE worse by more than this, dB.
	MaxFoldWorseningDB float64
}

// BlockResolution is the H3 resolution of the blocks (about 0.74 km² a
// cell, 460 m edges): SPEC §2.6's grouping of the residual model's folds.
const BlockResolution = 8

// DefaultParams returns the documented defaults (doc.go, "Fit").
func DefaultParams() Params {
	return Params{Folds: ml.DefaultFolds, InnerFolds: 3, Seed: ml.CVSeed, KGlobal: 10,
		KCells:       []float64{KCellEmpiricalBayes, 10, 50, 200, math.Inf(1)},
		SectorCounts: []int{3, 6, 12}, KSectors: []float64{1, 4}, KLocals: []float64{1, 3, 10, 30},
		SigmaM: 100, GridM: 50, SupportMin: 0.01, RegionMarginM: 5000, MaxFoldWorseningDB: 0.2}
}

// Blocks fills the Block of every residual from its receiver, and its
// distance term X.
func Blocks(rs []Residual) error {
	for i := range rs {
		rs[i].X = appliance.CalibrationDistanceTerm(rs[i].Tx, rs[i].Rx)
		c, err := h3.LatLngToCell(rs[i].Rx.Lat, rs[i].Rx.Lon, BlockResolution)
		if err != nil {
			return fmt.Errorf("residual %d: block: %w", i, err)
		}
		rs[i].Block = c
	}
	return nil
}

// KCellEmpiricalBayes among Params.KCells asks for the empirical-Bayes
// shrinkage of the cell offsets: per band, the within-cell variance of
// the training residuals over the variance of the true cell offsets
// (the one-way random-effects moment estimator), +Inf when the cells do
// not differ more than their noise says.
const KCellEmpiricalBayes = -1

// config is one choice of the inner folds.
type config struct {
	slope   bool    // a distance slope per band
	kCell   float64 // shrinkage of the cell offsets (KCellEmpiricalBayes: estimated)
	sectors int     // 0: no azimuth sectors
	kSector float64 // shrinkage of the sector offsets
	kLocal  float64 // < 0: no local layer
}

func (c config) method() string {
	m := "offset"
	if c.slope {
		m += "+slope"
	}

	if c.sectors > 0 {
		m += "+sectors" + strconv.Itoa(c.sectors)
	}
	if c.kLocal >= 0 {
		m += "+local"
	}
	return m
}

// model is a fitted calibration: the tenant-wide level, each cell's offset
// (level included) and its local field.
type model struct {
	cfg config
	// refused are the cells the inner folds found better served by their
	// band's level: they get it (refuseCells).
	refused map[string]bool
	cells   map[string]*cellModel
	bands   map[int]*bandModel
}

// bandModel is a band's tenant-wide level: what a transmitter of the band
// without its own cell gets, inside the region.
type bandModel struct {
	level  float64 // at 1 km
	slope  float64 // dB per decade of distance
	n      int
	region appliance.CalibrationRegion
}

// at returns the band's correction of residual r.
func (b *bandModel) at(r *Residual) float64 { return b.level + b.slope*r.X }

type cellModel struct {
	key, tower string
	tx         appliance.LatLon
	band       int
	n          int
	offset     float64   // at 1 km
	slope      float64   // the band's or the cell's own, dB per decade
	sectors    []float64 // azimuth-sector offsets, dB (nil: none)
	// field holds the local correction of the squares evaluated (the test
	// squares in cross-validation, the area in the final model).
	field map[int64]float64
}

// at returns the cell's correction of residual r without the local field:
// offset, slope and sector, dB.
func (c *cellModel) at(r *Residual) float64 {
	v := c.offset + c.slope*r.X
	if len(c.sectors) > 0 {
		v += c.sectors[appliance.CalibrationSector(c.tx, r.Rx, len(c.sectors))]
	}
	return v
}

func sqKey(x, y int32) int64 { return int64(x)<<32 | int64(uint32(y)) }

func sqXY(k int64) (int32, int32) { return int32(k >> 32), int32(uint32(k)) }

// kernel is the truncated Gaussian of the local layer on the grid.
type kernel struct {
	r int
	w []float64 // (2r+1)² weights, row-major from (−r, −r)
}

func newKernel(p Params) kernel {
	r := int(math.Ceil(3 * p.SigmaM / p.GridM))
	k := kernel{r: r, w: make([]float64, (2*r+1)*(2*r+1))}
	for dy := -r; dy <= r; dy++ {
		for dx := -r; dx <= r; dx++ {
			d2 := float64(dx*dx+dy*dy) * p.GridM * p.GridM
			k.w[(dy+r)*(2*r+1)+dx+r] = math.Exp(-d2 / (2 * p.SigmaM * p.SigmaM))
		}
	}
	return k
}

// agg is a cell's residuals after its offset, summed by square.
type agg struct {
	sum, n map[int64]float64
}

// smooth returns the kernel-weighted sums of residual and count at square
// k (the neighbours are visited in a fixed order: the sums do not depend on
// map order).
func (kn kernel) smooth(a agg, k int64) (s, n float64) {
	x, y := sqXY(k)
	side := 2*kn.r + 1
	for dy := -kn.r; dy <= kn.r; dy++ {
		for dx := -kn.r; dx <= kn.r; dx++ {
			q := sqKey(x+int32(dx), y+int32(dy))
			c, ok := a.n[q]
			if !ok {
				continue
			}
			w := kn.w[(dy+kn.r)*side+dx+kn.r]
			s += w * a.sum[q]
			n += w * c
		}
	}
	return s, n
}

// fitOffsets fits the band levels and the cell layers (offset, slope,
// sectors) of the rows idx with the shrinkages of cfg; it returns the
// model without local fields.
func fitOffsets(rs []Residual, idx []int, cfg config, p Params) *model {
	cfg.kLocal = -1
	m := &model{cfg: cfg, cells: map[string]*cellModel{}, bands: map[int]*bandModel{}}
	sum, sx, sxx, sxy := map[int]float64{}, map[int]float64{}, map[int]float64{}, map[int]float64{}
	for _, i := range idx {
		r := &rs[i]
		b := m.bands[r.BandMHz]
		if b == nil {
			b = &bandModel{region: appliance.CalibrationRegion{MinLat: math.Inf(1), MinLon: math.Inf(1), MaxLat: math.Inf(-1), MaxLon: math.Inf(-1)}}
			m.bands[r.BandMHz] = b
		}
		b.n++
		sum[r.BandMHz] += r.DB
		sx[r.BandMHz] += r.X
		sxx[r.BandMHz] += r.X * r.X
		sxy[r.BandMHz] += r.X * r.DB
		for _, q := range []appliance.LatLon{r.Tx, r.Rx} {
			b.region.MinLat, b.region.MaxLat = math.Min(b.region.MinLat, q.Lat), math.Max(b.region.MaxLat, q.Lat)
			b.region.MinLon, b.region.MaxLon = math.Min(b.region.MinLon, q.Lon), math.Max(b.region.MaxLon, q.Lon)
		}
	}
	for k, b := range m.bands {
		n := float64(b.n)
		if den := n*sxx[k] - sx[k]*sx[k]; cfg.slope && den > 1e-9*n*n {
			b.slope = (n*sxy[k] - sx[k]*sum[k]) / den
		}
		b.level = (sum[k] - b.slope*sx[k]) / (n + p.KGlobal)
		b.region = widen(b.region, p.RegionMarginM)
	}
	// Per cell: the sums of e = r − band and its distance term.
	type sums struct{ se, see, lat, lon float64 }
	cs := map[string]*sums{}
	for _, i := range idx {
		r := &rs[i]
		c := m.cells[r.Cell]
		if c == nil {
			c = &cellModel{key: r.Cell, tower: r.TowerID, band: r.BandMHz}
			m.cells[r.Cell] = c
			cs[r.Cell] = &sums{}
		}
		c.n++
		e := r.DB - m.bands[r.BandMHz].at(r)
		a := cs[r.Cell]
		a.se += e
		a.see += e * e
		a.lat += r.Tx.Lat
		a.lon += r.Tx.Lon
	}
	kBand := map[int]float64{}
	if cfg.kCell == KCellEmpiricalBayes {
		kBand = empiricalBayesK(m, func(k string) (float64, float64) { return cs[k].se, cs[k].see })
	}
	for k, c := range m.cells {
		a, b := cs[k], m.bands[c.band]
		n := float64(c.n)
		kc := cfg.kCell
		if kc == KCellEmpiricalBayes {
			kc = kBand[c.band]
		}
		c.offset = b.level + a.se/(n+kc) // +Inf: the band's level
		c.slope = b.slope
		c.tx = appliance.LatLon{Lat: a.lat / n, Lon: a.lon / n}
	}
	if cfg.sectors > 0 {
		// A sector's measurements along one road are one observation of
		// its offset more than many: the shrinkage counts the sector's
		// blocks, mean · B / (B + kSector).
		type secKey struct {
			cell string
			j    int
		}
		ss, sn := map[secKey]float64{}, map[secKey]float64{}
		blocks := map[secKey]map[h3.Cell]bool{}
		for _, i := range idx {
			r := &rs[i]
			c := m.cells[r.Cell]
			k := secKey{r.Cell, appliance.CalibrationSector(c.tx, r.Rx, cfg.sectors)}
			ss[k] += r.DB - c.offset - c.slope*r.X
			sn[k]++
			if blocks[k] == nil {
				blocks[k] = map[h3.Cell]bool{}
			}
			blocks[k][r.Block] = true
		}
		for key, c := range m.cells {
			c.sectors = make([]float64, cfg.sectors)
			for j := range c.sectors {
				k := secKey{key, j}
				if sn[k] == 0 {
					continue
				}
				b := float64(len(blocks[k]))
				c.sectors[j] = ss[k] / sn[k] * b / (b + cfg.kSector)
			}
		}
	}
	return m
}

// empiricalBayesK returns each band's empirical-Bayes shrinkage of its
// cell offsets, points: σ²/τ², σ² the pooled within-cell variance of the
// residuals after the band level and τ² the variance of the cells' true
// offsets by the one-way random-effects moment estimator
// (Σ n_c (ē_c − ē)² − (C − 1) σ²) / (N − Σ n_c² / N); +Inf when τ² ≤ 0 or
// the band has fewer than two cells. sums gives a cell's Σe and Σe².
func empiricalBayesK(m *model, sums func(cell string) (se, see float64)) map[int]float64 {
	type acc struct{ n, n2, se, ssw, c float64 }
	by := map[int]*acc{}
	means := map[string]float64{}
	for k, c := range m.cells {
		a := by[c.band]
		if a == nil {
			a = &acc{}
			by[c.band] = a
		}
		se, see := sums(k)
		n := float64(c.n)
		a.n += n
		a.n2 += n * n
		a.se += se
		a.ssw += see - se*se/n
		a.c++
		means[k] = se / n
	}
	ssb := map[int]float64{}
	for k, c := range m.cells {
		a := by[c.band]
		d := means[k] - a.se/a.n
		ssb[c.band] += float64(c.n) * d * d
	}
	out := make(map[int]float64, len(by))
	for band, a := range by {
		out[band] = math.Inf(1)
		if a.c < 2 || a.n <= a.c {
			continue
		}
		s2 := a.ssw / (a.n - a.c)
		tau2 := (ssb[band] - (a.c-1)*s2) / (a.n - a.n2/a.n)
		if tau2 > 0 && s2 > 0 {
			out[band] = s2 / tau2
		}
	}
	return out
}

// widen returns r grown by marginM metres on every side.
func widen(r appliance.CalibrationRegion, marginM float64) appliance.CalibrationRegion {
	dLat := marginM / 111195.0
	c := math.Max(math.Cos(math.Max(math.Abs(r.MinLat), math.Abs(r.MaxLat))*math.Pi/180), 0.01)
	dLon := dLat / c
	return appliance.CalibrationRegion{MinLat: r.MinLat - dLat, MinLon: r.MinLon - dLon, MaxLat: r.MaxLat + dLat, MaxLon: r.MaxLon + dLon}
}

// kind says which layer of a model corrects a residual.
type kind uint8

const (
	kindNone kind = iota // no calibration applies
	kindCell             // its cell's offset (and local field)
	kindBand             // its band's tenant-wide level
)

// which returns the layer that corrects residual r.
func (m *model) which(r *Residual) kind {
	if m.cells[r.Cell] != nil {
		return kindCell
	}
	if b := m.bands[r.BandMHz]; b != nil && b.region.Contains(r.Tx) {
		return kindBand
	}
	return kindNone
}

// aggregate sums the residuals of rows idx after their cell's offset by
// square of the cell's local frame.
func (m *model) aggregate(rs []Residual, idx []int, p Params) map[string]agg {
	out := map[string]agg{}
	for _, i := range idx {
		r := &rs[i]
		c := m.cells[r.Cell]
		a, ok := out[r.Cell]
		if !ok {
			a = agg{sum: map[int64]float64{}, n: map[int64]float64{}}
			out[r.Cell] = a
		}
		x, y := appliance.CalibrationFrame(c.tx, r.Rx, p.GridM)
		k := sqKey(x, y)
		a.sum[k] += r.DB - c.at(r)
		a.n[k]++
	}
	return out
}

// predict returns the model's correction of residual r, dB: 0 for a cell
// the model does not know (no calibration applies to it).
func (m *model) predict(r *Residual, p Params) float64 {
	c := m.cells[r.Cell]
	if c == nil {
		if m.which(r) == kindBand {
			return m.bands[r.BandMHz].at(r)
		}
		return 0
	}
	if m.refused[r.Cell] {
		return m.bands[r.BandMHz].at(r)
	}
	if m.cfg.kLocal < 0 {
		return c.at(r)
	}
	x, y := appliance.CalibrationFrame(c.tx, r.Rx, p.GridM)
	return c.at(r) + c.field[sqKey(x, y)]
}

// fitAt fits config cfg on rows train and evaluates the local field at the
// squares of rows test (nil: no local field wanted).
func fitAt(rs []Residual, train, test []int, cfg config, kn kernel, p Params) *model {
	m := fitOffsets(rs, train, cfg, p)
	m.cfg = cfg
	if cfg.kLocal < 0 {
		return m
	}
	aggs := m.aggregate(rs, train, p)
	for _, i := range test {
		r := &rs[i]
		c := m.cells[r.Cell]
		if c == nil {
			continue
		}
		if c.field == nil {
			c.field = map[int64]float64{}
		}
		x, y := appliance.CalibrationFrame(c.tx, r.Rx, p.GridM)
		k := sqKey(x, y)
		if _, done := c.field[k]; done {
			continue
		}
		s, n := kn.smooth(aggs[r.Cell], k)
		c.field[k] = s / (n + cfg.kLocal)
	}
	return m
}

// choose picks the config with the least pooled out-of-fold squared error
// of blocked folds over rows idx, in stages: the band slope and the cell
// shrinkage first, then a per-cell slope, then azimuth sectors, each stage
// starting from the previous stage's best and every candidate with each
// local layer or none (ties: the earlier, simpler candidate). Too few
// blocks for the inner folds: the middle cell shrinkage without any other
// layer.
func choose(rs []Residual, idx []int, kn kernel, p Params) (config, map[string]bool) {
	fallback := config{kCell: p.KCells[len(p.KCells)/2], kLocal: -1}
	groups := make([]h3.Cell, len(idx))
	for j, i := range idx {
		groups[j] = rs[i].Block
	}
	fold, err := ml.GroupKFold(groups, p.InnerFolds, p.Seed)
	if err != nil {
		return fallback, nil
	}
	best, bestSE := fallback, math.Inf(1)
	try := func(bases []config) {
		for _, b := range bases {
			se := scoreBase(rs, idx, fold, b, kn, p)
			for li, v := range se {
				if v < bestSE {
					best, bestSE = b, v
					best.kLocal = -1
					if li > 0 {
						best.kLocal = p.KLocals[li-1]
					}
				}
			}
		}
	}
	var stage []config
	for _, sl := range []bool{false, true} {
		for _, kc := range p.KCells {
			stage = append(stage, config{slope: sl, kCell: kc, kLocal: -1})
		}
	}
	try(stage)
	stage = stage[:0]
	for _, n := range p.SectorCounts {
		for _, k := range p.KSectors {
			c := best
			c.sectors, c.kSector, c.kLocal = n, k, -1
			stage = append(stage, c)
		}
	}
	try(stage)
	return best, refuseCells(rs, idx, fold, best, kn, p)
}

// refuseCells returns the cells whose inner out-of-fold squared error
// under config c exceeds that of their band's level alone (the refusal
// rule of a cell, decided on the training rows only).
func refuseCells(rs []Residual, idx []int, fold []int, c config, kn kernel, p Params) map[string]bool {
	base := config{slope: c.slope, kCell: math.Inf(1), kLocal: -1}
	seC, seB := map[string]float64{}, map[string]float64{}
	for f := 0; f < p.InnerFolds; f++ {
		var train, test []int
		for j, i := range idx {
			if fold[j] == f {
				test = append(test, i)
			} else {
				train = append(train, i)
			}
		}
		m := fitAt(rs, train, test, c, kn, p)
		b := fitOffsets(rs, train, base, p)
		for _, i := range test {
			r := &rs[i]
			if m.cells[r.Cell] == nil {
				continue
			}
			d, e := r.DB-m.predict(r, p), r.DB-b.predict(r, p)
			seC[r.Cell] += d * d
			seB[r.Cell] += e * e
		}
	}
	out := map[string]bool{}
	for k, v := range seC {
		if v > seB[k] {
			out[k] = true
		}
	}
	return out
}

// scoreBase returns the pooled out-of-fold squared error over rows idx
// (inner folds fold) of base config b without a local layer and then
// with each of p.KLocals.
func scoreBase(rs []Residual, idx []int, fold []int, b config, kn kernel, p Params) []float64 {
	se := make([]float64, 1+len(p.KLocals))
	for f := 0; f < p.InnerFolds; f++ {
		var train, test []int
		for j, i := range idx {
			if fold[j] == f {
				test = append(test, i)
			} else {
				train = append(train, i)
			}
		}
		m := fitOffsets(rs, train, b, p)
		aggs := m.aggregate(rs, train, p)
		for _, i := range test {
			r := &rs[i]
			off, s, n := 0.0, 0.0, 0.0
			if cm := m.cells[r.Cell]; cm != nil {
				off = cm.at(r)
				x, y := appliance.CalibrationFrame(cm.tx, r.Rx, p.GridM)
				s, n = kn.smooth(aggs[r.Cell], sqKey(x, y))
			} else if m.which(r) == kindBand {
				off = m.bands[r.BandMHz].at(r)
			}
			d := r.DB - off
			se[0] += d * d
			for li, kl := range p.KLocals {
				d := r.DB - off - s/(n+kl)
				se[1+li] += d * d
			}
		}
	}
	return se
}

// FitResult is a fitted calibration of one engine with its
// cross-validation.
type FitResult struct {
	Calibration appliance.EngineCalibration
	// OOF is every residual's out-of-fold correction, dB (0 where the
	// training folds did not know the residual's cell).
	OOF []float64
	// Known marks the residuals whose cell the training folds knew: the
	// only ones that say anything about a calibration (the others would
	// get none). Every cross-validated figure is over them.
	Known []bool
	// NKnown counts them.
	NKnown int
	// Layer says which layer corrected each residual out of fold.
	Layer []kind
	// Fold is every residual's outer fold.
	Fold []int
	// FoldBeforeDB and FoldAfterDB are each outer fold's RMSE without and
	// with the calibration, dB.
	FoldBeforeDB, FoldAfterDB []float64
	// Shrink is the factor λ of the fold rule: every cell layer is
	// band + λ·(cell − band) (1: as fitted).
	Shrink float64
	// GlobalOffsetDB is the pooled out-of-fold RMSE of a single offset
	// fitted on the training folds (the fair baseline of a calibration),
	// dB, and FoldGlobalDB each fold's.
	GlobalOffsetDB float64
	FoldGlobalDB   []float64
}

// ErrTooFewBlocks means the residuals lie in fewer blocks than the folds
// need: no spatially blocked cross-validation, no calibration.
var ErrTooFewBlocks = errors.New("too few blocks for blocked cross-validation")

// Fit fits the calibration of one engine to its residuals (Blocks must
// have filled their blocks): outer blocked folds give the cross-validated
// figures and the per-cell and per-engine verdicts, then the procedure
// runs once more on every residual for the calibration itself. It is
// deterministic: the result depends on rs and its order only.
func Fit(engine appliance.EngineID, rs []Residual, p Params) (*FitResult, error) {
	blocks := map[h3.Cell]bool{}
	for i := range rs {
		blocks[rs[i].Block] = true
	}
	if len(blocks) < p.Folds {
		return nil, fmt.Errorf("calibrate %s: %d residuals in %d blocks, %d folds: %w", engine, len(rs), len(blocks), p.Folds, ErrTooFewBlocks)
	}
	groups := make([]h3.Cell, len(rs))
	for i := range rs {
		groups[i] = rs[i].Block
	}
	fold, err := ml.GroupKFold(groups, p.Folds, p.Seed)
	if err != nil {
		return nil, fmt.Errorf("calibrate %s: %w", engine, err)
	}
	kn := newKernel(p)
	res := &FitResult{OOF: make([]float64, len(rs)), Known: make([]bool, len(rs)), Layer: make([]kind, len(rs)), Fold: fold,
		FoldBeforeDB: make([]float64, p.Folds), FoldAfterDB: make([]float64, p.Folds), FoldGlobalDB: make([]float64, p.Folds)}
	var globalSE float64
	band := make([]float64, len(rs)) // each residual's band-level correction out of fold
	for f := 0; f < p.Folds; f++ {
		var train, test []int
		for i := range rs {
			if fold[i] == f {
				test = append(test, i)
			} else {
				train = append(train, i)
			}
		}
		cfg, refused := choose(rs, train, kn, p)
		m := fitAt(rs, train, test, cfg, kn, p)
		m.refused = refused
		var level float64
		for _, i := range train {
			level += rs[i].DB
		}
		level /= float64(len(train))
		var sb, sa, sg float64
		known := 0
		for _, i := range test {
			res.Layer[i] = m.which(&rs[i])
			if res.Layer[i] == kindNone {
				continue
			}
			res.Known[i] = true
			known++
			res.OOF[i] = m.predict(&rs[i], p)
			if b := m.bands[rs[i].BandMHz]; b != nil {
				band[i] = b.at(&rs[i])
			}
			sb += rs[i].DB * rs[i].DB
			d := rs[i].DB - res.OOF[i]
			sa += d * d
			g := rs[i].DB - level
			sg += g * g
		}
		globalSE += sg
		res.NKnown += known
		if known > 0 {
			res.FoldBeforeDB[f] = math.Sqrt(sb / float64(known))
			res.FoldAfterDB[f] = math.Sqrt(sa / float64(known))
			res.FoldGlobalDB[f] = math.Sqrt(sg / float64(known))
		}
	}
	if res.NKnown == 0 {
		return nil, fmt.Errorf("calibrate %s: no held-out residual could be corrected (no band or transmitter measured in more than one fold): %w", engine, ErrTooFewBlocks)
	}
	res.GlobalOffsetDB = math.Sqrt(globalSE / float64(res.NKnown))
	// The fold rule (doc.go): the largest shrink λ of the cell layers
	// toward the band levels under which no held-out fold is worse than
	// without calibration by more than MaxFoldWorseningDB.
	res.Shrink = 1
	for _, lambda := range []float64{1, 0.75, 0.5, 0.25, 0} {
		res.Shrink = lambda
		ok := true
		for f := range res.FoldAfterDB {
			var se float64
			n := 0
			for i := range rs {
				if fold[i] != f || !res.Known[i] {
					continue
				}
				d := rs[i].DB - (band[i] + lambda*(res.OOF[i]-band[i]))
				se += d * d
				n++
			}
			if n > 0 && math.Sqrt(se/float64(n)) > res.FoldBeforeDB[f]+p.MaxFoldWorseningDB {
				ok = false
				break
			}
		}
		if ok {
			break
		}
	}
	if res.Shrink < 1 {
		for i := range rs {
			res.OOF[i] = band[i] + res.Shrink*(res.OOF[i]-band[i])
		}
		for f := range res.FoldAfterDB {
			var se float64
			n := 0
			for i := range rs {
				if fold[i] == f && res.Known[i] {
					d := rs[i].DB - res.OOF[i]
					se += d * d
					n++
				}
			}
			if n > 0 {
				res.FoldAfterDB[f] = math.Sqrt(se / float64(n))
			}
		}
	}

	all := make([]int, len(rs))
	for i := range all {
		all[i] = i
	}
	cfg, refused := choose(rs, all, kn, p)
	m := fitOffsets(rs, all, cfg, p)
	m.cfg = cfg
	aggs := m.aggregate(rs, all, p)
	ec := appliance.EngineCalibration{Engine: engine, N: len(rs), NValidated: res.NKnown, Method: cfg.method()}
	if res.Shrink < 1 {
		ec.Note = fmt.Sprintf("cell layers shrunk to %g of their fit toward the band offsets: as fitted, a held-out fold was more than %.1f dB worse than without calibration",
			res.Shrink, p.MaxFoldWorseningDB)
	}
	var known []int
	byCell := map[string][]int{}
	byBand := map[int][]int{}
	for i := range rs {
		switch res.Layer[i] {
		case kindCell:
			byCell[rs[i].Cell] = append(byCell[rs[i].Cell], i)
		case kindBand:
			byBand[rs[i].BandMHz] = append(byBand[rs[i].BandMHz], i)
		}
		if res.Known[i] {
			known = append(known, i)
		}
	}
	ec.CVRMSEBeforeDB, ec.CVRMSEAfterDB = rmse(rs, nil, known), rmse(rs, res.OOF, known)
	keys := make([]string, 0, len(m.cells))
	for k := range m.cells {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		c := m.cells[k]
		if res.Shrink < 1 {
			bl := m.bands[c.band].level
			c.offset = bl + res.Shrink*(c.offset-bl)
			for j := range c.sectors {
				c.sectors[j] *= res.Shrink
			}
		}
		cc := appliance.CellCalibration{Key: c.key, TowerID: c.tower, Tx: appliance.CalibrationPosition(c.tx), BandMHz: c.band, OffsetDB: c.offset, SlopeDB: c.slope, SectorsDB: c.sectors, N: c.n,
			NValidated: len(byCell[k]), CVRMSEBeforeDB: rmse(rs, nil, byCell[k]), CVRMSEAfterDB: rmse(rs, res.OOF, byCell[k]), GridM: p.GridM}
		cc.Area = area(aggs[k], kn, cfg, p)
		for j := range cc.Area {
			cc.Area[j].LocalDB *= res.Shrink
		}
		// A cell whose measurements all lie in one fold has no held-out
		// test of its own: it stands or falls with the engine's
		// calibration (below), its figures are the engine's.
		cc.Applied = cc.NValidated == 0 || cc.CVRMSEAfterDB < cc.CVRMSEBeforeDB
		if cc.Applied && refused[k] {
			cc.Applied = false
			cc.Reason = "the band's tenant-wide offset predicted this transmitter's held-out blocks better than its own layers (inner blocked folds): the band's offset applies"
		} else if !cc.Applied {
			cc.Reason = fmt.Sprintf("cross-validated RMSE %.2f dB is not better than %.2f dB without calibration (spatially blocked folds: the transmitter's measurements in other blocks did not predict these)",
				cc.CVRMSEAfterDB, cc.CVRMSEBeforeDB)
		}
		ec.Cells = append(ec.Cells, cc)
	}
	bands := make([]int, 0, len(m.bands))
	for b := range m.bands {
		bands = append(bands, b)
	}
	slices.Sort(bands)
	for _, b := range bands {
		bm := m.bands[b]
		bc := appliance.BandCalibration{BandMHz: b, OffsetDB: bm.level, SlopeDB: bm.slope, N: bm.n, NValidated: len(byBand[b]),
			CVRMSEBeforeDB: rmse(rs, nil, byBand[b]), CVRMSEAfterDB: rmse(rs, res.OOF, byBand[b]), Region: bm.region}
		bc.Applied = bc.NValidated > 0 && bc.CVRMSEAfterDB < bc.CVRMSEBeforeDB
		switch {
		case bc.NValidated == 0:
			bc.Reason = "not validated: no held-out transmitter of the band lacked measurements in the other folds, so nothing tested the tenant-wide offset on a new transmitter"
		case !bc.Applied:
			bc.Reason = fmt.Sprintf("cross-validated RMSE %.2f dB on transmitters left out is not better than %.2f dB without calibration", bc.CVRMSEAfterDB, bc.CVRMSEBeforeDB)
		}
		ec.Bands = append(ec.Bands, bc)
	}
	ec.Applied = ec.CVRMSEAfterDB < ec.CVRMSEBeforeDB
	if !ec.Applied {
		ec.Reason = fmt.Sprintf("cross-validated RMSE %.2f dB is not better than %.2f dB without calibration", ec.CVRMSEAfterDB, ec.CVRMSEBeforeDB)
	}
	for f := range res.FoldAfterDB {
		if ec.Applied && res.FoldAfterDB[f] > res.FoldBeforeDB[f]+p.MaxFoldWorseningDB {
			ec.Applied = false
			ec.Reason = fmt.Sprintf("held-out fold %d gets worse: RMSE %.2f dB against %.2f dB without calibration (more than %.1f dB)",
				f+1, res.FoldAfterDB[f], res.FoldBeforeDB[f], p.MaxFoldWorseningDB)
		}
	}
	for i := range ec.Cells {
		if c := &ec.Cells[i]; c.NValidated == 0 {
			c.CVRMSEBeforeDB, c.CVRMSEAfterDB = ec.CVRMSEBeforeDB, ec.CVRMSEAfterDB
		}
	}
	res.Calibration = ec
	return res, nil
}

// area returns the squares of a cell's calibrated area (kernel-weighted
// count at least SupportMin), sorted by row then column, with the local
// correction (0 without a local layer).
func area(a agg, kn kernel, cfg config, p Params) []appliance.CalibrationSquare {
	cand := map[int64]bool{}
	for k := range a.n {
		x, y := sqXY(k)
		for dy := -kn.r; dy <= kn.r; dy++ {
			for dx := -kn.r; dx <= kn.r; dx++ {
				cand[sqKey(x+int32(dx), y+int32(dy))] = true
			}
		}
	}
	out := make([]appliance.CalibrationSquare, 0, len(cand))
	for k := range cand {
		s, n := kn.smooth(a, k)
		if n < p.SupportMin {
			continue
		}
		x, y := sqXY(k)
		sq := appliance.CalibrationSquare{X: x, Y: y}
		if cfg.kLocal >= 0 {
			sq.LocalDB = s / (n + cfg.kLocal)
		}
		out = append(out, sq)
	}
	slices.SortFunc(out, func(a, b appliance.CalibrationSquare) int {
		if c := cmp.Compare(a.Y, b.Y); c != 0 {
			return c
		}
		return cmp.Compare(a.X, b.X)
	})
	return out
}

// rmse returns the RMSE of the residuals idx after the corrections corr
// (nil: none), dB; 0 for no row.
func rmse(rs []Residual, corr []float64, idx []int) float64 {
	if len(idx) == 0 {
		return 0
	}
	var se float64
	for _, i := range idx {
		d := rs[i].DB
		if corr != nil {
			d -= corr[i]
		}
		se += d * d
	}
	return math.Sqrt(se / float64(len(idx)))
}
