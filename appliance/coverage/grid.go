package coverage

import (
	"fmt"
	"math"
	"runtime"
	"sync"

	"linkplan/appliance"
)

// ArcSecondM is the length of one arc-second of a great circle on the mean
// Earth sphere, metres (π·appliance.EarthRadiusM/648000 ≈ 30.887 m).
const ArcSecondM = math.Pi * appliance.EarthRadiusM / 648000

// TileSize is the side of a full tile, pixels.
const TileSize = 256

// Raster is a map on an EPSG:4326 grid: pixel (row, col) covers longitudes
// West + col·PixelLonDeg .. West + (col+1)·PixelLonDeg and latitudes
// North − (row+1)·PixelLatDeg .. North − row·PixelLatDeg, WGS84 degrees.
type Raster struct {
	West, North float64 // north-west corner of the raster, WGS84 degrees
	PixelLonDeg float64 // pixel width, degrees of longitude (whole arc-seconds)
	PixelLatDeg float64 // pixel height, degrees of latitude (whole arc-seconds)
	Width       int     // pixels per row
	Height      int     // rows
	// DBm is the received power per pixel, dBm, row-major from the
	// north-west corner; NaN is no data.
	DBm []float32
}

// Tile is one square block of at most TileSize×TileSize pixels of a raster.
type Tile struct {
	ID       string // "r{row}c{col}", row and col of the tile counted from the north-west tile, 0-based
	Row, Col int    // tile row and column
	X0, Y0   int    // column and row of its north-west pixel in the raster
	W, H     int    // width and height, pixels (TileSize except in the last tile column and row)
	// Bounds of the tile, WGS84 degrees (outer pixel edges).
	West, South, East, North float64
}

// TileRows and TileCols return the number of tile rows and columns.
func (r *Raster) TileRows() int { return (r.Height + TileSize - 1) / TileSize }

// TileCols returns the number of tile columns.
func (r *Raster) TileCols() int { return (r.Width + TileSize - 1) / TileSize }

// TileAt returns tile (row, col), with its pixel window and bounds.
func (r *Raster) TileAt(row, col int) Tile {
	x0, y0 := col*TileSize, row*TileSize
	w, h := min(TileSize, r.Width-x0), min(TileSize, r.Height-y0)
	return Tile{ID: fmt.Sprintf("r%dc%d", row, col), Row: row, Col: col, X0: x0, Y0: y0, W: w, H: h,
		West: r.West + float64(x0)*r.PixelLonDeg, East: r.West + float64(x0+w)*r.PixelLonDeg,
		North: r.North - float64(y0)*r.PixelLatDeg, South: r.North - float64(y0+h)*r.PixelLatDeg}
}

// Tiles returns every tile in row-major order (the order of OnTile).
func (r *Raster) Tiles() []Tile {
	out := make([]Tile, 0, r.TileRows()*r.TileCols())
	for row := range r.TileRows() {
		for col := range r.TileCols() {
			out = append(out, r.TileAt(row, col))
		}
	}
	return out
}

// PixelCenter returns the centre of pixel (row, col), WGS84 degrees.
func (r *Raster) PixelCenter(row, col int) appliance.LatLon {
	return appliance.LatLon{Lat: r.North - (float64(row)+0.5)*r.PixelLatDeg, Lon: r.West + (float64(col)+0.5)*r.PixelLonDeg}
}

// grid is the integer arc-second geometry of a raster.
type grid struct {
	pxLatSec, pxLonSec int // pixel size, arc-seconds
	northSec, westSec  int // corner, arc-seconds
	width, height      int
}

// PixelArcSeconds returns the pixel size of the grid rule for a
// resolution and a latitude: latSec = max(1, round(resolutionM/ArcSecondM))
// arc-seconds of latitude, and lonSec = max(1, round(resolutionM /
// (ArcSecondM·cos(latDeg)))) arc-seconds of longitude, so that the pixel is
// about resolutionM wide at that latitude.
func PixelArcSeconds(resolutionM, latDeg float64) (latSec, lonSec int) {
	latSec = max(1, int(math.Round(resolutionM/ArcSecondM)))
	lonSec = max(1, int(math.Round(resolutionM/(ArcSecondM*math.Cos(latDeg*math.Pi/180)))))
	return latSec, lonSec
}

// newGrid returns the grid covering box with pixels of the given
// arc-seconds, edges on multiples of the pixel size (hence on whole
// arc-seconds).
func newGrid(box appliance.BBox, latSec, lonSec int) grid {
	g := grid{pxLatSec: latSec, pxLonSec: lonSec}
	south := int(math.Floor(box.MinLat*3600/float64(latSec))) * latSec
	g.northSec = int(math.Ceil(box.MaxLat*3600/float64(latSec))) * latSec
	g.westSec = int(math.Floor(box.MinLon*3600/float64(lonSec))) * lonSec
	east := int(math.Ceil(box.MaxLon*3600/float64(lonSec))) * lonSec
	g.height = max(1, (g.northSec-south)/latSec)
	g.width = max(1, (east-g.westSec)/lonSec)
	return g
}

func (g grid) raster() *Raster {
	r := &Raster{West: float64(g.westSec) / 3600, North: float64(g.northSec) / 3600,
		PixelLonDeg: float64(g.pxLonSec) / 3600, PixelLatDeg: float64(g.pxLatSec) / 3600,
		Width: g.width, Height: g.height, DBm: make([]float32, g.width*g.height)}
	nan := float32(math.NaN())
	// a 1″ 50 km map has 15 million pixels: fill them on every core
	parts := max(1, min(runtime.GOMAXPROCS(0), len(r.DBm)>>20))
	var wg sync.WaitGroup
	for w := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			chunk := r.DBm[len(r.DBm)*w/parts : len(r.DBm)*(w+1)/parts]
			for i := range chunk {
				chunk[i] = nan
			}
		}()
	}
	wg.Wait()
	return r
}

// PixelAreaKm2 returns the area of one pixel of row, km² (on the mean sphere).
func (r *Raster) PixelAreaKm2(row int) float64 {
	lat := r.North - (float64(row)+0.5)*r.PixelLatDeg
	h := r.PixelLatDeg * 3600 * ArcSecondM
	w := r.PixelLonDeg * 3600 * ArcSecondM * math.Cos(lat*math.Pi/180)
	return h * w / 1e6
}
