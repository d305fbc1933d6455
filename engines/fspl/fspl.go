package fspl

import (
	"context"
	"fmt"
	"math"
	"sync"

	"linkplan/appliance"
	"linkplan/engines/radio"
)

var _ appliance.Engine = (*Engine)(nil)

// Version is the engine implementation version reported with every result.
const Version = "fspl-1"

// Defaults.
const (
	DefaultK              = 4.0 / 3.0 // effective Earth radius factor
	DefaultCapDB          = 40.0      // cap on the diffraction penalty, dB
	DefaultFresnelOKRatio = 0.6       // clearance/F1 at or above which FresnelOK holds
	MinFreqMHz            = 30.0      // lowest frequency accepted, MHz
	MaxFreqMHz            = 100000.0  // highest frequency accepted, MHz
)

// Engine is the fspl engine. The zero value is not usable; use New.
type Engine struct {
	K              float64 // effective Earth radius factor
	CapDB          float64 // diffraction penalty cap, dB
	FresnelOKRatio float64 // clearance/F1 threshold for FresnelOK

	searches sync.Pool // *pixelSearch: PixelLoss's buffers, reused from radial to radial
}

// New returns the engine with the SPEC defaults (k = 4/3, cap 40 dB, 60 % F1).
func New() *Engine {
	return &Engine{K: DefaultK, CapDB: DefaultCapDB, FresnelOKRatio: DefaultFresnelOKRatio}
}

// ID returns appliance.EngineFSPL.
func (e *Engine) ID() appliance.EngineID { return appliance.EngineFSPL }

// Validate checks the inputs the engine needs and names every bad field.
func Validate(in appliance.LinkInput) error {
	v := &appliance.ValidationError{}
	if math.IsNaN(in.FreqMHz) || in.FreqMHz < MinFreqMHz || in.FreqMHz > MaxFreqMHz {
		v.Add("frequency_mhz", "must be between %g and %g MHz, got %g", MinFreqMHz, MaxFreqMHz, in.FreqMHz)
	}
	if math.IsNaN(in.TxHeightM) || in.TxHeightM < 0 {
		v.Add("tx_height_m", "must be a non-negative height in metres, got %g", in.TxHeightM)
	}
	if math.IsNaN(in.RxHeightM) || in.RxHeightM < 0 {
		v.Add("rx_height_m", "must be a non-negative height in metres, got %g", in.RxHeightM)
	}
	p := in.Profile
	switch {
	case p == nil:
		v.Add("profile", "a terrain profile is required")
	case p.Len() < 2 || len(p.HeightsM) != p.Len():
		v.Add("profile", "needs at least 2 points with one height each, got %d distances and %d heights", p.Len(), len(p.HeightsM))
	default:
		for i := 1; i < p.Len(); i++ {
			if !(p.DistancesM[i] > p.DistancesM[i-1]) {
				v.Add("profile.distances_m", "must be strictly increasing (index %d)", i)
				break
			}
		}
		for i, h := range p.HeightsM {
			if math.IsNaN(h) || math.IsInf(h, 0) {
				v.Add("profile.heights_m", "must be finite (index %d)", i)
				break
			}
		}
	}
	return v.Err()
}

// Predict computes the fspl result for one path.
func (e *Engine) Predict(_ context.Context, in appliance.LinkInput) (appliance.LinkPrediction, error) {
	if err := Validate(in); err != nil {
		return appliance.LinkPrediction{}, fmt.Errorf("fspl predict: %w", err)
	}
	return e.Compute(in.Profile, in.TxHeightM, in.RxHeightM, in.FreqMHz), nil
}

// Compute is Predict without validation, for callers that validated once
// for many paths.
func (e *Engine) Compute(p *appliance.PathProfile, txHeightM, rxHeightM, freqMHz float64) appliance.LinkPrediction {
	n := p.Len()
	d := p.LengthM()
	tipT := p.HeightsM[0] + txHeightM
	tipR := p.HeightsM[n-1] + rxHeightM
	lambda := radio.WavelengthM(freqMHz)
	twoKA := 2 * radio.EffectiveEarthRadiusM(e.K)

	minRatio := math.Inf(1)
	maxNu := math.Inf(-1)
	los := true
	for i := 1; i < n-1; i++ {
		d1 := p.DistancesM[i]
		d2 := d - d1
		if d1 <= 0 || d2 <= 0 {
			continue
		}
		ray := tipT + (tipR-tipT)*d1/d
		ground := p.HeightsM[i] + d1*d2/twoKA
		clear := ray - ground
		if clear <= 0 {
			los = false
		}
		f1 := math.Sqrt(lambda * d1 * d2 / d)
		if r := clear / f1; r < minRatio {
			minRatio = r
		}
		if nu := -clear * math.Sqrt(2/lambda*(1/d1+1/d2)); nu > maxNu {
			maxNu = nu
		}
	}
	diff, fs, slantKm := e.lossTerms(maxNu, d, tipT, tipR, freqMHz)
	pred := appliance.LinkPrediction{
		Engine:            appliance.EngineFSPL,
		EngineVersion:     Version,
		PathLossDB:        fs + diff,
		LOSClear:          los,
		FresnelOK:         minRatio >= e.FresnelOKRatio,
		MinClearanceRatio: minRatio,
		DiffractionDB:     diff,
		Intermediate: map[string]float64{
			"free_space_db": fs,
			"slant_km":      slantKm,
			"max_nu":        maxNu,
			"k_factor":      e.K,
			"tx_tip_amsl_m": tipT,
			"rx_tip_amsl_m": tipR,
		},
	}
	if !math.IsInf(maxNu, -1) {
		pred.Intermediate["max_nu"] = maxNu
	}
	return pred
}

// PredictLossDB returns Predict(ctx, in).PathLossDB, bit for bit, and
// Predict's error, without the rest of the prediction (no Intermediate
// map, no clearance ratios): the planner's sparse bounds need only the
// loss of many short profiles (planner.LossPredictor).
func (e *Engine) PredictLossDB(_ context.Context, in appliance.LinkInput) (float64, error) {
	if err := Validate(in); err != nil {
		return 0, fmt.Errorf("fspl predict: %w", err)
	}
	return e.lossDB(in.Profile, in.TxHeightM, in.RxHeightM, in.FreqMHz), nil
}

// lossDB is Compute's PathLossDB: the same expressions in the same order
// for everything the loss depends on (the tips, ν of every interior
// sample, the knife edge and the slant free space), nothing else.
func (e *Engine) lossDB(p *appliance.PathProfile, txHeightM, rxHeightM, freqMHz float64) float64 {
	n := p.Len()
	k := e.knifeEdge(p.LengthM(), p.HeightsM[0], p.HeightsM[n-1], txHeightM, rxHeightM, freqMHz)
	maxNu := math.Inf(-1)
	for i := 1; i < n-1; i++ {
		if nu := k.nu(p.DistancesM[i], p.HeightsM[i]); nu > maxNu {
			maxNu = nu
		}
	}
	return k.lossDB(maxNu)
}

// SampleLossBound, SampleNu and SampleLossDB give the loss of a profile
// from its interior samples one at a time, for a path whose end samples
// are in.Profile's two (distances 0 and the path length, metres, and
// their ground heights). SampleLossBound returns PredictLossDB's error
// for those ends, or keeps what the path's samples share (the tips, the
// wavelength, the slant free space) in state, the caller's scratch and
// the engine's own; then SampleNu is ν of a sample d1M metres from the
// transmitter with that ground height, and SampleLossDB(state, maxNu) is
// PredictLossDB of the profile whose interior samples' largest ν is
// maxNu (−Inf for none), bit for bit (planner.SampleLossBounder: the
// sparse bounds take ν sample by sample and stop as soon as the loss
// proves a tower cannot rank).
func (e *Engine) SampleLossBound(in *appliance.LinkInput, state *[8]float64) error {
	if err := Validate(*in); err != nil {
		return fmt.Errorf("fspl predict: %w", err)
	}
	p := in.Profile
	k := e.knifeEdge(p.LengthM(), p.HeightsM[0], p.HeightsM[p.Len()-1], in.TxHeightM, in.RxHeightM, in.FreqMHz)
	fs, _ := freeSpace(k.d, k.tipT, k.tipR, k.freq)
	*state = [8]float64{k.d, k.tipT, k.tipR, k.lambda, k.twoKA, k.freq, fs}
	return nil
}

// SampleNu: see SampleLossBound.
func (e *Engine) SampleNu(state *[8]float64, d1M, heightM float64) float64 {
	k := knifeEdge{e: e, d: state[0], tipT: state[1], tipR: state[2], lambda: state[3], twoKA: state[4], freq: state[5]}
	return k.nu(d1M, heightM)
}

// SampleLossDB: see SampleLossBound.
func (e *Engine) SampleLossDB(state *[8]float64, maxNu float64) float64 {
	return state[6] + e.diffractionDB(maxNu)
}

// SampleNuFloor returns a ν at or below which SampleLossDB(state, maxNu)
// is SampleLossDB(state, −Inf) exactly: J(ν) is 0 for ν ≤ −0.78 (radio's
// KnifeEdgeLossApproxDB), so the loss is the free space's alone; −Inf
// when CapDB is negative (the cap, not 0, would then be the knife edge).
// The planner skips the loss of a largest ν that cannot change it.
func (e *Engine) SampleNuFloor(*[8]float64) float64 {
	if !(e.CapDB >= 0) {
		return math.Inf(-1)
	}
	return -0.78
}

// knifeEdge is the geometry of lossDB's knife edge on one path.
type knifeEdge struct {
	e                                  *Engine
	d, tipT, tipR, lambda, twoKA, freq float64
}

func (e *Engine) knifeEdge(d, groundT, groundR, txHeightM, rxHeightM, freqMHz float64) knifeEdge {
	return knifeEdge{e: e, d: d, tipT: groundT + txHeightM, tipR: groundR + rxHeightM,
		lambda: radio.WavelengthM(freqMHz), twoKA: 2 * radio.EffectiveEarthRadiusM(e.K), freq: freqMHz}
}

// nu is ν of the sample d1 metres from the transmitter with ground height
// h (Compute's expressions); −Inf at an end (no knife edge there).
func (k *knifeEdge) nu(d1, h float64) float64 {
	d2 := k.d - d1
	if d1 <= 0 || d2 <= 0 {
		return math.Inf(-1)
	}
	ray := k.tipT + (k.tipR-k.tipT)*d1/k.d
	ground := h + d1*d2/k.twoKA
	clear := ray - ground
	return -clear * math.Sqrt(2/k.lambda*(1/d1+1/d2))
}

// lossDB is the path loss for the largest interior ν maxNu.
func (k *knifeEdge) lossDB(maxNu float64) float64 {
	diff, fs, _ := k.e.lossTerms(maxNu, k.d, k.tipT, k.tipR, k.freq)
	return fs + diff
}

// lossTerms ends Compute and lossDB alike: the knife-edge loss of the
// largest ν (none without an interior sample), capped at CapDB, and the
// free-space loss over the slant path between the antenna tips.
func (e *Engine) lossTerms(maxNu, d, tipT, tipR, freqMHz float64) (diffDB, freeSpaceDB, slantKm float64) {
	freeSpaceDB, slantKm = freeSpace(d, tipT, tipR, freqMHz)
	return e.diffractionDB(maxNu), freeSpaceDB, slantKm
}

// diffractionDB is the knife-edge loss of the largest ν, capped at CapDB;
// 0 without an interior sample (maxNu −Inf).
func (e *Engine) diffractionDB(maxNu float64) float64 {
	if math.IsInf(maxNu, -1) {
		return 0
	}
	return math.Min(radio.KnifeEdgeLossApproxDB(maxNu), e.CapDB)
}

// freeSpace is the free-space loss over the slant path between the
// antenna tips, d metres apart horizontally, and the slant length, km.
func freeSpace(d, tipT, tipR, freqMHz float64) (freeSpaceDB, slantKm float64) {
	slantKm = math.Hypot(d, tipT-tipR) / 1000
	return radio.FreeSpaceLossExactDB(freqMHz, slantKm), slantKm
}

// LossAtLeastFreeSpace reports that the engine's loss is never below free
// space over the horizontal distance (the slant path is longer and J(ν) of
// eq. (31) is never negative), which lets the planner prune exactly.
func (e *Engine) LossAtLeastFreeSpace() bool { return true }

// LossAtLeastOnSubsample reports that the engine's loss over a profile is
// never below its loss over a subsequence of the profile's samples that
// keeps both ends: the free-space term depends on the ends only, and the
// diffraction term is J(ν) of the largest ν over the interior samples
// (a maximum over fewer samples is never larger), J non-decreasing and
// capped. The planner then proves a path cannot rank from a sparse
// profile before it samples the whole path.
func (e *Engine) LossAtLeastOnSubsample() bool { return true }
