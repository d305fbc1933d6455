package packer_test

import (
	"os"
	"path/filepath"
	"testing"

	"linkplan/terrain-packs/packer"
)

func TestNotDEM(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"S23W044.hgt", "s23w044.hgt.zip", "S23W044.SRTMGL1.hgt.zip", "S23W044.hgt.gz", "S23W044.zip", "S23W044.gz",
		"S23W044", "mapbiomas.TIF", "dem.tiff", "notatile.hgt", "README.txt", "S23W044.hgt.md5", "S23W044.txt", "dem.tif.aux.xml", "checksums.sha256"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if why := packer.NotDEM(filepath.Join(dir, "missing.txt")); why != "" {
		t.Errorf("a missing path is skipped (%q): Build must report it", why)
	}
	for _, tc := range []struct {
		name string
		dem  bool
	}{
		{"S23W044.hgt", true},
		{"s23w044.hgt.zip", true},
		{"S23W044.SRTMGL1.hgt.zip", true},
		{"S23W044.hgt.gz", true},
		{"S23W044.zip", true},
		{"S23W044.gz", true},
		{"S23W044", true},
		{"mapbiomas.TIF", true},
		{"dem.tiff", true},
		{"notatile.hgt", true}, // a DEM ending: Build refuses the name, it is not skipped
		{"README.txt", false},
		{"S23W044.hgt.md5", false},
		{"S23W044.txt", false},
		{"dem.tif.aux.xml", false},
		{"checksums.sha256", false},
		{"sub", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			why := packer.NotDEM(filepath.Join(dir, tc.name))
			if (why == "") != tc.dem {
				t.Errorf("NotDEM(%s) = %q, want DEM %v", tc.name, why, tc.dem)
			}
		})
	}
}
