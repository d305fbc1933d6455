package coverage

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"linkplan/appliance"
)

func newMaps(t testing.TB, o MapsOptions) *Maps {
	svc, _, _ := newService(t)
	var n atomic.Int64
	o.NewID = func() (string, error) { return fmt.Sprintf("map%03d", n.Add(1)), nil }
	m := NewMaps(svc, o)
	t.Cleanup(m.Close)
	return m
}

// drain reads every event of mp after seq after until the stream ends.
func drain(t *testing.T, mp *Map, after int) []Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out []Event
	for {
		evs, final, err := mp.Next(ctx, after, time.Second)
		if err != nil {
			t.Fatalf("next after %d: %v", after, err)
		}
		out = append(out, evs...)
		if len(evs) > 0 {
			after = evs[len(evs)-1].Seq
		}
		if final && len(evs) == 0 {
			return out
		}
	}
}

func TestMapStream(t *testing.T) {
	m := newMaps(t, MapsOptions{})
	req := tijuca()
	req.RadiusM, req.ResolutionM = 3000, 90
	mp, err := m.Start("t1", []Request{req}, false)
	if err != nil {
		t.Fatal(err)
	}
	detach := mp.Attach()
	evs := drain(t, mp, 0)
	detach()
	if len(evs) < 3 || evs[0].Type != EventStarted || evs[len(evs)-1].Type != EventSummary {
		t.Fatalf("%d events, first %v last %v", len(evs), evs[0].Type, evs[len(evs)-1].Type)
	}
	st := evs[0].Data.(EventStartedData)
	tiles := 0
	for i, e := range evs {
		if e.Seq != i+1 {
			t.Fatalf("event %d has seq %d", i, e.Seq)
		}
		if e.Type == EventTile {
			tiles++
		}
	}
	if tiles != st.Tiles {
		t.Errorf("%d tile events, started announced %d", tiles, st.Tiles)
	}
	if mp.State() != MapDone {
		t.Fatalf("state %s", mp.State())
	}
	r, servers, sum, err := mp.Result()
	if err != nil || r == nil || servers != nil || sum.ValidPixels == 0 {
		t.Fatalf("result %v %v %+v %v", r != nil, servers, sum, err)
	}
	if r.West != st.West || r.North != st.North || r.Width != st.Width || r.Height != st.Height ||
		r.PixelLonDeg != st.PixelLonDeg || r.PixelLatDeg != st.PixelLatDeg {
		t.Errorf("started announced %+v, the raster is %v %v %d×%d", st, r.West, r.North, r.Width, r.Height)
	}
	// Resuming after any event gives the same events from there.
	again := drain(t, mp, 5)
	if len(again) != len(evs)-5 || again[0].Seq != 6 {
		t.Fatalf("resume after 5: %d events from seq %d, want %d from 6", len(again), again[0].Seq, len(evs)-5)
	}
	// Another tenant cannot see the map.
	if _, err := m.Get("t2", mp.ID); !errors.Is(err, appliance.ErrNotFound) {
		t.Errorf("other tenant: %v", err)
	}
	if _, err := m.Get("t1", mp.ID); err != nil {
		t.Errorf("own tenant: %v", err)
	}
}

func TestMapCanceledWhenLastStreamLeaves(t *testing.T) {
	m := newMaps(t, MapsOptions{})
	req := tijuca()
	req.RadiusM, req.ResolutionM, req.Engine = 30000, 30, appliance.EngineITM
	mp, err := m.Start("t1", []Request{req}, false)
	if err != nil {
		t.Fatal(err)
	}
	d1, d2 := mp.Attach(), mp.Attach()
	d1()
	if mp.State() != MapComputing {
		t.Fatalf("one stream left, state %s", mp.State())
	}
	d2()
	d2() // idempotent
	deadline := time.Now().Add(30 * time.Second)
	for mp.State() == MapComputing && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if mp.State() != MapCanceled {
		t.Fatalf("state %s after the last stream left", mp.State())
	}
	evs := drain(t, mp, 0)
	last := evs[len(evs)-1]
	if last.Type != EventError || last.Data.(EventErrorData).Code != "canceled" {
		t.Fatalf("last event %+v", last)
	}
	if _, _, _, err := mp.Result(); err == nil {
		t.Error("a canceled map has a result")
	}
}

func TestMapsLimitsAndRetention(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	m := newMaps(t, MapsOptions{MaxComputingPerTenant: 1, Retention: time.Minute, Now: func() time.Time { return now }})
	req := tijuca()
	req.RadiusM, req.ResolutionM = 2000, 90
	mp, err := m.Start("t1", []Request{req}, false)
	if err != nil {
		t.Fatal(err)
	}
	if mp.State() == MapComputing {
		if _, err := m.Start("t1", []Request{req}, false); err == nil && mp.State() == MapComputing {
			t.Error("second computing map of the tenant accepted")
		}
	}
	detach := mp.Attach()
	drain(t, mp, 0)
	detach()
	if _, err := m.Get("t1", mp.ID); err != nil {
		t.Fatalf("finished map: %v", err)
	}
	now = now.Add(2 * time.Minute)
	if _, err := m.Get("t1", mp.ID); !errors.Is(err, appliance.ErrNotFound) {
		t.Errorf("map past retention: %v", err)
	}
	huge := req
	huge.RadiusM, huge.ResolutionM = 100000, 30
	if _, err := m.Start("t1", []Request{huge}, false); !errors.Is(err, appliance.ErrInvalid) || !strings.Contains(err.Error(), "pixels") {
		t.Errorf("a map over MaxMapPixels: %v", err)
	}
	bad := req
	bad.RadiusM = -1
	if _, err := m.Start("t1", []Request{bad}, false); !errors.Is(err, appliance.ErrInvalid) {
		t.Errorf("bad request: %v", err)
	}
}

func TestBestServerStream(t *testing.T) {
	m := newMaps(t, MapsOptions{})
	a, b := tijuca(), tijuca()
	a.RadiusM, a.ResolutionM = 2000, 90
	b.RadiusM, b.ResolutionM = 2000, 90
	b.Tx.Lat += 0.01
	mp, err := m.Start("t1", []Request{a, b}, true)
	if err != nil {
		t.Fatal(err)
	}
	detach := mp.Attach()
	evs := drain(t, mp, 0)
	detach()
	n := 0
	for _, e := range evs {
		if e.Type == EventTile {
			td := e.Data.(EventTileData)
			if td.Servers == "" {
				t.Fatalf("best-server tile %s without servers", td.ID)
			}
			n++
		}
	}
	if n == 0 || mp.State() != MapDone {
		t.Fatalf("%d tiles, state %s", n, mp.State())
	}
	if _, servers, _, _ := mp.Result(); servers == nil {
		t.Error("no server index")
	}
}
