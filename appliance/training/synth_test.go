package training_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/training"
	"linkplan/engines/ml/h3"
)

// TestSynthesizeDeterministicRoundTrip: the same seed gives the same rows,
// another seed others; the CSV reads back bit for bit; every row is
// labelled synthetic and lies on the Rio sample.
func TestSynthesizeDeterministicRoundTrip(t *testing.T) {
	ctx := context.Background()
	a := synth(t, 300)
	b, err := training.Synthesize(ctx, hybrid(t), training.RioSampleAreas, 300, 7)
	if err != nil {
		t.Fatal(err)
	}
	c, err := training.Synthesize(ctx, hybrid(t), training.RioSampleAreas, 300, 8)
	if err != nil {
		t.Fatal(err)
	}
	var wa, wb, wc bytes.Buffer
	for _, p := range []struct {
		w    *bytes.Buffer
		rows []appliance.Observation
	}{{&wa, a}, {&wb, b}, {&wc, c}} {
		if err := training.WriteSynthCSV(p.w, p.rows); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(wa.Bytes(), wb.Bytes()) || bytes.Equal(wa.Bytes(), wc.Bytes()) {
		t.Fatal("seed 7 twice must give the same CSV, seed 8 another")
	}
	back, err := training.ReadSynthCSV(bytes.NewReader(wa.Bytes()))
	if err != nil || len(back) != len(a) {
		t.Fatalf("read back %d rows, %v", len(back), err)
	}
	for i := range a {
		if back[i] != a[i] {
			t.Fatalf("row %d: %+v, want %+v", i, back[i], a[i])
		}
		o := a[i]
		if o.Source != "synthetic" || o.Consent != appliance.ConsentConsented || o.ObservedDBm < -150 || o.ObservedDBm > 30 {
			t.Fatalf("row %d %+v", i, o)
		}
		in := false
		for _, ar := range training.RioSampleAreas {
			in = in || (o.RxLat >= ar.MinLat && o.RxLat <= ar.MaxLat && o.RxLon >= ar.MinLon && o.RxLon <= ar.MaxLon)
		}
		if !in {
			t.Fatalf("row %d receiver outside the Rio sample: %+v", i, o)
		}
	}
}

// TestSynthShadowing: observed − baseline has the documented spread
// (σ = 8 dB) and no bias.
func TestSynthShadowing(t *testing.T) {
	ctx := context.Background()
	base := hybrid(t)
	rows := synth(t, 1500)
	var s, ss float64
	for i := range rows {
		b, err := base(ctx, &rows[i])
		if err != nil {
			t.Fatal(err)
		}
		d := rows[i].ObservedDBm - b
		s += d
		ss += d * d
	}
	n := float64(len(rows))
	mean, sd := s/n, math.Sqrt(ss/n-(s/n)*(s/n))
	if math.Abs(mean) > 1 || math.Abs(sd-training.SynthShadowingDB) > 0.6 {
		t.Fatalf("shadowing mean %.2f dB, sd %.2f dB; want about 0 and 8", mean, sd)
	}
}

func TestReadSynthCSVErrors(t *testing.T) {
	head := strings.Join(training.SynthColumns, ",") + "\n"
	row := "-22.9,-43.2,30,43,15,-22.91,-43.21,1.5,0,0,1800000000,-80,synthetic,1750000000\n"
	for _, tc := range []struct{ name, csv, want string }{
		{"empty", "", "header"},
		{"wrong header", strings.Replace(head, "tx_lat", "lat", 1) + row, `column 1 is "lat"`},
		{"measurement relabelled", head + strings.Replace(row, "synthetic", "drivetest_tems", 1), `source "drivetest_tems"`},
		{"not a number", head + strings.Replace(row, "-80", "strong", 1), `observed_dbm "strong"`},
		{"NaN", head + strings.Replace(row, "-80", "NaN", 1), "not a finite number"},
		{"short row", head + "1,2,3\n", "wrong number of fields"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := training.ReadSynthCSV(strings.NewReader(tc.csv))
			if !errors.Is(err, appliance.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v; want ErrInvalid naming %q", err, tc.want)
			}
		})
	}
}

func FuzzReadSynthCSV(f *testing.F) {
	head := strings.Join(training.SynthColumns, ",") + "\n"
	f.Add(head + "-22.9,-43.2,30,43,15,-22.91,-43.21,1.5,0,0,1800000000,-80,synthetic,1750000000\n")
	f.Add(head + "1e308,-0,0x1p-2,Inf,1,1,1,1,1,1,1,1,synthetic,1\n")
	f.Add(head + "\"a\nb\",1,1,1,1,1,1,1,1,1,1,1,synthetic,1\n")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		rows, err := training.ReadSynthCSV(strings.NewReader(s))
		if err != nil {
			if !errors.Is(err, appliance.ErrInvalid) {
				t.Fatalf("error %v does not match ErrInvalid", err)
			}
			return
		}
		var buf bytes.Buffer
		if err := training.WriteSynthCSV(&buf, rows); err != nil {
			t.Fatal(err)
		}
		again, err := training.ReadSynthCSV(&buf)
		if err != nil || len(again) != len(rows) {
			t.Fatalf("round trip: %d rows, %v", len(again), err)
		}
		for i := range rows {
			if rows[i].Source != "synthetic" || again[i] != rows[i] {
				t.Fatalf("row %d changed in the round trip", i)
			}
		}
	})
}

// benchCorpus is a corpus of n rows with precomputed synthetic feature
// vectors (17 features drawn at random, a target that depends on them
// non-linearly plus 8 dB noise), receivers spread at random over Brazil-sized
// area (about one H3 cell a row): the training cost without the featurisation.
func benchCorpus(tb testing.TB, n int, seed uint64) *training.Corpus {
	tb.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	schema, err := training.Features{}.Schema(1)
	if err != nil {
		tb.Fatal(err)
	}
	c := &training.Corpus{Schema: schema, Stored: n, Consented: n}
	bands := []int{700, 850, 900, 1800, 2100, 2600, 3500}
	morph := []string{"open_or_flat", "rural_rolling", "rural_mountainous"}
	regions := []string{"N", "NE", "CO", "SE", "S"}
	for i := 0; i < n; i++ {
		x := make([]float64, len(schema.Names))
		for j := range x {
			x[j] = rng.NormFloat64()
		}
		y := -80 + 12*x[0] - 4*x[1] + 3*x[9]*x[0] + 2*math.Sin(x[7]) + 8*rng.NormFloat64()
		lat, lon := -30+15*rng.Float64(), -55+15*rng.Float64()
		cell, err := h3.LatLngToCell(lat, lon, 8)
		if err != nil {
			tb.Fatal(err)
		}
		c.X = append(c.X, x)
		c.Y = append(c.Y, y)
		c.Baseline = append(c.Baseline, -80+12*x[0])
		c.Cells = append(c.Cells, cell/1) // one row per cell: n cells
		c.Regions = append(c.Regions, regions[i%len(regions)])
		c.Bands = append(c.Bands, bands[i%len(bands)])
		c.Morph = append(c.Morph, morph[i%len(morph)])
		c.Sources = append(c.Sources, "synthetic")
		c.Obs = append(c.Obs, appliance.Observation{ID: fmt.Sprintf("b_%06d", i)})
	}
	return c
}

// BenchmarkRetrain45k is the full candidate training of a retrain on
// 45,000 rows with 5-fold CV: global ridge, seven band ridges, the
// residual GBM (5 grouped folds + the final fit) and the conformal bands.
// Features are precomputed (synthetic vectors, benchCorpus): the
// featurisation and the physics baseline, which need the terrain, are
// not in the figure.
func BenchmarkRetrain45k(b *testing.B) {
	c := benchCorpus(b, 45_000, 42)
	now := time.Unix(1_800_000_000, 0)
	b.ResetTimer()
	for range b.N {
		cand, err := learners().TrainCandidate(c, now, 0)
		if err != nil {
			b.Fatal(err)
		}
		if len(cand.Artifacts) != 9 {
			b.Fatalf("%d artifacts", len(cand.Artifacts))
		}
	}

}

// BenchmarkRetrain45kFeaturised is the same retrain from the stored rows:
// the featurisation (SPEC §2.5 vectors on the embedded Rio terrain) and
// the hybrid baseline of 45,000 synthetic rows, then TrainCandidate. The
// rows are generated before the timer.
func BenchmarkRetrain45kFeaturised(b *testing.B) {
	e := newEnv(b)
	rows := synth(b, 45_000)
	b.ResetTimer()
	for range b.N {
		c, err := training.BuildCorpus(context.Background(), e.feat, e.baseline, regionOf, rows, len(rows), false, 0)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := learners().TrainCandidate(c, e.now, 0); err != nil {
			b.Fatal(err)
		}
	}
}
