package geoexport

import (
	"math"

	"linkplan/appliance"
)

// sampleLinkRows returns link rows that exercise every field type, nulls,
// UTF-8 text, negative numbers and every status.
func sampleLinkRows() []LinkRow {
	return []LinkRow{
		{ReceiverID: "cliente-001", Row: 1, Receiver: appliance.LatLon{Lat: -22.9068467, Lon: -43.1728965},
			TowerID: "anatel:123456", Operator: "Vivo", DistanceKm: 3.2174, AzimuthDeg: 271.456,
			MarginDB: 12.345, RxPowerDBm: -67.891, Engine: "itm", Status: StatusOK, PositionUncertaintyM: 30},
		{ReceiverID: "São João — Ação", Row: 2, Receiver: appliance.LatLon{Lat: -23.5505199, Lon: -46.6333094},
			TowerID: "osm:987", Operator: "TIM", DistanceKm: 14.9, AzimuthDeg: 0,
			MarginDB: -3.5, RxPowerDBm: -95.25, Engine: "itm", Status: StatusLowMargin, Warnings: []string{"eirp_assumed", "synthetic_tower"},
			EIRPAssumed: true, Synthetic: true, PositionUncertaintyM: 4700},
		{ReceiverID: "far-away", Row: 3, Receiver: appliance.LatLon{Lat: 0, Lon: 0},
			DistanceKm: math.NaN(), AzimuthDeg: math.NaN(), MarginDB: math.NaN(), RxPowerDBm: math.NaN(),
			Engine: "fspl", Status: StatusNoTower, Warnings: []string{"no_land_cover"}, PositionUncertaintyM: math.NaN()},
		{ReceiverID: `quote " and <tag> & amp`, Row: 4, Receiver: appliance.LatLon{Lat: 89.9999999, Lon: 179.9999999},
			DistanceKm: math.NaN(), AzimuthDeg: math.NaN(), MarginDB: math.NaN(), RxPowerDBm: math.NaN(),
			Status: StatusError, PositionUncertaintyM: math.NaN()},
	}
}

func sampleLinkFeatures() []Feature {
	rows := sampleLinkRows()
	fs := make([]Feature, len(rows))
	for i, r := range rows {
		fs[i] = r.Feature()
	}
	return fs
}

// routeSchema is a line-string schema, as a repeater route would use, whose
// long names collide once cut to 10 bytes.
func routeSchema() Schema {
	return Schema{Geometry: KindLineString, Fields: []Field{
		{Name: "route_id", Type: TypeString, Width: 20},
		{Name: "hop_distance_km", Type: TypeFloat, Decimals: 3},
		{Name: "hop_distance_m", Type: TypeFloat, Width: 12, Decimals: 1},
		{Name: "hop_distance_mi", Type: TypeFloat},
		{Name: "2nd hop", Type: TypeInt, Width: 5},
		{Name: "clear", Type: TypeBool},
	}}
}

func routeFeatures() []Feature {
	return []Feature{
		{Geometry: LineString(
			appliance.LatLon{Lat: -22.9, Lon: -43.2}, appliance.LatLon{Lat: -22.8, Lon: -43.0}, appliance.LatLon{Lat: -22.7, Lon: -43.1}),
			Properties: []Value{String("r1"), Float(12.5), Float(12500), Float(7.767), Int(2), Bool(true)}},
		{Geometry: LineString(
			appliance.LatLon{Lat: -15.78, Lon: -47.93}, appliance.LatLon{Lat: -15.70, Lon: -47.80}),
			Properties: []Value{String("r2"), Null(), Float(-1), Null(), Int(-3), Null()}},
	}
}
