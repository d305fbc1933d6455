package ptp_test

import (
	"math"
	"sync"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/equipment"
	"linkplan/appliance/ptp"
	"linkplan/engines"
	"linkplan/engines/itur"
	"linkplan/terrain-packs/sample"
	"linkplan/terrain-packs/terrain"
)

// builtins is the catalogue of the built-in generic examples, as every
// tenant sees them (equipment.Builtins; the tenants' own records are
// tested on the API with the real store).
type builtins struct {
	radios   []*appliance.Radio
	antennas []*appliance.Antenna
}

func (b *builtins) Radio(_, id string) (*appliance.Radio, error) {
	for _, r := range b.radios {
		if r.ID == id {
			return r, nil
		}
	}
	return nil, appliance.ErrNotFound
}

func (b *builtins) Antenna(_, id string) (*appliance.Antenna, error) {
	for _, a := range b.antennas {
		if a.ID == id {
			return a, nil
		}
	}
	return nil, appliance.ErrNotFound
}

var (
	setupOnce sync.Once
	setupSvc  *ptp.Service
	setupErr  error
)

// service is the service on the real embedded Rio SRTM3 sample, the real
// engine registry and the embedded ITU-R maps.
func service(t testing.TB) *ptp.Service {
	t.Helper()
	setupOnce.Do(func() {
		var p *terrain.Pack
		if p, setupErr = terrain.OpenBytes(sample.Pack()); setupErr != nil {
			return
		}
		var reg *engines.Registry
		if reg, setupErr = engines.New(engines.Config{}); setupErr != nil {
			return
		}
		var maps *itur.Maps
		if maps, setupErr = itur.LoadMaps(); setupErr != nil {
			return
		}
		r, a := equipment.Builtins()
		setupSvc = ptp.New(p, reg.WithFallback, &builtins{radios: r, antennas: a}, maps)
		setupSvc.TerrainDescription = "embedded sample pack (SRTM3, Rio de Janeiro)"
	})
	if setupErr != nil {
		t.Fatal(setupErr)
	}
	return setupSvc
}

func end(lat, lon, h float64, radio, antenna string) appliance.PTPEnd {
	return appliance.PTPEnd{Pos: appliance.LatLon{Lat: lat, Lon: lon}, HeightM: h, RadioID: radio, AntennaID: antenna,
		AzimuthDeg: math.NaN(), TiltDeg: math.NaN()}
}
