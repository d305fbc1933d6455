package p1812

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"linkplan/appliance"
)

// Brazil defaults for the refractivity inputs, used when the operator has
// not configured the ITU-R digital maps (which may not be redistributed).
// They are rounded mid-range values for the populated south-east and
// north-east coast of Brazil read off the published P.1812/P.452 world
// maps (ΔN roughly 40–60 N-units/km and N0 roughly 320–380 N-units over the
// country), not interpolated from the map files. ΔN sets the effective Earth
// radius (ΔN = 50 gives ae ≈ 9361 km, k ≈ 1.47); N0 only enters the
// troposcatter loss (−0.15 dB per N-unit).
const (
	DefaultDeltaN = 50  // N-units/km
	DefaultN0     = 350 // N-units
)

// Shape of the ITU-R P.1812 digital maps DN50.TXT and N050.TXT: 1.5° grid,
// rows from latitude +90° to −90°, columns from longitude 0° to 360°.
const (
	mapRows    = 121
	mapCols    = 241
	mapStepDeg = 1.5
)

// RefractivityMaps holds the ITU-R P.1812 digital maps of ΔN (DN50) and N0
// (N050). The zero value is not usable; see LoadRefractivityMaps.
type RefractivityMaps struct {
	dn50 []float64 // mapRows×mapCols, N-units/km
	n050 []float64 // mapRows×mapCols, N-units
}

// LoadRefractivityMaps reads DN50.TXT and N050.TXT (the ITU-R P.1812 digital
// map files, 121 rows of 241 whitespace-separated values each) from dir. The
// file names are matched exactly or in lower case. The maps are not part of
// this repository: the operator supplies them.
func LoadRefractivityMaps(dir string) (*RefractivityMaps, error) {
	dn, err := readMapFile(dir, "DN50.TXT")
	if err != nil {
		return nil, fmt.Errorf("load refractivity maps: %w", err)
	}
	n0, err := readMapFile(dir, "N050.TXT")
	if err != nil {
		return nil, fmt.Errorf("load refractivity maps: %w", err)
	}
	return &RefractivityMaps{dn50: dn, n050: n0}, nil
}

func readMapFile(dir, name string) ([]float64, error) {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if os.IsNotExist(err) {
		b, err = os.ReadFile(filepath.Join(dir, lower(name)))
	}
	if err != nil {
		return nil, err
	}
	v, err := ParseMap(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", name, err)
	}
	return v, nil
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// ParseMap reads one ITU-R 1.5° digital map (121 lines of 241
// whitespace-separated numbers, latitude +90° first, longitude 0° first)
// and returns its values row by row. Blank lines are skipped. A map of
// another shape or with a non-finite value gives an error matching
// appliance.ErrInvalid.
func ParseMap(r io.Reader) ([]float64, error) {
	out := make([]float64, 0, mapRows*mapCols)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	rows := 0
	for sc.Scan() {
		fields := bytes.Fields(sc.Bytes())
		if len(fields) == 0 {
			continue
		}
		rows++
		if rows > mapRows {
			return nil, fmt.Errorf("more than %d rows: %w", mapRows, appliance.ErrInvalid)
		}
		if len(fields) != mapCols {
			return nil, fmt.Errorf("row %d has %d values, want %d: %w", rows, len(fields), mapCols, appliance.ErrInvalid)
		}
		for _, f := range fields {
			v, err := strconv.ParseFloat(string(f), 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("row %d: bad value %q: %w", rows, f, appliance.ErrInvalid)
			}
			out = append(out, v)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if rows != mapRows {
		return nil, fmt.Errorf("%d rows, want %d: %w", rows, mapRows, appliance.ErrInvalid)
	}
	return out, nil
}

// At returns ΔN (N-units/km) and N0 (N-units) at latDeg, lonDeg (degrees,
// longitude east positive), bilinearly interpolated on the 1.5° grid.
func (m *RefractivityMaps) At(latDeg, lonDeg float64) (deltaN, n0 float64) {
	return bilinear(m.dn50, latDeg, lonDeg), bilinear(m.n050, latDeg, lonDeg)
}

func bilinear(g []float64, lat, lon float64) float64 {
	lat = math.Max(-90, math.Min(90, lat))
	lon = math.Mod(lon, 360)
	if lon < 0 {
		lon += 360
	}
	y := (90 - lat) / mapStepDeg
	x := lon / mapStepDeg
	r0 := int(math.Floor(y))
	c0 := int(math.Floor(x))
	if r0 >= mapRows-1 {
		r0 = mapRows - 2
	}
	if c0 >= mapCols-1 {
		c0 = mapCols - 2
	}
	fy := y - float64(r0)
	fx := x - float64(c0)
	at := func(r, c int) float64 { return g[r*mapCols+c] }
	top := at(r0, c0) + fx*(at(r0, c0+1)-at(r0, c0))
	bot := at(r0+1, c0) + fx*(at(r0+1, c0+1)-at(r0+1, c0))
	return top + fy*(bot-top)
}

// Refractivity returns ΔN (N-units/km) and N0 (N-units) for the path centre
// latDeg, lonDeg (degrees): from maps when it is not nil, else the Brazil
// defaults DefaultDeltaN and DefaultN0.
func Refractivity(maps *RefractivityMaps, latDeg, lonDeg float64) (deltaN, n0 float64) {
	if maps == nil {
		return DefaultDeltaN, DefaultN0
	}
	return maps.At(latDeg, lonDeg)
}

// PathCentre returns the great-circle mid-point of the path from
// (phiT, lamT) to (phiR, lamR) at half the profile length dKm (km), degrees,
// as P.1812-8 uses it (P.2001 Annex H): the point at which to read ΔN and N0.
func PathCentre(phiT, lamT, phiR, lamR, dKm float64) (latDeg, lonDeg float64) {
	return greatCirclePoint(phiT, lamT, phiR, lamR, 0.5*dKm)
}
