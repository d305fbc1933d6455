package coverage

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math"
)

// Tile encoding constants (package doc, "Tile encoding").
const (
	// NoDataCentiDBm is the int16 value of a pixel without data.
	NoDataCentiDBm = math.MinInt16 // −32768
	// MinCentiDBm and MaxCentiDBm are the clamping limits of a value,
	// centi-dBm (−327.67 dBm and +327.67 dBm).
	MinCentiDBm = math.MinInt16 + 1
	MaxCentiDBm = math.MaxInt16
)

// CentiDBm returns the int16 code of one pixel value: round(dBm·100)
// clamped to MinCentiDBm..MaxCentiDBm, NoDataCentiDBm for NaN.
func CentiDBm(dBm float32) int16 {
	if dBm != dBm {
		return NoDataCentiDBm
	}
	c := math.Round(float64(dBm) * 100)
	return int16(math.Max(MinCentiDBm, math.Min(MaxCentiDBm, c)))
}

// EncodeTile returns the pixels of tile t of r as standard base64 (RFC
// 4648, with padding) of little-endian int16 centi-dBm (CentiDBm), row
// by row from the north-west pixel of the tile: t.W·t.H values, 2·t.W·t.H
// bytes.
func EncodeTile(r *Raster, t Tile) (string, error) {
	if t.X0 < 0 || t.Y0 < 0 || t.W <= 0 || t.H <= 0 || t.X0+t.W > r.Width || t.Y0+t.H > r.Height {
		return "", fmt.Errorf("encode tile %s: window %d+%d × %d+%d outside the %d×%d raster", t.ID, t.X0, t.W, t.Y0, t.H, r.Width, r.Height)
	}
	b := make([]byte, 0, 2*t.W*t.H)
	for y := t.Y0; y < t.Y0+t.H; y++ {
		for _, v := range r.DBm[y*r.Width+t.X0 : y*r.Width+t.X0+t.W] {
			b = binary.LittleEndian.AppendUint16(b, uint16(CentiDBm(v)))
		}
	}
	return base64.StdEncoding.EncodeToString(b), nil
}

// DecodeTile is the inverse of EncodeTile: w·h values in dBm, NaN for
// NoDataCentiDBm.
func DecodeTile(s string, w, h int) ([]float32, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("decode tile: %w", err)
	}
	if len(b) != 2*w*h {
		return nil, fmt.Errorf("decode tile: %d bytes for %d×%d pixels, want %d", len(b), w, h, 2*w*h)
	}
	out := make([]float32, w*h)
	for i := range out {
		c := int16(binary.LittleEndian.Uint16(b[2*i:]))
		if c == NoDataCentiDBm {
			out[i] = float32(math.NaN())
		} else {
			out[i] = float32(c) / 100
		}
	}
	return out, nil
}

// EncodeServers returns the best-server index of tile t of r (servers
// holds one index per pixel of r, −1 for no data) in the layout of
// EncodeTile: little-endian int16, base64.
func EncodeServers(r *Raster, servers []int32, t Tile) string {
	b := make([]byte, 0, 2*t.W*t.H)
	for y := t.Y0; y < t.Y0+t.H; y++ {
		for _, v := range servers[y*r.Width+t.X0 : y*r.Width+t.X0+t.W] {
			b = binary.LittleEndian.AppendUint16(b, uint16(int16(v)))
		}
	}
	return base64.StdEncoding.EncodeToString(b)
}
