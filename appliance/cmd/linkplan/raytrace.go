package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"linkplan/appliance"
	"linkplan/appliance/buildings"
	"linkplan/engines/fspl"
	"linkplan/engines/p1411"
	"linkplan/engines/raytrace"
)

const raytraceUsage = `usage: linkplan raytrace eval --buildings FILE --observations FILE... --offset-from FILE... [flags]

Compares the raytrace engine, fspl and P.1411 with drive-test measurements
(RSRP) in a building layer's extent. The EIRP offset K of each engine is
fitted on the --offset-from rows (K = mean of observed + predicted loss)
and applied to the --observations rows: residual = observed − (K − loss).
Rows whose receiver lies outside the buildings' extent are skipped and
counted. The ground is flat at the mean altitude of the rows (the files'
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
}

// evalResult is what raytrace eval prints.
type evalResult struct {
	Scores                          []engineScore
	Rows, Skipped, Unreachable      int // evaluated rows read, outside the extent, without a raytrace path
	OffsetRows, OffsetSkipped       int
	GroundM                         float64
	Buildings, Assumed, LevelsCount int
}

func (r *evalResult) print(w io.Writer) {
	fmt.Fprintf(w, "# buildings=%d (heights: %d from storeys, %d assumed) ground=flat at %.1f m (mean drive-test altitude)\n",
		r.Buildings, r.LevelsCount, r.Assumed, r.GroundM)
	fmt.Fprintf(w, "# observations rows=%d skipped_outside_extent=%d raytrace_unreachable=%d; offset rows=%d skipped_outside_extent=%d\n",
		r.Rows, r.Skipped, r.Unreachable, r.OffsetRows, r.OffsetSkipped)
	for _, s := range r.Scores {
		fmt.Fprintf(w, "engine=%s n=%d rmse_db=%.2f bias_db=%.2f offset_dbm=%.2f\n", s.Engine, s.N, s.RMSEDB, s.BiasDB, s.OffsetDB)
	}
	for _, s := range r.Scores {
		fmt.Fprintf(w, "# %s residuals: %s\n", s.Engine, strings.Join(s.Split, "; "))
	}
}

// evalRow is one drive-test row with its predictions.
type evalRow struct {
	dtRow
	Alt  float64
	Loss map[string]float64 // by engine, dB; absent: no prediction
	LOS  bool               // the raytrace engine found the direct path
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
	evalRows, err := readEvalRows(cfg.Observations)
	if err != nil {
		return nil, err
	}
	offRows, err := readEvalRows(cfg.OffsetFrom)
	if err != nil {
		return nil, err
	}
	box := bounds(im.Buildings)
	res := &evalResult{Buildings: len(im.Buildings), Assumed: im.Assumed, LevelsCount: im.Levels, Rows: len(evalRows), OffsetRows: len(offRows)}
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
	if len(evalRows) == 0 || len(offRows) == 0 {
		return nil, fmt.Errorf("no row lies inside the buildings' extent %+v: %w", box, appliance.ErrInvalid)
	}
	all := append(append([]evalRow(nil), evalRows...), offRows...)
	for _, r := range all {
		res.GroundM += r.Alt
	}
	res.GroundM /= float64(len(all))
	scene, err := raytrace.NewScene(raytrace.SceneInput{Buildings: im.Buildings, GroundHeightM: res.GroundM})
	if err != nil {
		return nil, err
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
	for _, r := range evalRows {
		if _, ok := r.Loss["raytrace"]; !ok {
			res.Unreachable++
		}
	}
	for _, eng := range []string{"raytrace", "fspl", "p1411"} {
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
			if l, _, err := p1411.AboveRooftop(env, r.FreqHz/1e6, d3); err == nil {
				r.Loss["p1411"] = l
			}
		}
	}
	return nil
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

// readEvalRows reads drive-test files with their altitude column (alt,
// metres; 0 when the file has none).
func readEvalRows(files []string) ([]evalRow, error) {
	rows, err := readDriveTests(files)
	if err != nil {
		return nil, err
	}
	var alts []float64
	for _, v := range files {
		_, f := splitOperator(v)
		a, err := altColumn(f)
		if err != nil {
			return nil, err
		}
		alts = append(alts, a...)
	}
	out := make([]evalRow, len(rows))
	for i := range rows {
		out[i].dtRow = rows[i]
		if len(alts) == len(rows) {
			out[i].Alt = alts[i]
		}
	}
	return out, nil
}

// altColumn returns the alt column of a drive-test CSV (plain or gzip),
// nil when it has none.
func altColumn(path string) ([]float64, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--observations: %w", err)
	}
	var r io.Reader = bytes.NewReader(raw)
	if len(raw) > 2 && raw[0] == 0x1f && raw[1] == 0x8b {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, fmt.Errorf("--observations %s: %w", path, err)
		}
		r = zr
	}
	cr := csv.NewReader(bufio.NewReader(r))
	head, err := cr.Read()
	if err != nil {
		return nil, nil
	}
	col := -1
	for i, h := range head {
		if strings.EqualFold(strings.TrimSpace(h), "alt") {
			col = i
		}
	}
	if col < 0 {
		return nil, nil
	}
	var out []float64
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil || col >= len(rec) {
			return nil, nil
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(rec[col]), 64)
		if err != nil {
			return nil, nil
		}
		out = append(out, v)
	}
	return out, nil
}
