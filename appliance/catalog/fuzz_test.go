package catalog_test

import (
	"bytes"
	"math"
	"strings"
	"sync"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/catalog"
)

// fuzzSeeds adds the real sample, its first lines and a few damaged variants.
func fuzzSeeds(f *testing.F, file string) {
	b := readSample(f, file)
	lines := bytes.SplitAfter(b, []byte("\n"))
	if len(lines) > 40 {
		// Large seeds make the fuzzer spend its time minimising; 40 real
		// lines exercise the same paths.
		b = bytes.Join(lines[:40], nil)
	}
	f.Add(b)
	for _, n := range []int{1, 2, 4} {
		if n <= len(lines) {
			f.Add(bytes.Join(lines[:n], nil))
		}
	}
	f.Add(bytes.ReplaceAll(b, []byte("."), []byte(",")))
	f.Add(bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n")))
	f.Add(b[:len(b)/3])
	f.Add([]byte{})
}

var fuzzPlacer = sync.OnceValue(func() *catalog.Placer {
	g, err := catalog.EmbeddedGazetteer()
	if err != nil {
		panic(err)
	}
	return catalog.NewPlacer(g)
})

// checkResult asserts the invariants every parser keeps on any input.
func checkResult(t *testing.T, in []byte, res *catalog.Result, err error) {
	if err != nil {
		if res != nil && res.Rows != 0 {
			t.Fatalf("error %v after %d rows", err, res.Rows)
		}
		return
	}
	lines := bytes.Count(in, []byte("\n")) + 1
	accounted := len(res.Rejects)
	for _, s := range res.Stations {
		if len(s.Sectors) == 0 {
			accounted++
		}
		accounted += len(s.Sectors)
	}
	if accounted != res.Rows {
		t.Fatalf("%d rows read, %d accounted for (stations/sectors + rejects)", res.Rows, accounted)
	}
	for _, r := range append(append([]catalog.Reject(nil), res.Rejects...), res.Warnings...) {
		if r.Line < 1 || r.Line > lines || r.Reason == "" {
			t.Fatalf("reject %+v outside 1…%d or without reason", r, lines)
		}
	}
	ids := map[string]bool{}
	for _, s := range res.Stations {
		tw := s.Tower
		if ids[tw.ID] || appliance.SourceOf(tw.ID) == "" || tw.Synthetic || s.Line < 1 || s.Line > lines {
			t.Fatalf("bad station %+v line %d", tw, s.Line)
		}
		ids[tw.ID] = true
		if !(math.IsNaN(tw.Lat) && math.IsNaN(tw.Lon)) && !catalog.InBrazil(tw.Lat, tw.Lon) {
			t.Fatalf("%s at %v,%v", tw.ID, tw.Lat, tw.Lon)
		}
		if tw.HasERP() && (math.IsInf(tw.ERPDBm, 0) || tw.ERPDBm > 200) {
			t.Fatalf("%s ERP %v dBm", tw.ID, tw.ERPDBm)
		}
	}
	n := len(res.Stations)
	stats := fuzzPlacer().Place(res)
	if len(res.Stations) != n-stats.Rejected {
		t.Fatalf("Place dropped %d stations but counted %d rejects", n-len(res.Stations), stats.Rejected)
	}
	for _, s := range res.Stations {
		if !catalog.InBrazil(s.Tower.Lat, s.Tower.Lon) {
			t.Fatalf("placed %s at %v,%v", s.Tower.ID, s.Tower.Lat, s.Tower.Lon)
		}
	}
}

func FuzzParseAnatelERBs(f *testing.F) {
	fuzzSeeds(f, "anatel_erbs_sample.csv")
	f.Fuzz(func(t *testing.T, in []byte) {
		res, err := catalog.ParseAnatelERBs(bytes.NewReader(in))
		checkResult(t, in, res, err)
	})
}

func FuzzParseAnatelLicenciadas(f *testing.F) {
	fuzzSeeds(f, "anatel_estacoes_licenciadas_smp_sample.csv")
	f.Fuzz(func(t *testing.T, in []byte) {
		res, err := catalog.ParseAnatelLicenciadas(bytes.NewReader(in))
		checkResult(t, in, res, err)
	})
}

func FuzzParseMosaicoLicenciamento(f *testing.F) {
	fuzzSeeds(f, "anatel_mosaico_licenciamento_sample.tsv")
	f.Fuzz(func(t *testing.T, in []byte) {
		res, err := catalog.ParseMosaicoLicenciamento(bytes.NewReader(in))
		checkResult(t, in, res, err)
	})
}

func FuzzParseMosaicoSMP(f *testing.F) {
	fuzzSeeds(f, "anatel_mosaico_smp_sample.csv")
	f.Fuzz(func(t *testing.T, in []byte) {
		res, err := catalog.ParseMosaicoSMP(bytes.NewReader(in))
		checkResult(t, in, res, err)
	})
}

func FuzzParseMosaicoJSON(f *testing.F) {
	fuzzSeeds(f, "anatel_mosaico_smp_full_records.json")
	f.Add([]byte(`{"NumEstacao":"1","NomeEntidade":"TIM"} {"NumEstacao":"2"}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		res, err := catalog.ParseMosaicoJSON(bytes.NewReader(in))
		checkResult(t, in, res, err)
	})
}

func FuzzParseOpenCelliD(f *testing.F) {
	fuzzSeeds(f, "opencellid_724_sample.csv")
	f.Fuzz(func(t *testing.T, in []byte) {
		res, err := catalog.ParseOpenCelliD(bytes.NewReader(in))
		checkResult(t, in, res, err)
	})
}

func FuzzDetectFormat(f *testing.F) {
	for _, s := range samples {
		b := readSample(f, s.file)
		f.Add(b[:min(len(b), catalog.DetectFormatBytes)])
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		got, err := catalog.DetectFormat(in)
		if (err == nil) == (got == catalog.FormatUnknown) {
			t.Fatalf("DetectFormat = %v, %v", got, err)
		}
		if err == nil {
			// Whatever was detected must parse without panicking.
			res, err := catalog.Parse(got, strings.NewReader(string(in)))
			if err == nil && res.Format != got {
				t.Fatalf("parsed as %v, detected %v", res.Format, got)
			}
		}
	})
}
