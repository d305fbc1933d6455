package raytracing_test

import (
	"bytes"
	"context"
	"log/slog"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/coverage"
	"linkplan/appliance/raytracing"
)

// shortAnswer is the real executor with one array of every map answer cut
// short by one pixel: a fault injection of a broken executor answer (the
// worker's answers come over a socket), not a fake result.
type shortAnswer struct {
	raytracing.Executor
	cut func(*appliance.RaytraceMapResult)
}

func (x shortAnswer) Map(ctx context.Context, s appliance.RaytraceScene, r appliance.RaytraceMapRequest) (appliance.RaytraceMapResult, error) {
	res, err := x.Executor.Map(ctx, s, r)
	if err == nil {
		x.cut(&res)
	}
	return res, err
}

// TestIssue24_MapAnswerLengths: a band whose answer has a short array
// (any of the four) fails the map with an error that counts each array
// (the stream says "failed"; the log has the error), never a panic nor a
// map computed from a partial answer.
func TestIssue24_MapAnswerLengths(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	opt := raytracing.DefaultMapOptions()
	opt.DiffuseScattering = 0
	req := raytracing.MapRequest{LayerID: f.layer, RadiusM: 40, Options: opt,
		Site: &coverage.Site{Pos: at(-35, 20), HeightM: 30, EIRPDBm: 55, AzimuthDeg: math.NaN()}, FreqMHz: 3500, RxHeightM: 1.5, ResolutionM: 5}
	real := f.svc.Executor
	var logs syncBuf
	maps := coverage.NewMaps(nil, coverage.MapsOptions{Log: slog.New(slog.NewTextHandler(&logs, nil))})
	defer maps.Close()
	f.svc.Maps = &coverage.Starter{Maps: maps, Towers: noTowers}
	for _, tc := range []struct {
		name string
		cut  func(*appliance.RaytraceMapResult)
		want string
	}{
		{"flags", func(r *appliance.RaytraceMapResult) { r.Flags = r.Flags[1:] }, "flags"},
		{"path losses", func(r *appliance.RaytraceMapResult) { r.PathLossDB = r.PathLossDB[1:] }, "path losses"},
		{"powers", func(r *appliance.RaytraceMapResult) { r.ReceivedPowerDBm = r.ReceivedPowerDBm[1:] }, "powers"},
		{"delay spreads", func(r *appliance.RaytraceMapResult) { r.RMSDelaySpreadNs = r.RMSDelaySpreadNs[1:] }, "delay spreads"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f.svc.Executor = shortAnswer{Executor: real, cut: tc.cut}
			defer func() { f.svc.Executor = real }()
			mp, err := f.svc.StartMap(ctx, f.ent, req)
			if err != nil {
				t.Fatal(err)
			}
			detach := mp.Attach()
			defer detach()
			for after := 0; ; {
				evs, final, err := mp.Next(ctx, after, time.Minute)
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range evs {
					after = e.Seq
				}
				if final && len(evs) == 0 {
					break
				}
			}
			if _, _, _, err := mp.Result(); err == nil {
				t.Fatal("a map computed from a short answer")
			}
			var line string
			for _, l := range strings.Split(logs.String(), "\n") {
				if strings.Contains(l, mp.ID) {
					line = l
				}
			}
			if !strings.Contains(line, "coverage map failed") || !strings.Contains(line, "band 0") || !strings.Contains(line, tc.want) {
				t.Fatalf("map on a short answer logged %q, want the band's error counting its %s", line, tc.want)
			}
			t.Log(line)
		})
	}
}

// syncBuf is a buffer safe for concurrent writers.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
