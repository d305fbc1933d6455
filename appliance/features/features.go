package features

import (
	"context"
	"errors"
	"fmt"
	"math"

	"linkplan/appliance"
	"linkplan/engines/radio"
	"linkplan/terrain-packs/clutter"
)

// Schema versions of the feature builder.
const (
	// Version17 is SPEC §2.5's 17-feature vector.
	Version17 = 1
	// Version27 is Version17 plus the receiver's 10-class clutter one-hot.
	Version27 = 2
)

// ProfileStepM is the spacing of the terrain profile, metres (the 90 m
// grid of SPEC §1.1, as the engines sample it).
const ProfileStepM = 90

// MaxFresnelRatio bounds min_fresnel_ratio: a clearance of more than five
// first-Fresnel radii, or an obstruction deeper than five, adds nothing a
// model can use, and the bound keeps the feature finite.
const MaxFresnelRatio = 5

// MinDistanceM is the shortest distance the logarithmic features use,
// metres: a receiver under the mast does not send log10 to −∞.
const MinDistanceM = 10

// KFactor is the effective earth radius factor of the path geometry,
// dimensionless (the planner's path check uses the same).
const KFactor = 4.0 / 3

// ErrNoLandCover means a version-2 vector was asked for where the terrain
// has no land-cover layer. It matches appliance.ErrUnavailable.
var ErrNoLandCover = fmt.Errorf("no land-cover layer covers the receiver: %w", appliance.ErrUnavailable)

var names17 = [...]string{
	"log_distance_km", "log_freq_mhz", "tx_height_m", "rx_height_m", "tx_power_dbm", "tx_gain_dbi", "rx_gain_dbi",
	"terrain_mean_m", "terrain_max_m", "terrain_std_m", "terrain_slope_deg", "obstruction_count", "max_obstruction_m",
	"min_fresnel_ratio", "log_d_sq", "log_d_log_f", "terrain_std_log_d",
}

// Schema returns the feature schema of version (Version17 or Version27).
// Each call returns fresh slices.
func Schema(version int) (appliance.FeatureSchema, error) {
	switch version {
	case Version17:
		return appliance.FeatureSchema{Version: Version17, Names: append([]string(nil), names17[:]...)}, nil
	case Version27:
		names := append(make([]string, 0, len(names17)+clutter.NumClasses), names17[:]...)
		for _, c := range clutter.Classes() {
			names = append(names, "clutter_"+lower(c.String()))
		}
		return appliance.FeatureSchema{Version: Version27, Names: names}, nil
	}
	return appliance.FeatureSchema{}, fmt.Errorf("feature schema version %d: this build knows %d and %d: %w", version, Version17, Version27, appliance.ErrInvalid)
}

// lower is strings.ToLower for the ASCII class labels.
func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// Link is one transmitter–receiver pair as the feature builder needs it.
type Link struct {
	Tx, Rx               appliance.LatLon // WGS84 degrees
	TxHeightM, RxHeightM float64          // antenna heights above ground, metres
	FreqMHz              float64
	TxPowerDBm           float64
	TxGainDBi, RxGainDBi float64
}

// Validate checks l's ranges (those of an observation, SPEC §2.7) and
// names every bad field.
func (l Link) Validate() error {
	v := &appliance.ValidationError{}
	if !(l.Tx.Lat >= -90 && l.Tx.Lat <= 90) {
		v.Add("tx_lat", "must be within [-90, 90] degrees")
	}
	if !(l.Tx.Lon >= -180 && l.Tx.Lon <= 180) {
		v.Add("tx_lon", "must be within [-180, 180] degrees")
	}
	if !(l.Rx.Lat >= -90 && l.Rx.Lat <= 90) {
		v.Add("rx_lat", "must be within [-90, 90] degrees")
	}
	if !(l.Rx.Lon >= -180 && l.Rx.Lon <= 180) {
		v.Add("rx_lon", "must be within [-180, 180] degrees")
	}
	if !(l.TxHeightM > 0 && l.TxHeightM <= 500) {
		v.Add("tx_height_m", "must be within (0, 500] metres")
	}
	if !(l.RxHeightM > 0 && l.RxHeightM <= 500) {
		v.Add("rx_height_m", "must be within (0, 500] metres")
	}
	if !(l.FreqMHz > 1 && l.FreqMHz <= 100000) {
		v.Add("freq_mhz", "must be within (1, 100000] MHz")
	}
	if !(l.TxPowerDBm >= 0 && l.TxPowerDBm <= 80) {
		v.Add("tx_power_dbm", "must be within [0, 80] dBm")
	}
	if !(l.TxGainDBi >= -20 && l.TxGainDBi <= 60) {
		v.Add("tx_gain_dbi", "must be within [-20, 60] dBi")
	}
	if !(l.RxGainDBi >= -20 && l.RxGainDBi <= 60) {
		v.Add("rx_gain_dbi", "must be within [-20, 60] dBi")
	}
	if len(v.Fields) > 0 {
		return v
	}
	return nil
}

// Info holds the by-products of a vector that the models' bookkeeping
// needs.
type Info struct {
	DistanceKM   float64
	TerrainStdM  float64
	Morphology   string // Morphology(TerrainStdM)
	BandMHz      int    // SnapBandMHz(FreqMHz)
	ClutterClass uint8  // at the receiver; 0 unknown or no layer
	ClutterLabel string // "" when unknown
}

// Builder computes feature vectors on a terrain.
type Builder struct {
	Terrain appliance.Terrain
	// Clutter answers the receiver's land cover when the profile carries
	// no class; nil when the terrain has no land-cover layer.
	Clutter appliance.ClutterMap
}

// Vector returns the feature vector of schema version for l, and its
// by-products.
func (b *Builder) Vector(ctx context.Context, l Link, version int) ([]float64, Info, error) {
	if version != Version17 && version != Version27 {
		_, err := Schema(version)
		return nil, Info{}, err
	}
	if err := l.Validate(); err != nil {
		return nil, Info{}, err
	}
	if err := ctx.Err(); err != nil {
		return nil, Info{}, err
	}
	prof, err := b.Terrain.Profile(l.Tx, l.Rx, ProfileStepM)
	if err != nil {
		return nil, Info{}, fmt.Errorf("feature profile: %w", err)
	}
	class, label, err := b.receiverClutter(l.Rx, prof)
	if err != nil && version == Version27 {
		return nil, Info{}, err
	}
	x, info := fromProfile(l, prof)
	info.ClutterClass, info.ClutterLabel = class, label
	if version == Version27 {
		oh := clutter.Class(class).OneHot()
		x = append(x, oh[:]...)
	}
	return x, info, nil
}

// receiverClutter is the land-cover class at the receiver: the profile's
// last sample when it has a land-cover layer, else the clutter map's.
func (b *Builder) receiverClutter(rx appliance.LatLon, prof *appliance.PathProfile) (uint8, string, error) {
	var class uint8
	switch {
	case len(prof.ClutterClass) > 0:
		class = prof.ClutterClass[len(prof.ClutterClass)-1]
	case b.Clutter != nil:
		ci, err := b.Clutter.ClutterAt(rx)
		if errors.Is(err, appliance.ErrUnavailable) {
			return 0, "", ErrNoLandCover
		}
		if err != nil {
			return 0, "", fmt.Errorf("receiver land cover: %w", err)
		}
		class = ci.Class
	default:
		return 0, "", ErrNoLandCover
	}
	if !clutter.Class(class).Valid() {
		return 0, "", nil
	}
	return class, clutter.Class(class).String(), nil
}

// fromProfile computes the 17 features of l on prof (index 0 the
// transmitter).
func fromProfile(l Link, prof *appliance.PathProfile) ([]float64, Info) {
	d := l.Tx.DistanceM(l.Rx)
	logD := math.Log10(math.Max(d, MinDistanceM) / 1000)
	logF := math.Log10(l.FreqMHz)
	t := terrainStats(l, prof)
	x := []float64{
		logD, logF, l.TxHeightM, l.RxHeightM, l.TxPowerDBm, l.TxGainDBi, l.RxGainDBi,
		t.meanM, t.maxM, t.stdM, t.slopeDeg, float64(t.obstructions), t.maxObstructionM,
		t.minFresnel, logD * logD, logD * logF, t.stdM * logD,
	}
	return x, Info{DistanceKM: d / 1000, TerrainStdM: t.stdM, Morphology: Morphology(t.stdM), BandMHz: SnapBandMHz(l.FreqMHz)}
}

type stats struct {
	meanM, maxM, stdM, slopeDeg float64
	obstructions                int
	maxObstructionM, minFresnel float64
}

// terrainStats computes the terrain features of a profile. Heights are
// summed in sample order (deterministic); the standard deviation is the
// population one, from a second pass around the mean.
func terrainStats(l Link, prof *appliance.PathProfile) stats {
	h, dist := prof.HeightsM, prof.DistancesM
	n := len(h)
	s := stats{minFresnel: MaxFresnelRatio}
	if n == 0 {
		return s
	}
	sum, maxH := 0.0, math.Inf(-1)
	for _, v := range h {
		sum += v
		maxH = math.Max(maxH, v)
	}
	s.meanM, s.maxM = sum/float64(n), maxH
	ss := 0.0
	for _, v := range h {
		ss += (v - s.meanM) * (v - s.meanM)
	}
	s.stdM = math.Sqrt(ss / float64(n))
	if n > 1 {
		slope := 0.0
		for i := 1; i < n; i++ {
			slope += math.Atan2(math.Abs(h[i]-h[i-1]), dist[i]-dist[i-1])
		}
		s.slopeDeg = slope / float64(n-1) * 180 / math.Pi
	}
	total := dist[n-1]
	if n < 3 || total <= 0 {
		return s
	}
	tip0, tipN := h[0]+l.TxHeightM, h[n-1]+l.RxHeightM
	for i := 1; i < n-1; i++ {
		d1, d2 := dist[i], total-dist[i]
		ground := h[i] + radio.EarthBulgeM(d1, d2, KFactor)
		los := tip0 + (tipN-tip0)*d1/total
		clear := los - ground
		if clear <= 0 {
			s.obstructions++
			s.maxObstructionM = math.Max(s.maxObstructionM, -clear)
		}
		if f1 := radio.FresnelRadiusM(l.FreqMHz, d1, d2); f1 > 0 {
			s.minFresnel = math.Min(s.minFresnel, clear/f1)
		}
	}
	s.minFresnel = math.Max(s.minFresnel, -MaxFresnelRatio)
	return s
}

// Bands are the seven band centres of SPEC §2.5, MHz.
func Bands() []int { return []int{700, 850, 900, 1800, 2100, 2600, 3500} }

// SnapBandMHz returns the band of Bands nearest to freqMHz; a tie goes
// to the lower band.
func SnapBandMHz(freqMHz float64) int {
	best, bestD := 0, math.Inf(1)
	for _, b := range Bands() {
		if d := math.Abs(freqMHz - float64(b)); d < bestD {
			best, bestD = b, d
		}
	}
	return best
}

// Morphology classes of SPEC §2.6 (rmse_by_morphology keys).
const (
	MorphologyOpenOrFlat       = "open_or_flat"
	MorphologyRuralRolling     = "rural_rolling"
	MorphologyRuralMountainous = "rural_mountainous"
)

// Morphology returns the class of a path by its terrain standard
// deviation, metres: open_or_flat below 5, rural_rolling from 5 to below
// 15, rural_mountainous from 15.
func Morphology(terrainStdM float64) string {
	switch {
	case terrainStdM < 5:
		return MorphologyOpenOrFlat
	case terrainStdM < 15:
		return MorphologyRuralRolling
	}
	return MorphologyRuralMountainous
}
