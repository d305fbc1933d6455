package packer

import (
	"os"
	"path/filepath"
	"strings"

	"linkplan/terrain-packs/terrain"
)

// NotDEM returns why Build would not read path as a DEM input, or "" when
// it would: a directory, or a file that is neither a GeoTIFF (.tif, .tiff)
// nor an SRTM file (ending .hgt, .hgt.zip or .hgt.gz, or named after its
// tile and ending .zip, .gz or nothing: "S23W044.zip"). README.txt,
// checksum files and GDAL .aux.xml sidecars are not DEMs: `linkplan terrain
// build DIR/*` skips them with a note. A file with an .hgt ending whose
// name is not a tile, and a path that does not exist, are still given to
// Build, which refuses them: a glob never names those, a typo does.
func NotDEM(path string) string {
	st, err := os.Stat(path)
	switch {
	case err != nil:
		return "" // a missing or unreadable path: Build reports it
	case st.IsDir():
		return "a directory"
	}
	lower := strings.ToLower(filepath.Base(path))
	if isGeoTIFF(lower) || strings.HasSuffix(lower, ".hgt") || strings.HasSuffix(lower, ".hgt.zip") || strings.HasSuffix(lower, ".hgt.gz") {
		return ""
	}
	base := filepath.Base(path)
	name, rest, _ := strings.Cut(base, ".")
	if _, err := terrain.ParseTileName(name); err == nil {
		switch strings.ToLower(rest) {
		case "", "zip", "gz":
			return ""
		}
	}
	return "not a DEM: want a GeoTIFF (.tif, .tiff) or an SRTM tile file (S23W044.hgt, .hgt.zip, .hgt.gz, .zip, .gz)"
}
