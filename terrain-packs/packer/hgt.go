package packer

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"linkplan/terrain-packs/terrain"
)

// HGT sizes, bytes: 1″ (3601×3601) and 3″ (1201×1201) int16 big-endian.
const (
	hgt1Bytes = 3601 * 3601 * 2
	hgt3Bytes = 1201 * 1201 * 2
)

// TileFromFileName returns the tile named by an SRTM file name such as
// "S23W044.hgt", "s23w044.hgt.zip" or "S23W044.SRTMGL1.hgt.gz": the name
// is the part of the base name before the first dot.
func TileFromFileName(path string) (terrain.TileID, error) {
	base := filepath.Base(path)
	if i := strings.IndexByte(base, '.'); i >= 0 {
		base = base[:i]
	}
	t, err := terrain.ParseTileName(base)
	if err != nil {
		return terrain.TileID{}, fmt.Errorf("tile from file name %q: %w", path, err)
	}
	return t, nil
}

// ReadHGT reads an SRTM .hgt file (plain, .zip holding one .hgt, or .gz)
// and returns its samples (row-major, north row first, int16 metres, voids
// -32768) and its samples per degree (1200 or 3600).
func ReadHGT(path string) (samples []int16, samplesPerDegree int, err error) {
	raw, err := readHGTBytes(path)
	if err != nil {
		return nil, 0, fmt.Errorf("read hgt %s: %w", path, err)
	}
	s, spd, err := DecodeHGT(raw)
	if err != nil {
		return nil, 0, fmt.Errorf("read hgt %s: %w", path, err)
	}
	return s, spd, nil
}

// DecodeHGT decodes the bytes of an uncompressed .hgt file.
func DecodeHGT(raw []byte) (samples []int16, samplesPerDegree int, err error) {
	var n int
	switch len(raw) {
	case hgt3Bytes:
		n = 1201
	case hgt1Bytes:
		n = 3601
	default:
		return nil, 0, fmt.Errorf("decode hgt: %d bytes is neither 1201² nor 3601² int16 samples", len(raw))
	}
	s := make([]int16, n*n)
	for i := range s {
		s[i] = int16(binary.BigEndian.Uint16(raw[2*i:]))
	}
	return s, n - 1, nil
}

func readHGTBytes(path string) ([]byte, error) {
	lower := strings.ToLower(path)
	switch {
	case strings.HasSuffix(lower, ".zip"):
		zr, err := zip.OpenReader(path)
		if err != nil {
			return nil, fmt.Errorf("open zip: %w", err)
		}
		defer zr.Close()
		var found *zip.File
		for _, f := range zr.File {
			if strings.HasSuffix(strings.ToLower(f.Name), ".hgt") {
				if found != nil {
					return nil, fmt.Errorf("zip holds several .hgt files (%s, %s)", found.Name, f.Name)
				}
				found = f
			}
		}
		if found == nil {
			return nil, fmt.Errorf("zip holds no .hgt file")
		}
		rc, err := found.Open()
		if err != nil {
			return nil, fmt.Errorf("open %s in zip: %w", found.Name, err)
		}
		defer rc.Close()
		return readLimited(rc)
	case strings.HasSuffix(lower, ".gz"):
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		gr, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("gunzip: %w", err)
		}
		defer gr.Close()
		return readLimited(gr)
	default:
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return readLimited(f)
	}
}

// readLimited reads at most one 1″ tile plus one byte, so that a wrong
// file cannot exhaust memory.
func readLimited(r io.Reader) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(hgt3Bytes)
	if _, err := io.Copy(&buf, io.LimitReader(r, hgt1Bytes+1)); err != nil {
		return nil, fmt.Errorf("read samples: %w", err)
	}
	return buf.Bytes(), nil
}

// hgtGrid returns the samples per degree of an .hgt input from its
// uncompressed size, without decoding it: the file size, the zip entry's
// size, or the gzip trailer's ISIZE.
func hgtGrid(path string) (int, error) {
	var size int64
	lower := strings.ToLower(path)
	switch {
	case strings.HasSuffix(lower, ".zip"):
		zr, err := zip.OpenReader(path)
		if err != nil {
			return 0, fmt.Errorf("grid of %s: %w", path, err)
		}
		for _, f := range zr.File {
			if strings.HasSuffix(strings.ToLower(f.Name), ".hgt") {
				size = int64(f.UncompressedSize64)
				break
			}
		}
		zr.Close()
	case strings.HasSuffix(lower, ".gz"):
		f, err := os.Open(path)
		if err != nil {
			return 0, fmt.Errorf("grid of %s: %w", path, err)
		}
		defer f.Close()
		var tail [4]byte
		st, err := f.Stat()
		if err != nil || st.Size() < 18 {
			return 0, fmt.Errorf("grid of %s: not a gzip file", path)
		}
		if _, err := f.ReadAt(tail[:], st.Size()-4); err != nil {
			return 0, fmt.Errorf("grid of %s: %w", path, err)
		}
		size = int64(binary.LittleEndian.Uint32(tail[:]))
	default:
		st, err := os.Stat(path)
		if err != nil {
			return 0, fmt.Errorf("grid of %s: %w", path, err)
		}
		size = st.Size()
	}
	switch size {
	case hgt3Bytes:
		return 1200, nil
	case hgt1Bytes:
		return 3600, nil
	}
	return 0, fmt.Errorf("grid of %s: %d bytes is neither a 1″ nor a 3″ tile", path, size)
}
