package coverage

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"linkplan/appliance"
)

// spreadComputer is a Computer for the registry's tests: free-space
// spreading from a point on a 300×280 grid (two tile rows, two tile
// columns), computed in bands of 16 rows from the north. crashAfter > 0
// makes it fail after that many bands with an executor crash.
type spreadComputer struct {
	shape      *Raster
	tx         appliance.LatLon
	crashAfter int
}

func newSpread(crashAfter int) *spreadComputer {
	return &spreadComputer{shape: &Raster{West: -43.25, North: -22.90, PixelLonDeg: 1.0 / 3600, PixelLatDeg: 1.0 / 3600, Width: 300, Height: 280},
		tx: appliance.LatLon{Lat: -22.94, Lon: -43.21}, crashAfter: crashAfter}
}

func (c *spreadComputer) Shape() *Raster     { s := *c.shape; return &s }
func (c *spreadComputer) Work() (int, int64) { return 2, 1 << 20 }
func (c *spreadComputer) req() Request {
	return Request{Tx: c.tx, TxHeightM: 20, EIRPDBm: 50, AzimuthDeg: math.NaN(), FreqMHz: 3500, RxHeightM: 1.5, ResolutionM: 30, Engine: "raytrace"}
}
func (c *spreadComputer) value(row, col int) float32 {
	d := c.tx.DistanceM(c.shape.PixelCenter(row, col))
	return float32(50 - 20*math.Log10(math.Max(d, 1)) - 43.3)
}

func (c *spreadComputer) Compute(ctx context.Context, workers int, onTile func(TileDone), onProgress func(done, total int)) (*Result, error) {
	start := time.Now()
	r := c.Shape()
	r.DBm = make([]float32, r.Width*r.Height)
	tiles := NewRowTiles(r, onTile)
	bands := (r.Height + 15) / 16
	for b := 0; b < bands; b++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if c.crashAfter > 0 && b == c.crashAfter {
			return nil, &appliance.ExecutorCrashError{Executor: "raytrace worker", Detail: "process 1 was killed by signal killed"}
		}
		for row := b * 16; row < min(r.Height, (b+1)*16); row++ {
			for col := range r.Width {
				r.DBm[row*r.Width+col] = c.value(row, col)
			}
		}
		onProgress(b+1, bands)
		tiles.Done(min(r.Height, (b+1)*16))
	}
	sum := ComputedSummary(r, c.req(), "rt-test", []appliance.Warning{{Code: "raytrace_assumed_heights", Message: "3 buildings"}}, time.Since(start))
	return &Result{Raster: r, Summary: sum}, nil
}

// TestComputedMap: a computed map streams like a heatmap (started with its
// kind, progress, every tile once in row-major order, the summary with its
// caveats), keeps its raster on disk, survives a restart of the registry
// with its kind, and exports; a computer whose executor crashes ends the
// map with the error code worker_crashed and its reason.
func TestComputedMap(t *testing.T) {
	dir := t.TempDir()
	m := newMaps(t, MapsOptions{Dir: dir})
	c := newSpread(0)
	mp, err := m.StartComputed(Owner{TenantID: "t1"}, "raytrace", c.req(), c)
	if err != nil {
		t.Fatal(err)
	}
	detach := mp.Attach()
	evs := drain(t, mp, 0)
	detach()
	st := evs[0].Data.(EventStartedData)
	if st.Kind != "raytrace" || st.Engine != "raytrace" || st.Width != 300 || st.Height != 280 || st.Tiles != 4 {
		t.Fatalf("started %+v", st)
	}
	var tiles []string
	progress := 0
	for _, e := range evs {
		switch e.Type {
		case EventTile:
			td := e.Data.(EventTileData)
			if td.Data == "" {
				t.Fatalf("tile %s without pixels", td.ID)
			}
			tiles = append(tiles, td.ID)
		case EventProgress:
			progress++
		}
	}
	if got := []string{"r0c0", "r0c1", "r1c0", "r1c1"}; len(tiles) != 4 || tiles[0] != got[0] || tiles[1] != got[1] || tiles[2] != got[2] || tiles[3] != got[3] {
		t.Fatalf("tiles %v", tiles)
	}
	if progress != 18 {
		t.Errorf("%d progress events, want 18 (one per band)", progress)
	}
	last := evs[len(evs)-1]
	sum := last.Data.(EventSummaryData)
	if last.Type != EventSummary || sum.ValidPixels != 300*280 || sum.EngineVersion != "rt-test" || len(sum.Warnings) != 1 || sum.Warnings[0].Code != "raytrace_assumed_heights" {
		t.Fatalf("last event %s %+v", last.Type, sum)
	}
	r, _, _, err := mp.Result()
	if err != nil || r.DBm[1234] != c.value(1234/300, 1234%300) {
		t.Fatalf("result: %v", err)
	}
	m.Close()

	// A new registry on the same directory: the map is back, with its kind.
	m2 := newMaps(t, MapsOptions{Dir: dir})
	if err := m2.Open(); err != nil {
		t.Fatal(err)
	}
	back, err := m2.Get("t1", mp.ID)
	if err != nil || back.Kind != "raytrace" || back.State() != MapDone {
		t.Fatalf("after reopening: %+v, %v", back, err)
	}
	r2, _, _, err := back.Result()
	if err != nil || r2.DBm[1234] != r.DBm[1234] || r2.Width != 300 {
		t.Fatalf("raster after reopening: %v", err)
	}

	crash := newSpread(5)
	cm, err := m2.StartComputed(Owner{TenantID: "t1"}, "raytrace", crash.req(), crash)
	if err != nil {
		t.Fatal(err)
	}
	detach = cm.Attach()
	evs = drain(t, cm, 0)
	detach()
	end := evs[len(evs)-1]
	ed, ok := end.Data.(EventErrorData)
	if !ok || ed.Code != "worker_crashed" || cm.State() != MapFailed {
		t.Fatalf("end of the crashed map: %s %+v", end.Type, end.Data)
	}
	if !strings.Contains(ed.Message, "raytrace worker stopped") || !strings.Contains(ed.Message, "killed") {
		t.Fatalf("message %q", ed.Message)
	}
	t.Logf("crashed map: %s: %s", ed.Code, ed.Message)
}
