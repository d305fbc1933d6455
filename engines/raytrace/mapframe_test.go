package raytrace_test

import (
	"context"
	"errors"
	"testing"

	"linkplan/appliance"
	"linkplan/engines/raytrace"
)

// TestMapFrameCorners: a map whose corner pixel lies beyond MaxFrameM
// from the scene's origin is refused naming the field, whichever corner
// it is. Only the south-west and north-east corners were checked, so a map
// south-east (or north-west) of the origin traced pixels past the frame.
func TestMapFrameCorners(t *testing.T) {
	t.Parallel()
	s, err := raytrace.NewScene(raytrace.SceneInput{Origin: rio, GroundHeightM: 5})
	if err != nil {
		t.Fatal(err)
	}
	f := s.Frame()
	const step, n = 100.0, 11 // 1 km of pixels
	for _, c := range []struct {
		name    string
		x0, y0  float64 // the south-west pixel, metres from the origin
		refused string  // the field named; "" = traced
	}{
		{"north-east corner past the frame", 19500, -500, "step_m"},
		{"south-east corner past the frame", 13000, -15000, "step_m"}, // SE (14000, -15000): 20.52 km, NE 19.80 km
		{"north-west corner past the frame", -15000, 13000, "step_m"}, // NW (-15000, 14000): 20.52 km, NE 19.80 km
		{"south-west pixel past the frame", -20500, -500, "south_west"},
		{"within the frame", 13000, -14000, ""}, // SE (14000, -14000): 19.80 km
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := s.Map(context.Background(), raytrace.MapRequest{Tx: raytrace.Antenna{Pos: f.ToLatLon(0, 0), HeightM: 30},
				SouthWest: f.ToLatLon(c.x0, c.y0), StepM: step, NX: n, NY: n, RxHeightM: 1.5, FreqMHz: 3500, Options: raytrace.DefaultOptions()})
			var ve *appliance.ValidationError
			switch {
			case c.refused == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.refused == "":
			case !errors.As(err, &ve):
				t.Fatalf("err %v; want a validation error naming %s", err, c.refused)
			case ve.Fields[0].Field != c.refused:
				t.Errorf("names %s, want %s: %v", ve.Fields[0].Field, c.refused, err)
			}
		})
	}
}
