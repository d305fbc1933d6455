// Command bench-splat compares linkplan's coverage rasters with SPLAT!'s
// alphanumeric (-ano) output and prints the figures of the side-by-side
// benchmark of issue 9. It is driven by build/bench-splat/run.sh; see
// build/bench-splat/README.md.
//
//	go run ./build/bench-splat compare -work DIR -maps rio30,rio50 -eirp-dbm 60
//	go run ./build/bench-splat tiles -lat -22.9516 -lon -43.2372 -radius-km 50
//
// compare reads, for every map M, DIR/M/splat.ano (SPLAT!'s path-loss
// output), DIR/M/splat.time, DIR/M/ours.tif (our Float32 dBm GeoTIFF),
// DIR/M/ours.time and, when present, DIR/M/ours-1core.tif and
// DIR/M/ours-1core.time. A .time file holds "wall user sys" in seconds
// (bash's TIMEFORMAT='%R %U %S'). It prints one line per map
//
//	map=M splat_s=S ours_s=O ratio=S/O median_abs_delta_db=X p95_abs_delta_db=Y
//
// and a line map=M-1core ... for the single-threaded run, with the details
// (pixel counts, CPU seconds) on standard error. It exits 1 when a map is
// missing, or when our raster holds a value for less than 90 % of the
// pixels SPLAT! does not flag (no matched pixel included).
//
// tiles prints the 1°×1° SRTM tile names (S23W044, ...) that the circle of
// the given radius around a point touches, one per line.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"linkplan/terrain-packs/geotiff"
)

// anoPoint is one data line of a SPLAT! alphanumeric output file.
type anoPoint struct {
	Lat, Lon     float64 // degrees north, degrees east (SPLAT! writes west positive; converted)
	AzimuthDeg   float64 // from the transmitter, true north
	ElevationDeg float64 // to the receiver, or to the first obstruction when Obstructed
	Value        float64 // path loss dB (no ERP), dBuV/m (ERP) or dBm (-dbm)
	Obstructed   bool    // the line ends with '*': SPLAT! found the line of sight blocked
}

// parseANO reads a SPLAT! alphanumeric output file: two header lines
// "max_west, min_west" and "max_north, min_north" (integers, each followed
// by a ';' comment), then one line per computed pixel
//
//	lat, lon_west, azimuth, elevation, value[ *]
//
// Comments start with ';'. Longitudes are converted to degrees east.
func parseANO(r io.Reader) ([]anoPoint, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	var pts []anoPoint
	header := 0
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if i := strings.IndexByte(line, ';'); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		flagged := false
		if strings.HasSuffix(line, "*") {
			flagged = true
			line = strings.TrimSpace(strings.TrimSuffix(line, "*"))
		}
		f := strings.Split(line, ",")
		if header < 2 {
			if len(f) != 2 || flagged {
				return nil, fmt.Errorf("ano line %d: want the header %q, got %q", n, []string{"max_west, min_west", "max_north, min_north"}[header], sc.Text())
			}
			header++
			continue
		}
		if len(f) != 5 {
			return nil, fmt.Errorf("ano line %d: want 5 comma-separated fields, got %d in %q", n, len(f), sc.Text())
		}
		var v [5]float64
		for i, s := range f {
			x, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil {
				return nil, fmt.Errorf("ano line %d field %d: %w", n, i+1, err)
			}
			v[i] = x
		}
		lon := -v[1] // degrees west (0..360) to degrees east
		if lon < -180 {
			lon += 360
		}
		pts = append(pts, anoPoint{Lat: v[0], Lon: lon, AzimuthDeg: v[2], ElevationDeg: v[3], Value: v[4], Obstructed: flagged})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if header < 2 {
		return nil, errors.New("ano: no header")
	}
	return pts, nil
}

// raster is a north-up single-band raster in EPSG:4326.
type raster struct {
	w, h           int
	x0, y0, dx, dy float64 // outer corner of the top-left pixel, pixel size (dy < 0)
	v              []float64
	nodata         func(float64) bool
}

func readRaster(path string) (*raster, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	img, err := geotiff.Open(f, st.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if !img.HasTransform {
		return nil, fmt.Errorf("%s: no georeferencing", path)
	}
	if img.EPSG != 0 && img.EPSG != 4326 {
		return nil, fmt.Errorf("%s: EPSG:%d, want EPSG:4326", path, img.EPSG)
	}
	v, err := img.ReadWindow(0, 0, img.Width, img.Height, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	t := img.Transform
	return &raster{w: img.Width, h: img.Height, x0: t.OriginX, y0: t.OriginY, dx: t.PixelWidth, dy: t.PixelHeight, v: v,
		nodata: func(x float64) bool { return math.IsNaN(x) || img.IsNoData(x) }}, nil
}

// at returns the value of the pixel holding (lat, lon), the nearest pixel
// centre, and false outside the raster or on NoData.
func (r *raster) at(lat, lon float64) (float64, bool) {
	c := math.Floor((lon - r.x0) / r.dx)
	rw := math.Floor((lat - r.y0) / r.dy)
	if c < 0 || rw < 0 || c >= float64(r.w) || rw >= float64(r.h) {
		return 0, false
	}
	x := r.v[int(rw)*r.w+int(c)]
	if r.nodata(x) {
		return 0, false
	}
	return x, true
}

// stats are the agreement figures of one raster against SPLAT!.
type stats struct {
	splatPoints, unflagged, matched, matchedAll int
	median, p95, medianAll, p95All, meanSigned  float64
}

// quantile returns the q-quantile of sorted xs (linear interpolation).
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	p := q * float64(len(xs)-1)
	i := int(p)
	if i+1 >= len(xs) {
		return xs[len(xs)-1]
	}
	return xs[i] + (p-float64(i))*(xs[i+1]-xs[i])
}

// agree compares SPLAT!'s path losses with ours (loss = eirp − dBm) on the
// pixels SPLAT! does not flag and both have data; the *All figures use the
// flagged (obstructed) pixels too.
func agree(pts []anoPoint, r *raster, eirpDBm float64) stats {
	s := stats{splatPoints: len(pts)}
	var d, dAll []float64
	sum := 0.0
	for _, p := range pts {
		if !p.Obstructed {
			s.unflagged++
		}
		dbm, ok := r.at(p.Lat, p.Lon)
		if !ok {
			continue
		}
		delta := (eirpDBm - dbm) - p.Value
		dAll = append(dAll, math.Abs(delta))
		if !p.Obstructed {
			d = append(d, math.Abs(delta))
			sum += delta
		}
	}
	sort.Float64s(d)
	sort.Float64s(dAll)
	s.matched, s.matchedAll = len(d), len(dAll)
	s.median, s.p95 = quantile(d, 0.5), quantile(d, 0.95)
	s.medianAll, s.p95All = quantile(dAll, 0.5), quantile(dAll, 0.95)
	if len(d) > 0 {
		s.meanSigned = sum / float64(len(d))
	}
	return s
}

// times reads a "wall user sys" file.
func readTimes(path string) (wall, cpu float64, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, err
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return 0, 0, fmt.Errorf("%s: want \"wall user sys\", got %q", path, strings.TrimSpace(string(b)))
	}
	var v [3]float64
	for i := range v {
		if v[i], err = strconv.ParseFloat(f[len(f)-3+i], 64); err != nil {
			return 0, 0, fmt.Errorf("%s: %w", path, err)
		}
	}
	return v[0], v[1] + v[2], nil
}

// minMatchedShare is the least share of SPLAT!'s unflagged pixels that our
// raster must hold a value for: below it the map counts as missing.
const minMatchedShare = 0.9

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

func compareMap(dir, name string, eirpDBm float64, stdout, stderr io.Writer) error {
	md := filepath.Join(dir, name)
	f, err := os.Open(filepath.Join(md, "splat.ano"))
	if err != nil {
		return fmt.Errorf("map %s: SPLAT! output missing: %w", name, err)
	}
	pts, err := parseANO(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("map %s: %w", name, err)
	}
	if len(pts) == 0 {
		return fmt.Errorf("map %s: SPLAT! output has no pixel", name)
	}
	splatS, splatCPU, err := readTimes(filepath.Join(md, "splat.time"))
	if err != nil {
		return fmt.Errorf("map %s: %w", name, err)
	}
	runs := []struct{ suffix, tif, time string }{
		{"", "ours.tif", "ours.time"},
		{"-1core", "ours-1core.tif", "ours-1core.time"},
	}
	var first *raster
	for i, run := range runs {
		tif := filepath.Join(md, run.tif)
		if i > 0 && !fileExists(tif) {
			fmt.Fprintf(stderr, "map=%s%s skipped: %s absent\n", name, run.suffix, tif)
			continue
		}
		r, err := readRaster(tif)
		if err != nil {
			return fmt.Errorf("map %s%s: our raster: %w", name, run.suffix, err)
		}
		oursS, oursCPU, err := readTimes(filepath.Join(md, run.time))
		if err != nil {
			return fmt.Errorf("map %s%s: %w", name, run.suffix, err)
		}
		s := agree(pts, r, eirpDBm)
		if s.matched == 0 {
			return fmt.Errorf("map %s%s: no matched pixel (SPLAT! %d points, %d unflagged; our raster %d×%d)", name, run.suffix, s.splatPoints, s.unflagged, r.w, r.h)
		}
		share := float64(s.matched) / float64(max(s.unflagged, 1))
		if share < minMatchedShare {
			return fmt.Errorf("map %s%s: our raster covers only %d of SPLAT!'s %d unflagged pixels (%.1f%% < %.0f%%): wrong radius, grid or terrain?",
				name, run.suffix, s.matched, s.unflagged, 100*share, 100*minMatchedShare)
		}
		if share < 0.99 {
			fmt.Fprintf(stderr, "  WARNING %s%s: only %.1f%% of SPLAT!'s unflagged pixels have a value in our raster\n", name, run.suffix, 100*share)
		}
		fmt.Fprintf(stdout, "map=%s%s splat_s=%.3f ours_s=%.3f ratio=%.2f median_abs_delta_db=%.2f p95_abs_delta_db=%.2f\n",
			name, run.suffix, splatS, oursS, splatS/oursS, s.median, s.p95)
		fmt.Fprintf(stderr, "  %s%s: splat_cpu_s=%.3f ours_cpu_s=%.3f cpu_ratio=%.2f splat_points=%d unflagged=%d matched=%d (%.1f%%) mean_signed_delta_db=%+.2f (ours-splat) all_points: matched=%d median=%.2f p95=%.2f; our grid %d×%d px of %.6g°×%.6g°\n",
			name, run.suffix, splatCPU, oursCPU, splatCPU/oursCPU, s.splatPoints, s.unflagged, s.matched, 100*share,
			s.meanSigned, s.matchedAll, s.medianAll, s.p95All, r.w, r.h, r.dx, -r.dy)
		if first == nil {
			first = r
		} else if !sameRaster(first, r) {
			fmt.Fprintf(stderr, "  WARNING %s: the single-threaded raster differs from the multi-threaded one (the issue asks for determinism whatever the core count)\n", name)
		}
	}
	return nil
}

func sameRaster(a, b *raster) bool {
	if a.w != b.w || a.h != b.h || a.x0 != b.x0 || a.y0 != b.y0 || a.dx != b.dx || a.dy != b.dy {
		return false
	}
	for i := range a.v {
		if a.v[i] != b.v[i] && !(a.nodata(a.v[i]) && b.nodata(b.v[i])) {
			return false
		}
	}
	return true
}

// tileName returns the SRTM name of the 1° tile whose south-west corner is
// (lat, lon), integers.
func tileName(lat, lon int) string {
	ns, ew := 'N', 'E'
	if lat < 0 {
		ns, lat = 'S', -lat
	}
	if lon < 0 {
		ew, lon = 'W', -lon
	}
	return fmt.Sprintf("%c%02d%c%03d", ns, lat, ew, lon)
}

// tilesTouched returns the tiles that the circle of radiusKm around
// (lat, lon) reaches (its bounding box on a sphere of 6371 km, the same
// box a map of that radius covers), sorted.
func tilesTouched(lat, lon, radiusKm float64) []string {
	const kmPerDeg = math.Pi * 6371.0 / 180
	dLat := radiusKm / kmPerDeg
	dLon := radiusKm / (kmPerDeg * math.Cos((math.Abs(lat)+dLat)*math.Pi/180))
	var out []string
	for la := int(math.Floor(lat - dLat)); la <= int(math.Floor(lat+dLat)); la++ {
		for lo := int(math.Floor(lon - dLon)); lo <= int(math.Floor(lon+dLon)); lo++ {
			out = append(out, tileName(la, lo))
		}
	}
	sort.Strings(out)
	return out
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: bench-splat compare -work DIR -maps M,... -eirp-dbm X | tiles -lat -lon -radius-km")
		return 2
	}
	switch args[0] {
	case "tiles":
		fs := flag.NewFlagSet("tiles", flag.ContinueOnError)
		fs.SetOutput(stderr)
		lat := fs.Float64("lat", math.NaN(), "centre latitude, degrees")
		lon := fs.Float64("lon", math.NaN(), "centre longitude, degrees east")
		r := fs.Float64("radius-km", 0, "radius, km")
		if err := fs.Parse(args[1:]); err != nil || math.IsNaN(*lat) || math.IsNaN(*lon) || *r <= 0 {
			fmt.Fprintln(stderr, "tiles: -lat, -lon and -radius-km are required")
			return 2
		}
		for _, t := range tilesTouched(*lat, *lon, *r) {
			fmt.Fprintln(stdout, t)
		}
		return 0
	case "compare":
		fs := flag.NewFlagSet("compare", flag.ContinueOnError)
		fs.SetOutput(stderr)
		work := fs.String("work", "", "work directory holding one folder per map")
		maps := fs.String("maps", "", "comma-separated map names")
		eirp := fs.Float64("eirp-dbm", math.NaN(), "EIRP our rasters were computed with, dBm (loss = EIRP − dBm)")
		if err := fs.Parse(args[1:]); err != nil || *work == "" || *maps == "" || math.IsNaN(*eirp) {
			fmt.Fprintln(stderr, "compare: -work, -maps and -eirp-dbm are required")
			return 2
		}
		rc := 0
		for _, m := range strings.Split(*maps, ",") {
			if err := compareMap(*work, strings.TrimSpace(m), *eirp, stdout, stderr); err != nil {
				fmt.Fprintln(stderr, "bench-splat:", err)
				rc = 1
			}
		}
		return rc
	}
	fmt.Fprintf(stderr, "bench-splat: unknown command %q\n", args[0])
	return 2
}

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }
