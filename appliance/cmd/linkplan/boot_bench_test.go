package main

import (
	"bufio"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"linkplan/appliance/catalog"
	"linkplan/appliance/cmd/linkplan/assemble"
)

// rssBytes reads the resident set size of this process from /proc.
func rssBytes() float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 64)
			return kb * 1024
		}
	}
	return 0
}

// BenchmarkStartup140k boots the whole appliance (store, embedded terrain,
// import and placement of a 140,000-row synthetic national file in the real
// Anatel ERBs format, snapping, R-tree, API) up to the point where it is
// ready to serve. Goals: ≤ 3 s and ≤ 400 MB resident.
func BenchmarkStartup140k(b *testing.B) {
	dir := b.TempDir()
	src := filepath.Join(dir, "erbs_national_synthetic.csv")
	f, err := os.Create(src)
	if err != nil {
		b.Fatal(err)
	}
	if err := catalog.WriteERBs(f, catalog.SyntheticNational(140000, 1), false); err != nil {
		b.Fatal(err)
	}
	f.Close()
	runtime.GC()
	log := slog.New(slog.DiscardHandler)
	var towers int
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		a, err := assemble.New(context.Background(), assemble.Config{DataDir: filepath.Join(dir, "data"+strconv.Itoa(i)), TowerFiles: []string{src}, Log: log, Version: version()})
		if err != nil {
			b.Fatal(err)
		}
		towers = a.Index.Len()
		b.ReportMetric(rssBytes()/1e6, "rss_MB")
		a.Stop()
		i++
	}
	b.ReportMetric(float64(towers), "towers")
}
