package interference

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/coverage"
)

// Defaults and limits (package doc, "Channels" and "Noise").
const (
	// DefaultBandwidthMHz is the channel width of a transmitter that gives
	// none, MHz.
	DefaultBandwidthMHz = 20.0
	// DefaultACSDB is the adjacent-channel selectivity of a receiver whose
	// equipment states none, dB.
	DefaultACSDB = 33.0
	// DefaultNoiseFigureDB is the receiver noise figure when the request
	// gives none, dB.
	DefaultNoiseFigureDB = 7.0
	// ThermalNoiseDBmPerHz is kT at 290 K, dBm/Hz.
	ThermalNoiseDBmPerHz = -174.0
	// MaxChannels is the most distinct (frequency, width) channels of one map.
	MaxChannels = 64
	// MinBandwidthMHz and MaxBandwidthMHz bound a channel width, MHz.
	MinBandwidthMHz = 0.01
	MaxBandwidthMHz = 2000.0
	// MaxACSDB bounds an adjacent-channel selectivity, dB.
	MaxACSDB = 120.0
	// MaxNoiseFigureDB bounds the noise figure, dB.
	MaxNoiseFigureDB = 30.0
)

// DefaultSINRThresholdsDB are the SINR levels of the summary's areas and
// the contours, dB.
var DefaultSINRThresholdsDB = []float64{0, 5, 10, 20}

// Warning codes of an interference map (besides coverage's).
const (
	// WarnACSAssumed: an adjacent-channel interferer was attenuated by
	// DefaultACSDB because the serving transmitter's equipment states no
	// selectivity.
	WarnACSAssumed = "acs_assumed"
)

// Transmitter is one transmitter of an interference map: its coverage
// request (position, antenna, EIRP, centre frequency, radius, grid,
// engine) and its channel.
type Transmitter struct {
	coverage.Request
	// BandwidthMHz is the channel width, MHz; 0 means DefaultBandwidthMHz.
	BandwidthMHz float64
	// ACSDB is the adjacent-channel selectivity of the receivers this
	// transmitter serves, dB; 0 means: the selectivity of the radio
	// RadioID names (Request.UseRadios), else DefaultACSDB, and then the
	// map warns acs_assumed when an adjacent channel counts.
	ACSDB float64
	// RadioID names the catalogue radio (appliance/equipment) of the
	// receivers this transmitter serves; "" for none.
	RadioID string
}

// Request is an interference map.
type Request struct {
	Transmitters []Transmitter
	// NoiseFigureDB is the receivers' noise figure, dB; 0 means
	// DefaultNoiseFigureDB.
	NoiseFigureDB float64
	// SINRThresholdsDB are the levels of the summary's areas, dB,
	// ascending; nil means DefaultSINRThresholdsDB.
	SINRThresholdsDB []float64
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// exact reports an exact map (package doc, "Exact mode"): its
// transmitters' coverage.Request.Exact (Validate has them all equal).
func (r Request) exact() bool { return len(r.Transmitters) > 0 && r.Transmitters[0].Exact }

// Validate checks the request (every transmitter as coverage.Request
// does, plus its channel) and names every bad field with the JSON paths of
// the interference body. Its error matches appliance.ErrInvalid.
func (r Request) Validate() error {
	v := &appliance.ValidationError{}
	if len(r.Transmitters) == 0 || len(r.Transmitters) > coverage.MaxBestServers {
		v.Add("sites", "must hold 1..%d transmitters, got %d", coverage.MaxBestServers, len(r.Transmitters))
	}
	mixed := false
	for i, t := range r.Transmitters {
		f := "sites[" + strconv.Itoa(i) + "]"
		if err := t.Request.Validate(); err != nil {
			if ve, ok := err.(*appliance.ValidationError); ok {
				for _, x := range ve.Fields {
					v.Add(f+"."+x.Field, "%s", x.Reason)
				}
			}
		} else if t.ResolutionM != r.Transmitters[0].ResolutionM {
			v.Add(f+".resolution_m", "must equal the first site's %g m, got %g", r.Transmitters[0].ResolutionM, t.ResolutionM)
		}
		if t.Exact != r.Transmitters[0].Exact && !mixed {
			mixed = true
			v.Add("exact", "every transmitter of a map is computed in one mode: sites[%d] differs from the first", i)
		}
		if !finite(t.BandwidthMHz) || t.BandwidthMHz != 0 && (t.BandwidthMHz < MinBandwidthMHz || t.BandwidthMHz > MaxBandwidthMHz) {
			v.Add(f+".bandwidth_mhz", "must be 0 (default %g MHz) or %g..%g MHz, got %g", DefaultBandwidthMHz, MinBandwidthMHz, MaxBandwidthMHz, t.BandwidthMHz)
		}
		if !finite(t.ACSDB) || t.ACSDB < 0 || t.ACSDB > MaxACSDB {
			v.Add(f+".acs_db", "must be 0 (default %g dB) or up to %g dB, got %g", DefaultACSDB, MaxACSDB, t.ACSDB)
		}
	}
	if !finite(r.NoiseFigureDB) || r.NoiseFigureDB < 0 || r.NoiseFigureDB > MaxNoiseFigureDB {
		v.Add("noise_figure_db", "must be 0 (default %g dB) or up to %g dB, got %g", DefaultNoiseFigureDB, MaxNoiseFigureDB, r.NoiseFigureDB)
	}
	if len(r.SINRThresholdsDB) > 16 {
		v.Add("sinr_thresholds_db", "must hold at most 16 levels, got %d", len(r.SINRThresholdsDB))
	}
	for i, x := range r.SINRThresholdsDB {
		if !finite(x) || x < -50 || x > 100 || i > 0 && x <= r.SINRThresholdsDB[i-1] {
			v.Add("sinr_thresholds_db["+strconv.Itoa(i)+"]", "must be ascending levels of −50..100 dB, got %g", x)
		}
	}
	if len(channelsOf(r.Transmitters).list) > MaxChannels {
		v.Add("sites", "use at most %d distinct channels (frequency and width)", MaxChannels)
	}
	return v.Err()
}

// UseRadios fills the selectivity of every transmitter that names a
// catalogue radio and gives no ACSDB of its own with the radio's ACSDB,
// as tenantID sees the catalogue (package doc, "Channels"). A radio that
// states none leaves ACSDB 0 (DefaultACSDB, with the warning
// acs_assumed where an adjacent channel counts). An unknown radio, or
// any radio without a catalogue, is an appliance.ValidationError naming
// sites[i].radio_id; another catalogue failure is returned wrapped.
func (r *Request) UseRadios(cat appliance.RadioCatalogue, tenantID string) error {
	v := &appliance.ValidationError{}
	for i := range r.Transmitters {
		t := &r.Transmitters[i]
		if t.RadioID == "" {
			continue
		}
		f := "sites[" + strconv.Itoa(i) + "].radio_id"
		if cat == nil {
			v.Add(f, "the equipment catalogue is not available")
			continue
		}
		radio, err := cat.Radio(tenantID, t.RadioID)
		switch {
		case errors.Is(err, appliance.ErrNotFound):
			v.Add(f, "no radio %q in the catalogue", t.RadioID)
			continue
		case err != nil:
			return fmt.Errorf("interference: radio of site %d: %w", i, err)
		}
		if t.ACSDB == 0 {
			t.ACSDB = radio.ACSDB
		}
	}
	return v.Err()
}

// Channel is a transmitter's carrier: centre and width, MHz.
type Channel struct {
	FreqMHz, BandwidthMHz float64
}

func (t Transmitter) channel() Channel {
	bw := t.BandwidthMHz
	if bw == 0 {
		bw = DefaultBandwidthMHz
	}
	return Channel{t.FreqMHz, bw}
}

// Coupling is how an interferer's channel reaches a victim receiver.
type Coupling int

// Couplings (package doc, "Channels").
const (
	None      Coupling = iota // more than one victim channel width apart: ignored
	CoChannel                 // the channels overlap
	Adjacent                  // no overlap, within one victim width of its band edge
)

// CouplingOf returns how interferer channel i reaches a receiver tuned to
// victim channel v with adjacent-channel selectivity acsDB, and the
// fraction of the interferer's power that reaches the receiver (linear):
// the overlapping share of the interferer's width for a co-channel one
// (a flat spectrum), 10^(−acsDB/10) for an adjacent one, 0 otherwise.
func CouplingOf(v, i Channel, acsDB float64) (Coupling, float64) {
	vlo, vhi := v.FreqMHz-v.BandwidthMHz/2, v.FreqMHz+v.BandwidthMHz/2
	ilo, ihi := i.FreqMHz-i.BandwidthMHz/2, i.FreqMHz+i.BandwidthMHz/2
	if overlap := math.Min(vhi, ihi) - math.Max(vlo, ilo); overlap > 0 {
		return CoChannel, math.Min(1, overlap/i.BandwidthMHz)
	}
	gap := math.Max(ilo-vhi, vlo-ihi) // ≥ 0: the spectrum between them
	if gap < v.BandwidthMHz {
		return Adjacent, math.Pow(10, -acsDB/10)
	}
	return None, 0
}

// NoiseDBm returns the thermal noise floor of a receiver of bandwidth
// bwMHz and noise figure nfDB, dBm: −174 + 10·log10(B/Hz) + NF.
func NoiseDBm(bwMHz, nfDB float64) float64 {
	return ThermalNoiseDBmPerHz + 10*math.Log10(bwMHz*1e6) + nfDB
}

// channels is the distinct channels of a request, in order of first use.
type channels struct {
	list []Channel
	of   []int // channel index per transmitter
}

func channelsOf(ts []Transmitter) channels {
	var c channels
	for _, t := range ts {
		ch := t.channel()
		k := slices.Index(c.list, ch)
		if k < 0 {
			k = len(c.list)
			c.list = append(c.list, ch)
		}
		c.of = append(c.of, k)
	}
	return c
}

// Result is a finished interference map. Every band is row-major from the
// north-west pixel of Grid, NaN where it has no value.
type Result struct {
	Grid *coverage.Raster // the grid (DBm nil)
	// Server is the strongest transmitter per pixel (index in the
	// request, the lowest on a tie), −1 where none has a value.
	Server []int32
	// CarrierDBm is the level of the best server, dBm.
	CarrierDBm []float32
	// InterferenceDBm is the sum of the co- and adjacent-channel
	// interferers as the best server's receiver sees them, dBm; NaN where
	// none couples.
	InterferenceDBm []float32
	// CIDB is carrier over interference, dB; NaN where none couples.
	CIDB []float32
	// SINRDB is carrier over interference plus the thermal noise of the
	// best server's bandwidth, dB.
	SINRDB  []float32
	Summary Summary
}

// Summary describes a finished interference map.
type Summary struct {
	Pixels      int // pixels of the grid
	ValidPixels int // pixels with a best server
	// InRadiusPixels counts the pixels within some transmitter's radius.
	InRadiusPixels int
	// InterferedPixels counts pixels where some interferer couples.
	InterferedPixels int
	NoiseFigureDB    float64 // dB
	// MinSINRDB and MaxSINRDB are the extreme SINR, dB (NaN without a valid pixel).
	MinSINRDB, MaxSINRDB float64
	// SINRAreas gives, per threshold, the area at or above it, km².
	SINRAreas []SINRArea
	// ServedPixels counts the pixels each transmitter serves, in request order.
	ServedPixels []int
	// Channels lists the distinct channels, in order of first use.
	Channels []Channel
	// SharedSweeps counts the radial sweeps and predictions reused from a
	// co-sited transmitter (package doc, "Shared sweeps").
	SharedSweeps int
	// SharedProfiles counts the radial terrain profiles reused from a
	// transmitter at the same position with the same radius and grid.
	SharedProfiles int
	// PerTransmitter is each transmitter's own coverage summary on the grid.
	PerTransmitter []coverage.Summary
	// Pixel says what a pixel of the map stands for: the mode, the
	// receiver, the profiles, and the measured agreement of its SINR with
	// the direct computation from every transmitter's point-to-point
	// answer at the pixel centre (package doc, "Pixels").
	Pixel coverage.PixelInfo
	// Warnings are the transmitters' (each code once, with the message of
	// the first transmitter in request order that raised it) and the map's own.
	Warnings  []appliance.Warning
	ElapsedMS int64
}

// SINRArea is the area at or above one SINR level.
type SINRArea struct {
	ThresholdDB float64 // dB
	AreaKm2     float64 // km²
}

// Service computes interference maps. It is safe for concurrent use.
type Service struct {
	terrain appliance.Terrain
	engines coverage.EngineLookup
}

// New returns a service over terrain and the engines of lookup.
func New(terrain appliance.Terrain, lookup coverage.EngineLookup) *Service {
	return &Service{terrain: terrain, engines: lookup}
}

// MaxShareBytes bounds what one site keeps for its co-sited transmitters
// (package doc, "Shared sweeps"): a site whose estimate (ShareBytes) is
// larger is computed without sharing, bytes.
const MaxShareBytes = 256 << 20

// ShareBytes estimates what a site keeps while its transmitters are
// computed, bytes: per radial (coverage.Radials at the request's
// resolution) and per profile sample (step max(30 m, min(90 m,
// resolution))) 48 bytes of profile (distances, heights, land cover, sea
// and void marks) and 9 of kept engine losses.
func ShareBytes(r coverage.Request) int64 {
	step := math.Max(coverage.MinProfileStepM, math.Min(coverage.DefaultTerrainSpacingM, r.ResolutionM))
	samples := int64(math.Ceil(r.RadiusM/step)) + 1
	return int64(coverage.Radials(r.RadiusM, math.Max(r.ResolutionM, 1))) * samples * 57
}

// siteKey is what transmitters share for one radial profile to serve
// them all: the position, the radius and the grid (package doc, "Shared
// sweeps").
type siteKey struct {
	tx          appliance.LatLon
	radius, res float64
}

// lossKey is what co-sited transmitters share for one engine sweep to
// serve them all: everything but the EIRP and the antenna pattern.
type lossKey struct {
	site                         siteKey
	txH, freq, rxH, tPct, locPct float64
	engine                       appliance.EngineID
}

func siteOf(t Transmitter) siteKey { return siteKey{t.Tx, t.RadiusM, t.ResolutionM} }

func lossOf(t Transmitter) lossKey {
	return lossKey{siteOf(t), t.TxHeightM, t.FreqMHz, t.RxHeightM, t.TimePct, t.LocationPct, t.Engine}
}

// perChannel accumulates one channel's received power per pixel: the
// strongest transmitter (mW and index) and the sum of the others (mW).
type perChannel struct {
	max  []float64
	idx  []int32
	rest []float64
}

// Compute computes the interference map of req. Errors are those of
// coverage.ComputeBest (appliance.ErrInvalid naming the field,
// ErrTerrainMissing, ErrOutsideEnvelope, context errors).
func (s *Service) Compute(ctx context.Context, req Request, opts coverage.Options) (*Result, error) {
	start := time.Now()
	if err := req.Validate(); err != nil {
		return nil, fmt.Errorf("interference compute: %w", err)
	}
	ts := req.Transmitters
	chs := channelsOf(ts)
	nf := req.NoiseFigureDB
	if nf == 0 {
		nf = DefaultNoiseFigureDB
	}
	// Co-sited transmitters one after the other (stable: by the first
	// index of their site, then of their engine input), so that a site's
	// profiles and sweeps are kept only while its transmitters are
	// computed.
	firstSite, firstLoss := map[siteKey]int{}, map[lossKey]int{}
	siteSize := map[siteKey]int{}
	for i, t := range ts {
		if _, ok := firstSite[siteOf(t)]; !ok {
			firstSite[siteOf(t)] = i
		}
		if _, ok := firstLoss[lossOf(t)]; !ok {
			firstLoss[lossOf(t)] = i
		}
		siteSize[siteOf(t)]++
	}
	order := make([]int, len(ts))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(firstSite[siteOf(ts[a])], firstSite[siteOf(ts[b])]),
			cmp.Compare(firstLoss[lossOf(ts[a])], firstLoss[lossOf(ts[b])]))
	})
	sh := newShare(s.terrain, s.engines)
	cov := coverage.New(sh.terrain(), sh.engine)
	exact := req.exact()
	if exact {
		// every pixel on its own Terrain.Profile with the engine's own
		// Predict (coverage's exact mode): nothing to share, and the
		// pixels' profiles are not worth keeping
		cov = coverage.New(s.terrain, s.engines)
	}
	reqs := make([]coverage.Request, len(ts))
	for i, t := range ts {
		reqs[i] = t.Request
	}
	shareOK := func(t Transmitter) bool {
		return !exact && siteSize[siteOf(t)] > 1 && ShareBytes(t.Request) <= MaxShareBytes
	}
	siteFreqs := map[siteKey][]float64{}
	for _, t := range ts {
		if fs := siteFreqs[siteOf(t)]; !slices.Contains(fs, t.FreqMHz) {
			siteFreqs[siteOf(t)] = append(fs, t.FreqMHz)
		}
	}
	sh.reset(shareOK(ts[order[0]]))
	sh.setFreqs(siteFreqs[siteOf(ts[order[0]])])

	var (
		acc    []perChannel
		inRad  []bool
		server []int32
		best   []float32
		sums   = make([]coverage.Summary, len(ts))
		pos    = 0
	)
	grid, err := cov.ComputeEach(ctx, reqs, order, opts, func(m coverage.EachMap) error {
		n := len(m.Raster.DBm)
		if acc == nil {
			acc = make([]perChannel, len(chs.list))
			server = make([]int32, n)
			inRad = make([]bool, n)
			best = make([]float32, n)
			for k := range server {
				server[k] = -1
				best[k] = float32(math.NaN())
			}
		}
		i := int32(m.Index)
		c := &acc[chs.of[m.Index]]
		if c.max == nil {
			c.max, c.idx, c.rest = make([]float64, n), make([]int32, n), make([]float64, n)
			for k := range c.idx {
				c.idx[k] = -1
			}
		}
		for _, pix := range m.Pixels {
			for _, px := range pix {
				inRad[px] = true
				v := m.Raster.DBm[px]
				if v != v {
					continue
				}
				if b := server[px]; b < 0 || v > best[px] || v == best[px] && i < b {
					best[px], server[px] = v, i
				}
				mw := math.Pow(10, float64(v)/10)
				switch {
				case c.idx[px] < 0:
					c.max[px], c.idx[px] = mw, i
				case mw > c.max[px] || mw == c.max[px] && i < c.idx[px]:
					c.rest[px] += c.max[px]
					c.max[px], c.idx[px] = mw, i
				default:
					c.rest[px] += mw
				}
			}
		}
		sums[m.Index] = m.Summary
		pos++
		if pos < len(order) {
			next := ts[order[pos]]
			if siteOf(next) != siteOf(ts[m.Index]) {
				sh.reset(shareOK(next))
				sh.setFreqs(siteFreqs[siteOf(next)])
			} else if lossOf(next) != lossOf(ts[m.Index]) {
				sh.resetLosses()
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("interference compute: %w", err)
	}
	sh.mu.Lock()
	hits, profHits := sh.hits, sh.profHits
	sh.mu.Unlock()
	sh.reset(false)
	res := &Result{Grid: grid, Server: server, CarrierDBm: best}
	n := len(server)
	res.InterferenceDBm = make([]float32, n)
	res.CIDB = make([]float32, n)
	res.SINRDB = make([]float32, n)
	noiseMW := make([]float64, len(chs.list))
	for k, ch := range chs.list {
		noiseMW[k] = math.Pow(10, NoiseDBm(ch.BandwidthMHz, nf)/10)
	}
	// coupling[v][j]: the linear factor of channel j into victim channel v
	// for each transmitter's ACS (per transmitter, as ACS is its receivers').
	type couple struct {
		f        float64
		assumed  bool
		adjacent bool
	}
	coup := make([][]couple, len(ts))
	for b, t := range ts {
		coup[b] = make([]couple, len(chs.list))
		acs := t.ACSDB
		if acs == 0 {
			acs = DefaultACSDB
		}
		for j, ch := range chs.list {
			kind, f := CouplingOf(chs.list[chs.of[b]], ch, acs)
			coup[b][j] = couple{f: f, assumed: kind == Adjacent && t.ACSDB == 0, adjacent: kind == Adjacent}
		}
	}
	sum := Summary{Pixels: n, NoiseFigureDB: nf, MinSINRDB: math.NaN(), MaxSINRDB: math.NaN(),
		ServedPixels: make([]int, len(ts)), Channels: chs.list, SharedSweeps: hits, SharedProfiles: profHits, PerTransmitter: sums,
		Pixel: pixelInfo(req, sums[0].ProfileStepM)}
	ths := req.SINRThresholdsDB
	if ths == nil {
		ths = DefaultSINRThresholdsDB
	}
	for _, th := range ths {
		sum.SINRAreas = append(sum.SINRAreas, SINRArea{ThresholdDB: th})
	}
	for _, in := range inRad {
		if in {
			sum.InRadiusPixels++
		}
	}
	nan := float32(math.NaN())
	acsAssumed := false
	for px := range n {
		b := server[px]
		if b < 0 {
			res.InterferenceDBm[px], res.CIDB[px], res.SINRDB[px] = nan, nan, nan
			continue
		}
		cb := chs.of[b]
		var iMW float64
		coupled := false
		for j := range acc {
			c := &acc[j]
			if c.max == nil || c.idx[px] < 0 {
				continue
			}
			cp := coup[b][j]
			if j == cb {
				if c.rest[px] > 0 {
					iMW += c.rest[px]
					coupled = true
				}
				continue
			}
			if cp.f == 0 {
				continue
			}
			iMW += cp.f * (c.max[px] + c.rest[px])
			coupled = true
			if cp.assumed {
				acsAssumed = true
			}
		}
		carrier := float64(best[px])
		sinr := carrier - 10*math.Log10(iMW+noiseMW[cb])
		res.SINRDB[px] = float32(sinr)
		if coupled && iMW > 0 {
			res.InterferenceDBm[px] = float32(10 * math.Log10(iMW))
			res.CIDB[px] = float32(carrier - 10*math.Log10(iMW))
			sum.InterferedPixels++
		} else {
			res.InterferenceDBm[px], res.CIDB[px] = nan, nan
		}
		sum.ValidPixels++
		sum.ServedPixels[b]++
		if sum.ValidPixels == 1 || sinr < sum.MinSINRDB {
			sum.MinSINRDB = sinr
		}
		if sum.ValidPixels == 1 || sinr > sum.MaxSINRDB {
			sum.MaxSINRDB = sinr
		}
		area := grid.PixelAreaKm2(px / grid.Width)
		for k := range sum.SINRAreas {
			if sinr >= sum.SINRAreas[k].ThresholdDB {
				sum.SINRAreas[k].AreaKm2 += area
			}
		}
	}
	seen := map[string]bool{}
	for _, ps := range sums { // each code once, with the first transmitter's message
		for _, w := range ps.Warnings {
			if !seen[w.Code] {
				seen[w.Code] = true
				sum.Warnings = append(sum.Warnings, w)
			}
		}
	}
	if acsAssumed {
		sum.Warnings = append(sum.Warnings, appliance.Warning{Code: WarnACSAssumed, Message: fmt.Sprintf(
			"adjacent-channel interferers were attenuated by an assumed selectivity of %g dB: the serving equipment states none", DefaultACSDB)})
	}
	if sum.Warnings == nil {
		sum.Warnings = []appliance.Warning{}
	}
	sum.ElapsedMS = time.Since(start).Milliseconds()
	res.Summary = sum
	return res, nil
}
