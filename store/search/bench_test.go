package search_test

import (
	"bufio"
	"cmp"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/store/search"
)

// benchTowers is the tower count of the scale benchmarks (SPEC §1: about
// 140,498 towers).
const benchTowers = 140000

var placeQueries = []string{"sao paulo", "GOIANIA", "rio", "petrop", "Rio de Janeiro, RJ", "santa barbara doeste", "florianopolys", "bom jesus"}

func BenchmarkSearchPlaces(b *testing.B) {
	ix := openIndex(b, search.Options{})
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := ix.SearchPlaces(b.Context(), placeQueries[i%len(placeQueries)], 10); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkSearchPlacesByQuery times each query alone, so that a broad
// one ("rio", a two-letter prefix) is not averaged away by the narrow ones.
func BenchmarkSearchPlacesByQuery(b *testing.B) {
	ix := openIndex(b, search.Options{})
	for _, q := range append(slices.Clone(placeQueries), "sa", "s") {
		b.Run(strings.ReplaceAll(q, " ", "_"), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ix.SearchPlaces(b.Context(), q, 10); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSearchPlacesNaive is the baseline: a linear scan of the folded
// names with strings.Contains, capitals first then by name. It has no typo
// tolerance, no relevance and no UF parsing.
func BenchmarkSearchPlacesNaive(b *testing.B) {
	ps := loadPlaces(b)
	folded := make([]string, len(ps))
	for i, p := range ps {
		folded[i] = fold(p.Name)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		q := fold(placeQueries[i%len(placeQueries)])
		var hits []int
		for j, f := range folded {
			if strings.Contains(f, q) {
				hits = append(hits, j)
			}
		}
		slices.SortFunc(hits, func(x, y int) int {
			if ps[x].Capital != ps[y].Capital {
				if ps[x].Capital {
					return -1
				}
				return 1
			}
			return cmp.Or(cmp.Compare(folded[x], folded[y]), cmp.Compare(ps[x].IBGECode, ps[y].IBGECode))
		})
		_ = hits[:min(10, len(hits))]
		i++
	}
}

var towerQueries = []struct{ name, q string }{
	{"operator_municipality", "vivo sao paulo"},
	{"station_number", "1000370000"},
	{"type_ahead", "petrop"},
	{"address", "avenida getulio vargas"},
	{"typo", "florianopolys claro"},
}

// bigIndex returns an opened index over benchTowers synthetic towers,
// persisted under a temporary directory.
func bigIndex(b *testing.B) (*search.Index, []*appliance.Tower) {
	b.Helper()
	towers, addr := synthTowers(loadPlaces(b), benchTowers)
	ix := openIndex(b, search.Options{Dir: b.TempDir(), Address: addressOf(addr)})
	replace(b, ix, "bench", towers)
	return ix, towers
}

func BenchmarkSearchTowers140k(b *testing.B) {
	ix, _ := bigIndex(b)
	for _, tq := range towerQueries {
		b.Run(tq.name, func(b *testing.B) {
			b.ReportAllocs()
			var total int
			for b.Loop() {
				h, err := ix.SearchTowers(b.Context(), tq.q, search.Scope{All: true}, 20, 0)
				if err != nil {
					b.Fatal(err)
				}
				total = h.Total
			}
			b.ReportMetric(float64(total), "hits")
		})
	}
	b.Run("deep_page_offset_5000", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := ix.SearchTowers(b.Context(), "vivo", search.Scope{All: true}, 20, 5000); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkSearchTowers140kNaive is the baseline: every query word must be a
// substring of the folded operator, municipality, address and station text.
func BenchmarkSearchTowers140kNaive(b *testing.B) {
	towers, addr := synthTowers(loadPlaces(b), benchTowers)
	text := make([]string, len(towers))
	for i, t := range towers {
		text[i] = fold(t.Operator + " " + t.Municipality + " " + addr[t.ID] + " " + t.StationNumber + " " + t.UF)
	}
	for _, tq := range towerQueries {
		b.Run(tq.name, func(b *testing.B) {
			b.ReportAllocs()
			qw := words(tq.q)
			var total int
			for b.Loop() {
				var ids []string
				for i, s := range text {
					ok := true
					for _, w := range qw {
						if !strings.Contains(s, w) {
							ok = false
							break
						}
					}
					if ok {
						ids = append(ids, towers[i].ID)
					}
				}
				slices.Sort(ids)
				total = len(ids)
			}
			b.ReportMetric(float64(total), "hits")
		})
	}
}

// reportMem reports the heap in use and the process resident set, in MB.
func reportMem(b *testing.B) {
	b.Helper()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	b.ReportMetric(float64(m.HeapInuse)/(1<<20), "heapMB")
	if rss, hwm, ok := procRSS(); ok {
		b.ReportMetric(rss, "rssMB")
		b.ReportMetric(hwm, "peakRssMB")
	}
}

// procRSS reads VmRSS and VmHWM of this process from /proc, in MB.
func procRSS() (rss, hwm float64, ok bool) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), ":")
		fs := strings.Fields(v)
		if len(fs) == 0 {
			continue
		}
		kb, err := strconv.ParseFloat(fs[0], 64)
		if err != nil {
			continue
		}
		switch k {
		case "VmRSS":
			rss = kb / 1024
		case "VmHWM":
			hwm = kb / 1024
		}
	}
	return rss, hwm, rss > 0
}

// BenchmarkBuildTowers140k measures a full ReplaceTowers of benchTowers
// towers: persisted (scorch on disk, the production path) and in memory.
func BenchmarkBuildTowers140k(b *testing.B) {
	places := loadPlaces(b)
	towers, addr := synthTowers(places, benchTowers)
	for _, mode := range []string{"persisted", "memory"} {
		b.Run(mode, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				opts := search.Options{Address: addressOf(addr)}
				if mode == "persisted" {
					opts.Dir = b.TempDir()
				}
				ix := search.New(places, opts)
				if err := ix.Open(b.Context()); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				replace(b, ix, "bench", towers)
				b.StopTimer()
				reportMem(b)
				if err := ix.Close(); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
		})
	}
}

// BenchmarkReopenTowers140k measures start-up with a persisted index whose
// fingerprint matches: New, Open (places built in memory) and ReplaceTowers
// reusing the directory, then one query; memory is reported with the index
// open (the process also holds the 140,000 tower structs of the test).
func BenchmarkReopenTowers140k(b *testing.B) {
	places := loadPlaces(b)
	towers, addr := synthTowers(places, benchTowers)
	dir := b.TempDir()
	opts := search.Options{Dir: dir, Address: addressOf(addr)}
	first := search.New(places, opts)
	if err := first.Open(b.Context()); err != nil {
		b.Fatal(err)
	}
	replace(b, first, "bench", towers)
	if err := first.Close(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		ix := search.New(places, opts)
		if err := ix.Open(b.Context()); err != nil {
			b.Fatal(err)
		}
		replace(b, ix, "bench", towers)
		if _, err := ix.SearchTowers(b.Context(), "vivo sao paulo", search.Scope{All: true}, 10, 0); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if st := ix.TowerState(); !st.Ready || !st.Persisted {
			b.Fatalf("state = %+v", st)
		}
		reportMem(b)
		if err := ix.Close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}
