package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"linkplan/appliance/cmd/linkplan/assemble"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"linkplan/appliance"
	"linkplan/appliance/calibration"
	"linkplan/engines"
)

const calibrateUsage = `usage:
  linkplan calibrate cv --observations [OPERATOR=]FILE [--observations ...] [flags]
      per operator (OPERATOR= of each file, as in linkplan model train;
      files without one form one group named "all"): predict every row with each engine (fspl, p1812, itm,
      p1812-p1411-hybrid, auto), fit the tenant calibration of
      appliance/calibration to the residuals (observed - predicted) in 5
      folds grouped by H3 resolution-8 block of the receiver (seed 42), and
      print one line per operator for the best physics engine:
      operator=… engine=… cv_rmse_before_db=… cv_rmse_after_db=… n=…
      cv_rmse_global_offset_db=… worst_fold_change_db=…
      worst_fold_change_vs_global_offset_db=… applied=… method=…
      folds_before_db=… folds_global_offset_db=… folds_after_db=…
      (before: the engine with the transmitter parameters below; after: with
      the calibration fitted on the other folds; global offset: one offset
      fitted on the other folds, the fair baseline when the EIRP is unknown;
      worst fold change: the largest change of a held-out fold's RMSE,
      after - before, and after - global offset; the folds: each held-out
      fold's RMSE without calibration, with one offset, with calibration). The best engine is the one with the least global-
      offset RMSE. Every engine's line goes to standard error.
  linkplan calibrate eval --observations FILE [--observations ...] [flags]
      split the rows' blocks in two halves (the blocks sorted by H3 index,
      permuted with seed 42, the first half of that order trains), choose
      the engine whose calibration has the least cross-validated RMSE on the
      training half, fit it there and apply it to the other half as the
      appliance applies it; print
      n=… rmse_before_db=… rmse_after_db=…
      and on standard error the engine, the single-offset baseline fitted on
      the training half, the oracle offset fitted on the evaluated rows
      (for scale only: it sees their signal) and the rows whose transmitter
      has no calibration.
Files are drive-test CSVs, plain or gzip, read as linkplan model reads them
(the aliases of POST /coverage/observations/drivetest; each row needs the
serving cell's position and frequency, as the Dortmund LTE layout
index,lon,lat,alt,speed,sinr,rsrp,rsrq,cellLon,cellLat,cellFreq has).
Terrain: without --pack the engines run on flat ground at sea level (a
profile of zeros every 30 m, no land cover): for measurements where no
terrain pack has tiles (Dortmund). With --pack, rows whose path needs a
missing tile are left out (counted). The transmitter parameters are the
flags below for every row (the files carry none): RSRP is the power of one
resource element, so the defaults are a macro cell's reference signal
(46 dBm over 1,200 subcarriers: 15.2 dBm) and a 17 dBi sector; the
calibration absorbs what they get wrong.
`

// calibrateCmd runs linkplan calibrate cv|eval.
func calibrateCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || (args[0] != "cv" && args[0] != "eval") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
			fmt.Fprint(stdout, calibrateUsage)
			return fmt.Errorf("calibrate: %w", flag.ErrHelp)
		}
		fmt.Fprint(stderr, calibrateUsage)
		return fmt.Errorf("calibrate: the subcommands are cv and eval: %w", errUsage)
	}
	fs := newFlags("calibrate "+args[0], stderr)
	var files, packs multi
	fs.Var(&files, "observations", "drive-test CSV file, plain or gzip, [OPERATOR=]FILE (repeatable)")
	fs.Var(&packs, "pack", "terrain pack (repeatable); without one: flat ground")
	txPower := fs.Float64("tx-power-dbm", 15.2, "transmitter power of every row, dBm (RSRP: per resource element)")
	txGain := fs.Float64("tx-gain-dbi", 17, "transmitter antenna gain, dBi")
	txHeight := fs.Float64("tx-height-m", appliance.DefaultTowerHeightM, "transmitter antenna height above ground, metres")
	rxHeight := fs.Float64("rx-height-m", 1.5, "receiver antenna height above ground, metres")
	rxGain := fs.Float64("rx-gain-dbi", 0, "receiver antenna gain, dBi")
	cable := fs.Float64("cable-loss-db", 0, "receiver feeder loss, dB")
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stderr, calibrateUsage)
			return fmt.Errorf("calibrate %s: %w", args[0], flag.ErrHelp)
		}
		return fmt.Errorf("calibrate %s: %v: %w", args[0], err, errUsage)
	}
	if fs.NArg() != 0 || len(files) == 0 {
		fmt.Fprint(stderr, calibrateUsage)
		return fmt.Errorf("calibrate %s: --observations is required: %w", args[0], errUsage)
	}
	rows, err := readDriveTests(files)
	if errors.Is(err, appliance.ErrInvalid) {
		return fmt.Errorf("calibrate %s: %v: %w", args[0], err, errUsage)
	}
	if err != nil {
		return fmt.Errorf("calibrate %s: %w", args[0], err)
	}
	reg, err := engines.New(engines.Config{})
	if err != nil {
		return err
	}
	pr := &calibration.Predictor{Engine: reg.WithFallback, Choose: reg.Choose}
	terrainNote := "flat ground at sea level (no terrain pack)"
	if len(packs) > 0 {
		ter, desc, err := assemble.OpenTerrain(packs)
		if err != nil {
			return fmt.Errorf("calibrate %s: %w", args[0], err)
		}
		defer func() {
			for _, p := range ter.Packs {
				_ = p.Close()
			}
		}()
		pr.Terrain, terrainNote = ter, desc
	}
	groups := map[string][]appliance.Observation{}
	var names []string
	for i, r := range rows {
		op := r.Operator
		if op == "" {
			op = "all"
		}
		if _, ok := groups[op]; !ok {
			names = append(names, op)
		}
		groups[op] = append(groups[op], appliance.Observation{ID: fmt.Sprintf("row%d", i+1), TxLat: r.TxLat, TxLon: r.TxLon, TxHeightM: *txHeight,
			TxPowerDBm: *txPower, TxGainDBi: *txGain, RxLat: r.RxLat, RxLon: r.RxLon, RxHeightM: *rxHeight, RxGainDBi: *rxGain,
			CableLossDB: *cable, FreqHz: r.FreqHz, ObservedDBm: r.ObservedDBm})
	}
	fmt.Fprintf(stderr, "terrain: %s\n", terrainNote)
	ids := calibration.ReportEngines()
	p := calibration.DefaultParams()
	if args[0] == "eval" {
		var all []appliance.Observation
		for _, n := range names {
			all = append(all, groups[n]...)
		}
		return calibrateEval(ctx, pr, all, ids, p, stdout, stderr)
	}
	for _, name := range names {
		obs := groups[name]
		preds, _, err := pr.Predict(ctx, obs, ids, runtime.GOMAXPROCS(0))
		if err != nil {
			return fmt.Errorf("calibrate cv: %w", err)
		}
		best, bestLine, bestGlobal := -1, "", math.Inf(1)
		for k, id := range ids {
			rs, err := calibration.ResidualsOf(obs, preds, k)
			if err != nil {
				return err
			}
			fit, err := calibration.Fit(id, rs, p)
			if err != nil {
				fmt.Fprintf(stderr, "operator=%s engine=%s n=%d: %v\n", name, id, len(rs), err)
				continue
			}
			worst, worstG := math.Inf(-1), math.Inf(-1)
			for f := range fit.FoldAfterDB {
				worst = math.Max(worst, fit.FoldAfterDB[f]-fit.FoldBeforeDB[f])
				worstG = math.Max(worstG, fit.FoldAfterDB[f]-fit.FoldGlobalDB[f])
			}
			c := fit.Calibration
			line := fmt.Sprintf("operator=%s engine=%s cv_rmse_before_db=%.2f cv_rmse_after_db=%.2f n=%d n_validated=%d cv_rmse_global_offset_db=%.2f worst_fold_change_db=%.2f worst_fold_change_vs_global_offset_db=%.2f applied=%t method=%s skipped=%d folds_before_db=%s folds_global_offset_db=%s folds_after_db=%s",
				name, id, c.CVRMSEBeforeDB, c.CVRMSEAfterDB, c.N, c.NValidated, fit.GlobalOffsetDB, worst, worstG, c.Applied, c.Method, len(obs)-c.N,
				joinDB(fit.FoldBeforeDB), joinDB(fit.FoldGlobalDB), joinDB(fit.FoldAfterDB))
			fmt.Fprintln(stderr, line)
			fmt.Fprintf(stderr, "  cells=%d applied_cells=%d%s\n", len(c.Cells), appliedCells(c), noteOf(c))
			if id != appliance.EngineAuto && fit.GlobalOffsetDB < bestGlobal {
				best, bestLine, bestGlobal = k, line, fit.GlobalOffsetDB
			}
		}
		if best < 0 {
			return fmt.Errorf("calibrate cv: operator %s: no engine could be calibrated: %w", name, appliance.ErrInvalid)
		}
		fmt.Fprintln(stdout, bestLine)
	}
	return nil
}

// calibrateEval runs linkplan calibrate eval on obs.
func calibrateEval(ctx context.Context, pr *calibration.Predictor, obs []appliance.Observation, ids []appliance.EngineID, p calibration.Params, stdout, stderr io.Writer) error {
	preds, _, err := pr.Predict(ctx, obs, ids, runtime.GOMAXPROCS(0))
	if err != nil {
		return fmt.Errorf("calibrate eval: %w", err)
	}
	var best *calibration.Evaluation
	var bestID appliance.EngineID
	for k, id := range ids {
		if id == appliance.EngineAuto {
			continue // the same numbers as the engine it picks
		}
		rs, err := calibration.ResidualsOf(obs, preds, k)
		if err != nil {
			return err
		}
		half := calibration.Halves(rs, p.Seed)
		var train, test []calibration.Residual
		for i := range rs {
			if half[i] == 0 {
				train = append(train, rs[i])
			} else {
				test = append(test, rs[i])
			}
		}
		ev, err := calibration.Evaluate(id, train, test, p)
		if err != nil {
			fmt.Fprintf(stderr, "engine=%s: %v\n", id, err)
			continue
		}
		c := ev.Fit.Calibration
		fmt.Fprintf(stderr, "engine=%s train_n=%d train_cv_rmse_before_db=%.2f train_cv_rmse_after_db=%.2f applied=%t method=%s\n",
			id, c.N, c.CVRMSEBeforeDB, c.CVRMSEAfterDB, c.Applied, c.Method)
		if best == nil || c.CVRMSEAfterDB < best.Fit.Calibration.CVRMSEAfterDB {
			best, bestID = ev, id
		}
	}
	if best == nil {
		return fmt.Errorf("calibrate eval: no engine could be calibrated on the training half: %w", appliance.ErrInvalid)
	}
	fmt.Fprintf(stderr, "engine=%s (least cross-validated RMSE on the training half) rmse_global_offset_db=%.2f rmse_oracle_offset_db=%.2f uncalibrated_rows=%d band_offset_rows=%d outside_area_rows=%d skipped=%d\n",
		bestID, best.GlobalOffsetDB, best.OracleDB, best.Uncalibrated, best.BandOnly, best.Outside, len(obs)-best.N-best.Fit.Calibration.N)
	fmt.Fprintf(stderr, "rmse_after_by_layer_db: band=%.2f outside_area=%.2f inside_area=%.2f\n", best.ByLayerDB["band"], best.ByLayerDB["outside"], best.ByLayerDB["inside"])
	fmt.Fprintf(stdout, "n=%d rmse_before_db=%.2f rmse_after_db=%.2f\n", best.N, best.BeforeDB, best.AfterDB)
	return nil
}

func noteOf(c appliance.EngineCalibration) string {
	if c.Note == "" {
		return ""
	}
	return " note=" + strconv.Quote(c.Note)
}

func joinDB(xs []float64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprintf("%.2f", x)
	}
	return strings.Join(s, ",")
}

func appliedCells(c appliance.EngineCalibration) int {
	return len(slices.DeleteFunc(slices.Clone(c.Cells), func(c appliance.CellCalibration) bool { return !c.Applied }))
}
