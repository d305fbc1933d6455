package training

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"

	"linkplan/appliance"
)

// SynthSource is the source of the synthetic pipeline-validation rows.
// Their provenance is synthetic: a model trained on them never claims
// field accuracy (SPEC §2.6, §9).
const SynthSource = "synthetic"

// SynthShadowingDB is the standard deviation of the log-normal shadowing
// added to the baseline, dB.
const SynthShadowingDB = 8.0

// SynthArea is a rectangle of the embedded Rio terrain sample (one SRTM
// tile each, 0.05° inside its edges) where synthetic links are drawn.
type SynthArea struct{ MinLat, MinLon, MaxLat, MaxLon float64 }

// RioSampleAreas are the two tiles of the embedded Rio de Janeiro pack:
// S23W044 (the city, Guanabara Bay, Serra dos Órgãos) and S22W043
// (interior of the state).
var RioSampleAreas = []SynthArea{
	{MinLat: -22.95, MinLon: -43.95, MaxLat: -22.05, MaxLon: -43.05},
	{MinLat: -21.95, MinLon: -42.95, MaxLat: -21.05, MaxLon: -42.05},
}

// Synthesis parameters of the generator (documented in SYNTHETIC.md).
const (
	synthSites      = 24     // transmitter sites
	synthTxPowerDBm = 43.0   // 20 W macro cell
	synthTxGainDBi  = 15.0   // sector antenna
	synthRxHeightM  = 1.5    // handset
	synthMinDistKM  = 0.1    // receivers from 100 m …
	synthMaxDistKM  = 15.0   // … to 15 km, log-uniform
	synthTs0        = 1.75e9 // ts of row 0, epoch seconds
)

var synthBands = []float64{700, 850, 900, 1800, 2100, 2600, 3500}

// Synthesize draws n synthetic observations over areas with a PCG
// generator seeded by seed: 24 sites (height 20–60 m, 43 dBm, 15 dBi),
// receivers at a log-uniform distance of 0.1–15 km and a uniform bearing
// from a random site, inside the site's area, a frequency among the seven
// bands, and observed_dbm = baseline received power + N(0, 8 dB). A draw
// whose baseline fails (terrain missing, a path the engine refuses) or
// whose level falls outside [-150, 30] dBm is drawn again (at most 20
// times a row). The rows are consented, of source "synthetic", metric
// received_power; the same seed gives the same rows.
func Synthesize(ctx context.Context, baseline BaselineFunc, areas []SynthArea, n int, seed uint64) ([]appliance.Observation, error) {
	if n < 1 || n > 1_000_000 {
		return nil, fmt.Errorf("synthesize: n %d must be 1 to 1000000: %w", n, appliance.ErrInvalid)
	}
	if len(areas) == 0 {
		return nil, fmt.Errorf("synthesize: no area: %w", appliance.ErrInvalid)
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9E3779B97F4A7C15))
	type site struct {
		lat, lon, hM float64
		area         SynthArea
	}
	sites := make([]site, synthSites)
	for i := range sites {
		a := areas[i%len(areas)]
		sites[i] = site{lat: a.MinLat + rng.Float64()*(a.MaxLat-a.MinLat), lon: a.MinLon + rng.Float64()*(a.MaxLon-a.MinLon),
			hM: 20 + 40*rng.Float64(), area: a}
	}
	out := make([]appliance.Observation, 0, n)
	for i := 0; i < n; i++ {
		var o appliance.Observation
		ok := false
		for try := 0; try < 20 && !ok; try++ {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			s := sites[rng.IntN(len(sites))]
			dKM := synthMinDistKM * math.Pow(synthMaxDistKM/synthMinDistKM, rng.Float64())
			brg := 2 * math.Pi * rng.Float64()
			lat := s.lat + dKM/111.32*math.Cos(brg)
			lon := s.lon + dKM/(111.32*math.Cos(s.lat*math.Pi/180))*math.Sin(brg)
			band := synthBands[rng.IntN(len(synthBands))]
			shadow := rng.NormFloat64() * SynthShadowingDB
			if lat < s.area.MinLat || lat > s.area.MaxLat || lon < s.area.MinLon || lon > s.area.MaxLon {
				continue
			}
			o = appliance.Observation{ID: fmt.Sprintf("syn_%08d", i), TxLat: round6(s.lat), TxLon: round6(s.lon), TxHeightM: math.Round(s.hM*10) / 10,
				TxPowerDBm: synthTxPowerDBm, TxGainDBi: synthTxGainDBi, RxLat: round6(lat), RxLon: round6(lon), RxHeightM: synthRxHeightM,
				FreqHz: band * 1e6, Source: SynthSource, TsUnix: synthTs0 + float64(i), Consent: appliance.ConsentConsented,
				Weight: 1, Metric: "received_power"}
			b, err := baseline(ctx, &o)
			if errors.Is(err, appliance.ErrTerrainMissing) || errors.Is(err, appliance.ErrInvalid) {
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("synthesize row %d: %w", i, err)
			}
			o.ObservedDBm = math.Round((b+shadow)*100) / 100
			ok = o.ObservedDBm >= -150 && o.ObservedDBm <= 30
		}
		if !ok {
			return nil, fmt.Errorf("synthesize row %d: no valid draw in 20 tries: %w", i, appliance.ErrInvalid)
		}
		out = append(out, o)
	}
	return out, nil
}

func round6(v float64) float64 { return math.Round(v*1e6) / 1e6 }

// SynthColumns is the header of a synthetic CSV: the observation fields
// of SPEC §2.7 by their JSON names.
var SynthColumns = []string{"tx_lat", "tx_lon", "tx_height_m", "tx_power_dbm", "tx_gain_dbi", "rx_lat", "rx_lon", "rx_height_m",
	"rx_gain_dbi", "cable_loss_db", "freq_hz", "observed_dbm", "source", "ts"}

// WriteSynthCSV writes rows as CSV with the SynthColumns header.
func WriteSynthCSV(w io.Writer, rows []appliance.Observation) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(SynthColumns); err != nil {
		return fmt.Errorf("write synthetic csv: %w", err)
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for _, o := range rows {
		rec := []string{f(o.TxLat), f(o.TxLon), f(o.TxHeightM), f(o.TxPowerDBm), f(o.TxGainDBi), f(o.RxLat), f(o.RxLon), f(o.RxHeightM),
			f(o.RxGainDBi), f(o.CableLossDB), f(o.FreqHz), f(o.ObservedDBm), o.Source, f(o.TsUnix)}
		if err := cw.Write(rec); err != nil {
			return fmt.Errorf("write synthetic csv: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("write synthetic csv: %w", err)
	}
	return nil
}

// MaxSynthCSVRows bounds what ReadSynthCSV reads.
const MaxSynthCSVRows = 1_000_000

// ReadSynthCSV reads a CSV written by WriteSynthCSV: the exact header, one
// finite number per numeric column, the source "synthetic" on every row
// (the reader refuses to relabel measurements). Rows get ids syn_<index>,
// consent consented and metric received_power. Errors match
// appliance.ErrInvalid and name the line.
func ReadSynthCSV(r io.Reader) ([]appliance.Observation, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = len(SynthColumns)
	cr.ReuseRecord = true
	h, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("read synthetic csv header: %v: %w", err, appliance.ErrInvalid)
	}
	for i, c := range SynthColumns {
		if h[i] != c {
			return nil, fmt.Errorf("read synthetic csv: column %d is %q, want %q: %w", i+1, h[i], c, appliance.ErrInvalid)
		}
	}
	var out []appliance.Observation
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read synthetic csv: %v: %w", err, appliance.ErrInvalid)
		}
		if len(out) >= MaxSynthCSVRows {
			return nil, fmt.Errorf("read synthetic csv: more than %d rows: %w", MaxSynthCSVRows, appliance.ErrInvalid)
		}
		var v [14]float64
		for i, s := range rec {
			if i == 12 {
				continue
			}
			x, err := strconv.ParseFloat(s, 64)
			if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("read synthetic csv line %d: %s %q is not a finite number: %w", line, SynthColumns[i], s, appliance.ErrInvalid)
			}
			v[i] = x
		}
		if rec[12] != SynthSource {
			return nil, fmt.Errorf("read synthetic csv line %d: source %q, want %q: %w", line, rec[12], SynthSource, appliance.ErrInvalid)
		}
		out = append(out, appliance.Observation{ID: fmt.Sprintf("syn_%08d", len(out)), TxLat: v[0], TxLon: v[1], TxHeightM: v[2],
			TxPowerDBm: v[3], TxGainDBi: v[4], RxLat: v[5], RxLon: v[6], RxHeightM: v[7], RxGainDBi: v[8], CableLossDB: v[9],
			FreqHz: v[10], ObservedDBm: v[11], Source: SynthSource, TsUnix: v[13], Consent: appliance.ConsentConsented,
			Weight: 1, Metric: "received_power"})
	}
}
