package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"linkplan/appliance/cmd/linkplan/assemble"
	"os"
	"path/filepath"

	"linkplan/appliance"
)

// hashTowerSources hashes the tower files installed in dataDir (the
// offline backup's record of the sources: no catalogue is loaded there).
func hashTowerSources(dataDir string) ([]appliance.DataFile, error) {
	files, err := assemble.InstalledSources(dataDir)
	if err != nil {
		return nil, err
	}
	out := make([]appliance.DataFile, 0, len(files))
	for _, f := range files {
		d, err := hashFile(f)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

func hashFile(path string) (appliance.DataFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return appliance.DataFile{}, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return appliance.DataFile{}, fmt.Errorf("hash %s: %w", path, err)
	}
	return appliance.DataFile{Name: filepath.Base(path), SHA256: hex.EncodeToString(h.Sum(nil)), Bytes: n}, nil
}
