package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"linkplan/appliance"
	"linkplan/appliance/buildings"
	"linkplan/appliance/observations"
	"linkplan/engines/fspl"
	"linkplan/engines/p1411"
	"linkplan/engines/raytrace"
)

const raytraceUsage = `usage: linkplan raytrace eval --buildings FILE --observations FILE... --offset-from FILE... [flags]

Compares the raytrace engine, fspl and P.1411 with drive-test measurements
(RSRP) in a building layer's extent. The EIRP offset K of each engine is
fitted on the --offset-from rows (K = mean of observed + predicted loss)
and applied to the --observations rows: residual = observed − (K − loss).
The files are drive-test CSVs, plain or gzip, read streaming, each of at
most 2,000,000 data rows and 1 GiB of CSV once decompressed (not the web
upload's 10,000 rows per request); FILE may be OPERATOR=FILE as in
linkplan model train (a value that names an existing file is that file).
Rows whose receiver lies outside the buildings' extent are skipped and
counted, as are unusable rows: a cell that is not a number in a column
scored (positions, signal, frequency), no receiver, serving cell,
frequency or signal, or a signal outside its plausible range (−150 to
30 dBm, rsrp at most −31 and rscp at most −25: a logger's placeholder
such as 2147483647 or 0, or a report index, is no measurement), and rows
whose serving cell lies beyond the traced frame; a ts or altitude cell
that cannot be read (a local time without UTC offset) leaves the row in,
without it. Every engine is scored on the same rows, those all of them
predict. The ground is flat at the mean altitude of the rows (the files'
alt column; no terrain pack covers the area), the transmitters at
--tx-height-m above it, the receivers at --rx-height-m. The raytrace
engine runs with its default options, the power sum, the walls' diffuse
scattering at --diffuse-scattering (S = 0.4, typical of the building
walls measured by Degli-Esposti et al., 2007), the paths that meet walls
before and after a diffracting edge (--reflection-diffraction) and, where
a path leaves the buildings' extent, clutter of their median height on
the ground beyond it (--clutter-beyond-extent; the transmitters' sites
are often outside the extract).

Prints one line per engine: engine=NAME n= rmse_db= bias_db=
offset_dbm=, after comment lines (#): the buildings and the ground; the
rows read and skipped, by reason, and the unusable ones by cause; the
warnings, code=count, of the building import (one each) and of the
engines (rows) over every row traced, evaluated and offset, those left out of the scores
included (raytrace_…, and p1411_… where a row is outside the range
P.1411's site-general model is stated for: 2.2 GHz and up, so every LTE
band below); the warnings of the rows not predicted by every engine
(e.g. raytrace_rx_inside_building, raytrace_no_path); and per engine its
residuals where the raytrace engine finds line of sight and where not,
with the engine's own warnings over the scored rows.
`

// evalDiffuseS is raytrace eval's default scattering coefficient of the
// walls (engines/raytrace Options.DiffuseScattering): without it the
// engine's receivers in the shadow of the campus buildings were on
// average 12 to 15 dB weaker, relative to those in line of sight, than
// the drive tests show (engines/raytrace doc.go, Validation).
const evalDiffuseS = 0.4

// raytraceCmd runs linkplan raytrace eval.
func raytraceCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "eval" {
		fmt.Fprint(stderr, raytraceUsage)
		return fmt.Errorf("raytrace: the subcommand is eval: %w", errUsage)
	}
	fs := newFlags("raytrace eval", stderr)
	var obs, off multi
	bfile := fs.String("buildings", "", "building layer: GeoJSON, zipped Shapefile, OSM XML or PBF (gzip allowed)")
	fs.Var(&obs, "observations", "drive-test CSV evaluated, plain or gzip (repeatable)")
	fs.Var(&off, "offset-from", "drive-test CSV the EIRP offset is fitted on (repeatable)")
	txH := fs.Float64("tx-height-m", 30, "transmitter height above the ground, metres (the files carry none)")
	rxH := fs.Float64("rx-height-m", 1.5, "receiver height above the ground, metres")
	defH := fs.Float64("default-height-m", buildings.DefaultHeightM, "height assumed for buildings without height or storeys, metres")
	refl := fs.Int("max-reflections", raytrace.DefaultMaxReflections, "highest reflection order, 0–3")
	trans := fs.Bool("transmission", false, "let the direct path cross walls with P.2040 slab losses")
	sum := fs.String("sum", string(raytrace.SumPower), "field sum: power (local mean) or coherent")
	diffuse := fs.Float64("diffuse-scattering", evalDiffuseS, "scattering coefficient S of the walls (effective roughness, Lambertian), 0 (off) to 1")
	rd := fs.Bool("reflection-diffraction", true, "trace the paths that meet walls before and after a diffracting edge")
	clutter := fs.Bool("clutter-beyond-extent", true, "cover the ground beyond the buildings' extent with clutter of their median height")
	sr := fs.Bool("scattering-reflections", true, "let each leg of the walls' scattering also take one wall reflection (needs --diffuse-scattering above 0)")
	if err := fs.Parse(args[1:]); err != nil || fs.NArg() != 0 || *bfile == "" || len(obs) == 0 || len(off) == 0 {
		fmt.Fprint(stderr, raytraceUsage)
		return fmt.Errorf("raytrace eval: --buildings, --observations and --offset-from are required: %w", errUsage)
	}
	opt := raytrace.DefaultOptions()
	opt.MaxReflections, opt.Transmission, opt.Sum = *refl, *trans, raytrace.SumMode(*sum)
	opt.DiffuseScattering = *diffuse
	opt.ReflectionDiffraction = *rd
	opt.ClutterBeyondExtent = *clutter
	opt.ScatteringReflections = *sr && *diffuse > 0
	res, err := raytraceEval(ctx, evalConfig{Buildings: *bfile, Observations: obs, OffsetFrom: off,
		TxHeightM: *txH, RxHeightM: *rxH, DefaultHeightM: *defH, Options: &opt})
	if err != nil {
		if errors.Is(err, appliance.ErrInvalid) {
			return fmt.Errorf("raytrace eval: %v: %w", err, errUsage)
		}
		return fmt.Errorf("raytrace eval: %w", err)
	}
	res.print(stdout)
	return nil
}

// evalConfig is one comparison.
type evalConfig struct {
	Buildings                string
	Observations, OffsetFrom []string
	TxHeightM, RxHeightM     float64
	DefaultHeightM           float64
	Options                  *raytrace.Options // nil: defaults with the power sum
}

// engineScore is one engine's figures.
type engineScore struct {
	Engine         string
	N              int
	RMSEDB, BiasDB float64
	OffsetDB       float64 // K fitted on the offset rows, dBm
	OffsetN        int
	Split          []string // residuals where the raytrace engine finds line of sight and where not
	// Warnings counts the engine's own warnings (codes ENGINE_…) over the
	// scored rows, by code
	Warnings map[string]int
}

// evalResult is what raytrace eval prints.
type evalResult struct {
	Scores []engineScore
	// evaluated rows read, skipped for an unusable cell (not a number, a
	// signal outside its plausible range, or no receiver, serving cell,
	// frequency or signal), outside the extent, with the serving cell
	// beyond the traced frame, and not predicted by every engine (scored
	// by none: every engine is scored on the same rows)
	Rows, Bad, Skipped, FarCell, Unpredicted int
	OffsetRows, OffsetBad, OffsetSkipped     int
	OffsetFarCell, OffsetUnpredicted         int
	BadBy, OffsetBadBy                       map[string]int // Bad and OffsetBad by cause
	GroundM                                  float64
	AltRows                                  int // rows with an altitude
	Buildings, Assumed, LevelsCount, Refused int
	// Warnings counts the building import's warnings (their count of
	// features is in the message) and the engines' warnings (raytrace_…,
	// p1411_…) over every row traced, evaluated and offset, those not
	// predicted by every engine included, by code
	Warnings map[string]int
	// UnpredictedWarnings counts the engines' warnings over the rows not
	// predicted by every engine (Unpredicted, OffsetUnpredicted), by code
	UnpredictedWarnings map[string]int
}

func (r *evalResult) print(w io.Writer) {
	ground := fmt.Sprintf("flat at %.1f m (mean drive-test altitude of %d rows)", r.GroundM, r.AltRows)
	if r.AltRows == 0 {
		ground = "flat at 0 m (the files carry no altitude)"
	}
	fmt.Fprintf(w, "# buildings=%d (heights: %d from storeys, %d assumed; %d features refused) ground=%s\n",
		r.Buildings, r.LevelsCount, r.Assumed, r.Refused, ground)
	fmt.Fprintf(w, "# observations rows=%d skipped_unusable=%d skipped_outside_extent=%d skipped_cell_beyond_frame=%d skipped_not_predicted_by_every_engine=%d; offset rows=%d skipped_unusable=%d skipped_outside_extent=%d skipped_cell_beyond_frame=%d skipped_not_predicted_by_every_engine=%d\n",
		r.Rows, r.Bad, r.Skipped, r.FarCell, r.Unpredicted, r.OffsetRows, r.OffsetBad, r.OffsetSkipped, r.OffsetFarCell, r.OffsetUnpredicted)
	if r.Bad+r.OffsetBad > 0 {
		fmt.Fprintf(w, "# skipped_unusable by cause: observations %s; offset %s\n", orNone(counts(r.BadBy)), orNone(counts(r.OffsetBadBy)))
	}
	if len(r.Warnings) > 0 {
		fmt.Fprintf(w, "# warnings: %s\n", counts(r.Warnings))
	}
	if r.Unpredicted+r.OffsetUnpredicted > 0 {
		fmt.Fprintf(w, "# skipped_not_predicted_by_every_engine: observations=%d offset=%d; their warnings: %s\n",
			r.Unpredicted, r.OffsetUnpredicted, orNone(counts(r.UnpredictedWarnings)))
	}
	for _, s := range r.Scores {
		fmt.Fprintf(w, "engine=%s n=%d rmse_db=%.2f bias_db=%.2f offset_dbm=%.2f\n", s.Engine, s.N, s.RMSEDB, s.BiasDB, s.OffsetDB)
	}
	for _, s := range r.Scores {
		line := strings.Join(s.Split, "; ")
		if len(s.Warnings) > 0 {
			line += fmt.Sprintf("; warnings over the %d scored rows: %s", s.N, counts(s.Warnings))
		}
		fmt.Fprintf(w, "# %s residuals: %s\n", s.Engine, line)
	}
}

// evalRow is one drive-test row with its predictions.
type evalRow struct {
	dtRow
	Alt    float64 // metres above sea level, where HasAlt
	HasAlt bool
	Warn   []string           // the engines' warning codes (raytrace_…, p1411_…)
	Loss   map[string]float64 // by engine, dB; absent: no prediction
	LOS    bool               // the raytrace engine found the direct path
}

func raytraceEval(ctx context.Context, cfg evalConfig) (*evalResult, error) {
	raw, err := os.ReadFile(cfg.Buildings)
	if err != nil {
		return nil, fmt.Errorf("--buildings: %w", err)
	}
	im, err := buildings.Parse(ctx, raw, buildings.Options{DefaultHeightM: cfg.DefaultHeightM, MaxBytes: 256 << 20})
	if err != nil {
		return nil, fmt.Errorf("--buildings %s: %w", cfg.Buildings, err)
	}
	evalRows, bad, err := readEvalRows(cfg.Observations, "--observations")
	if err != nil {
		return nil, err
	}
	offRows, offBad, err := readEvalRows(cfg.OffsetFrom, "--offset-from")
	if err != nil {
		return nil, err
	}
	box := bounds(im.Buildings)
	res := &evalResult{Buildings: len(im.Buildings), Assumed: im.Assumed, LevelsCount: im.Levels, Refused: im.Refused,
		Rows: len(evalRows) + total(bad), Bad: total(bad), OffsetRows: len(offRows) + total(offBad), OffsetBad: total(offBad),
		BadBy: bad, OffsetBadBy: offBad, Warnings: map[string]int{}, UnpredictedWarnings: map[string]int{}}
	for _, w := range im.Warnings {
		res.Warnings[w.Code]++
	}
	inside := func(rows []evalRow) ([]evalRow, int) {
		var in []evalRow
		for _, r := range rows {
			if box.Contains(appliance.LatLon{Lat: r.RxLat, Lon: r.RxLon}) {
				in = append(in, r)
			}
		}
		return in, len(rows) - len(in)
	}
	evalRows, res.Skipped = inside(evalRows)
	offRows, res.OffsetSkipped = inside(offRows)
	if len(evalRows) == 0 {
		return nil, fmt.Errorf("no --observations row lies inside the buildings' extent %+v: %w", box, appliance.ErrInvalid)
	}
	if len(offRows) == 0 {
		return nil, fmt.Errorf("no --offset-from row lies inside the buildings' extent %+v: %w", box, appliance.ErrInvalid)
	}
	for _, rows := range [][]evalRow{evalRows, offRows} {
		for _, r := range rows {
			if r.HasAlt {
				res.GroundM += r.Alt
				res.AltRows++
			}
		}
	}
	if res.AltRows > 0 {
		res.GroundM /= float64(res.AltRows)
	}
	scene, err := raytrace.NewScene(raytrace.SceneInput{Buildings: im.Buildings, GroundHeightM: res.GroundM})
	if err != nil {
		return nil, err
	}
	// a serving cell beyond the traced frame (a wrong position in the
	// file, e.g. 0,0) is skipped and counted, not the run failed
	nearCell := func(rows []evalRow) ([]evalRow, int) {
		var in []evalRow
		for _, r := range rows {
			x, y := scene.Frame().ToLocal(appliance.LatLon{Lat: r.TxLat, Lon: r.TxLon})
			if math.Hypot(x, y) <= appliance.RaytraceMaxFrameM {
				in = append(in, r)
			}
		}
		return in, len(rows) - len(in)
	}
	evalRows, res.FarCell = nearCell(evalRows)
	offRows, res.OffsetFarCell = nearCell(offRows)
	if len(evalRows) == 0 || len(offRows) == 0 {
		return nil, fmt.Errorf("no row of the %s has its serving cell within %g m of the buildings' centre: %w",
			map[bool]string{true: "--observations", false: "--offset-from"}[len(evalRows) == 0], appliance.RaytraceMaxFrameM, appliance.ErrInvalid)
	}
	opt := raytrace.DefaultOptions()
	opt.Sum = raytrace.SumPower
	if cfg.Options != nil {
		opt = *cfg.Options
	}
	for _, rows := range [][]evalRow{evalRows, offRows} {
		if err := predictEvalRows(ctx, scene, rows, cfg, opt); err != nil {
			return nil, err
		}
	}
	engines := []string{"raytrace", "fspl", "p1411"}
	// every engine is scored on the same rows: those all of them predict
	// (a row the ray tracer cannot reach, e.g. a fix inside a footprint,
	// is left out of every score, not of the ray tracer's alone)
	common := func(rows []evalRow) ([]evalRow, int) {
		var in []evalRow
		for _, r := range rows {
			all := true
			for _, e := range engines {
				if _, ok := r.Loss[e]; !ok {
					all = false
				}
			}
			if all {
				in = append(in, r)
			}
		}
		return in, len(rows) - len(in)
	}
	// the warnings of every row traced, those left out of the scores too
	// (a receiver inside a footprint, no path: why they are left out)
	for _, rows := range [][]evalRow{evalRows, offRows} {
		for _, r := range rows {
			for _, c := range r.Warn {
				res.Warnings[c]++
			}
			if len(r.Loss) < len(engines) {
				for _, c := range r.Warn {
					res.UnpredictedWarnings[c]++
				}
			}
		}
	}
	evalRows, res.Unpredicted = common(evalRows)
	offRows, res.OffsetUnpredicted = common(offRows)
	if len(evalRows) == 0 || len(offRows) == 0 {
		return nil, fmt.Errorf("no row is predicted by every engine (%s): %w", strings.Join(engines, ", "), appliance.ErrInvalid)
	}
	for _, eng := range engines {
		s := engineScore{Engine: eng}
		for _, r := range offRows {
			if l, ok := r.Loss[eng]; ok {
				s.OffsetDB += r.ObservedDBm + l
				s.OffsetN++
			}
		}
		if s.OffsetN == 0 {
			return nil, fmt.Errorf("engine %s predicts no offset row", eng)
		}
		s.OffsetDB /= float64(s.OffsetN)
		var sum, sum2 float64
		for _, r := range evalRows {
			l, ok := r.Loss[eng]
			if !ok {
				continue
			}
			e := r.ObservedDBm - (s.OffsetDB - l)
			sum += e
			sum2 += e * e
			s.N++
		}
		if s.N > 0 {
			s.BiasDB = sum / float64(s.N)
			s.RMSEDB = math.Sqrt(sum2 / float64(s.N))
		}
		s.Warnings = map[string]int{}
		for _, r := range evalRows {
			for _, c := range r.Warn {
				if strings.HasPrefix(c, eng+"_") {
					s.Warnings[c]++
				}
			}
		}
		for _, los := range []bool{true, false} {
			var n int
			var m, m2 float64
			for _, r := range evalRows {
				if l, ok := r.Loss[eng]; ok && r.LOS == los {
					e := r.ObservedDBm - (s.OffsetDB - l)
					m += e
					m2 += e * e
					n++
				}
			}
			if n > 0 {
				m /= float64(n)
				s.Split = append(s.Split, fmt.Sprintf("los=%v n=%d mean_db=%.2f std_db=%.2f", los, n, m, math.Sqrt(math.Max(0, m2/float64(n)-m*m))))
			}
		}
		res.Scores = append(res.Scores, s)
	}
	return res, nil
}

// predictEvalRows fills Loss of every row: raytrace grouped by serving cell
// (one image tree per cell), fspl over a flat profile, P.1411's
// site-general above-rooftop model (line of sight or urban high-rise non
// line of sight, as the raytrace engine finds the direct path).
// The raytrace engine's warning codes of each row, and P.1411's
// (p1411Codes), go into its Warn.
func predictEvalRows(ctx context.Context, s *raytrace.Scene, rows []evalRow, cfg evalConfig, opt raytrace.Options) error {
	groups := map[string][]int{}
	var keys []string
	for i := range rows {
		rows[i].Loss = map[string]float64{}
		k := rows[i].servingCell()
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], i)
	}
	sort.Strings(keys)
	fe := fspl.New()
	for _, k := range keys {
		idx := groups[k]
		r0 := rows[idx[0]]
		tx := raytrace.Antenna{Pos: appliance.LatLon{Lat: r0.TxLat, Lon: r0.TxLon}, HeightM: cfg.TxHeightM}
		req := raytrace.ReceiversRequest{Tx: tx, FreqMHz: r0.FreqHz / 1e6, TxPowerDBm: 0, Options: opt}
		for _, i := range idx {
			req.Rx = append(req.Rx, raytrace.Antenna{Pos: appliance.LatLon{Lat: rows[i].RxLat, Lon: rows[i].RxLon}, HeightM: cfg.RxHeightM})
		}
		out, err := s.Receivers(ctx, req)
		if err != nil {
			return fmt.Errorf("serving cell %s: %w", k, err)
		}
		for j, i := range idx {
			r := &rows[i]
			for _, w := range out[j].Warnings {
				r.Warn = append(r.Warn, w.Code)
			}
			los := out[j].LOS
			r.LOS = los
			if out[j].Reachable {
				r.Loss["raytrace"] = out[j].PathLossDB
			}
			d := tx.Pos.DistanceM(appliance.LatLon{Lat: r.RxLat, Lon: r.RxLon})
			prof := &appliance.PathProfile{DistancesM: []float64{0, d}, HeightsM: []float64{0, 0}}
			r.Loss["fspl"] = fe.Compute(prof, cfg.TxHeightM, cfg.RxHeightM, r.FreqHz/1e6).PathLossDB
			env := p1411.AboveNLoSUrbanHighRise
			if los {
				env = p1411.AboveLoS
			}
			d3 := math.Hypot(d, cfg.TxHeightM-cfg.RxHeightM)
			if l, warn, err := p1411.AboveRooftop(env, r.FreqHz/1e6, d3); err == nil {
				r.Loss["p1411"] = l
				r.Warn = append(r.Warn, p1411Codes(warn)...)
			}
		}
	}
	return nil
}

// p1411Codes are the eval's codes of P.1411's warning flags: the model
// (§4.2.1, site-general above rooftop) is stated for 2.2 GHz and up, and
// for a distance range, which drive tests of LTE bands mostly leave.
func p1411Codes(w p1411.Warning) []string {
	var out []string
	for _, f := range []struct {
		flag p1411.Warning
		code string
	}{
		{p1411.WarnFrequency, "p1411_frequency_out_of_range"},
		{p1411.WarnDistance, "p1411_distance_out_of_range"},
		{p1411.WarnFreeSpaceFloor, "p1411_free_space_floor"},
		{p1411.WarnNegativeLoss, "p1411_negative_loss"},
	} {
		if w.Has(f.flag) {
			out = append(out, f.code)
		}
	}
	return out
}

// orNone is s, or "none" when s is empty.
func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func bounds(bs []appliance.Building) appliance.BBox {
	b := appliance.BBox{MinLat: math.Inf(1), MinLon: math.Inf(1), MaxLat: math.Inf(-1), MaxLon: math.Inf(-1)}
	for _, x := range bs {
		for _, fp := range x.Footprints {
			for _, p := range fp.Outer {
				b.MinLat, b.MaxLat = math.Min(b.MinLat, p.Lat), math.Max(b.MaxLat, p.Lat)
				b.MinLon, b.MaxLon = math.Min(b.MinLon, p.Lon), math.Max(b.MaxLon, p.Lon)
			}
		}
	}
	return b
}

// readEvalRows reads drive-test files (flag names the list in errors) with
// their altitude column (alt, altitude or elevation, metres), skipping and
// counting (bad) the rows with a cell that is not a number or without a
// receiver, serving cell, frequency in the ray tracer's range or signal;
// no usable row at all is an error saying so.
func readEvalRows(files []string, flag string) (rows []evalRow, bad map[string]int, err error) {
	bad = map[string]int{}
	for _, v := range files {
		op, f := splitOperator(v)
		ins, skips, err := readEvalFile(f)
		if err != nil {
			return nil, nil, fmt.Errorf("%s %s: %w", flag, filepath.Base(f), err)
		}
		for col, n := range skips.NotNumber {
			bad["not_a_number["+col+"]"] += n
		}
		if skips.Signal > 0 {
			bad["signal_out_of_range"] += skips.Signal
		}
		for _, in := range ins {
			cause := ""
			switch {
			case in.RxLat == nil || in.RxLon == nil:
				cause = "no_position"
			case in.TxLat == nil || in.TxLon == nil:
				cause = "no_serving_cell"
			case in.ObservedDBm == nil:
				cause = "no_signal"
			case in.FreqMHz == nil:
				cause = "no_frequency"
			case !(*in.FreqMHz >= raytrace.MinFreqMHz && *in.FreqMHz <= raytrace.MaxFreqMHz):
				cause = "frequency_out_of_range"
			}
			if cause != "" {
				bad[cause]++
				continue
			}
			r := evalRow{dtRow: dtRow{RxLat: *in.RxLat, RxLon: *in.RxLon, TxLat: *in.TxLat, TxLon: *in.TxLon,
				FreqHz: *in.FreqMHz * 1e6, ObservedDBm: *in.ObservedDBm, File: filepath.Base(f), Operator: op}}
			if in.RxAltM != nil {
				r.Alt, r.HasAlt = *in.RxAltM, true
			}
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		lo, hi := observations.SignalRange("rsrp")
		return nil, nil, fmt.Errorf("%s: no usable row: %d rows unusable (%s); a row needs the receiver's position, the serving cell's position (cellLat/cellLon or tx_lat/tx_lon), a frequency the ray tracer takes (cellFreq or freq_hz, %g–%g MHz) and the signal (rsrp, signal_dbm, rscp or rxlev) within its plausible range (rsrp %g to %g dBm): %w",
			flag, total(bad), counts(bad), raytrace.MinFreqMHz, raytrace.MaxFreqMHz, lo, hi, appliance.ErrInvalid)
	}
	return rows, bad, nil
}

// Caps of one drive-test file of raytrace eval (its usage text): the
// upload's cap per request (observations.MaxBatchRows, 10,000 rows) is
// no bound for a file a tool reads from disk.
const (
	evalMaxRows  = 2_000_000
	evalMaxBytes = 1 << 30 // decompressed
)

// readEvalFile reads one drive-test file, streaming it (plain or gzip),
// at most evalMaxRows rows and evalMaxBytes bytes of CSV.
func readEvalFile(name string) ([]observations.Input, observations.RowSkips, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, observations.RowSkips{}, err
	}
	defer f.Close()
	return observations.DriveTestRows(observations.DriveTest{CSV: f, MaxRows: evalMaxRows, MaxBytes: evalMaxBytes})
}

// total is the sum of the counts of m.
func total(m map[string]int) int {
	n := 0
	for _, c := range m {
		n += c
	}
	return n
}

// counts writes m as "key=n key=n", keys sorted; "" when m is empty.
func counts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%d", k, m[k])
	}
	return strings.Join(parts, " ")
}
