package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"linkplan/appliance"
	"linkplan/appliance/backup"
	"linkplan/appliance/datamanifest"
	"linkplan/store"
)

// dataFiles lists the terrain packs and tower sources in use, by the
// SHA-256 of the data manifest (the same names and hashes as GET
// /platform/maturity), waiting for hashes still being computed (a national
// pack: the first backup after a start may wait for it). A file that
// cannot be read is listed without a hash.
func dataFiles(ctx context.Context, d *datamanifest.Service) (terrain, towers []appliance.DataFile, err error) {
	m, err := d.Wait(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("data manifest: %w", err)
	}
	conv := func(es []appliance.DataManifestEntry) []appliance.DataFile {
		out := make([]appliance.DataFile, len(es))
		for i, e := range es {
			out[i] = appliance.DataFile{Name: e.Name, SHA256: e.SHA256, Bytes: e.Bytes}
		}
		return out
	}
	return conv(m.TerrainPacks), conv(m.TowerSources), nil
}

// hashTowerSources hashes the tower files installed in dataDir (the
// offline backup's record of the sources: no catalogue is loaded there).
func hashTowerSources(dataDir string) ([]appliance.DataFile, error) {
	files, err := installedSources(dataDir)
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

// preMigrationBackup is store.Options.BeforeMigrate: before a schema
// migration, a verified backup of the file as it is goes into dir
// (--backup-dir, else DATA/backups). A failure stops the start: the file
// is not migrated without its backup.
func preMigrationBackup(ctx context.Context, dir string, logf func(msg string, args ...any)) func(db *store.DB, from, to int) error {
	return func(db *store.DB, from, to int) error {
		w := &backup.Writer{DB: db, Check: checkIsolated, Version: version()}
		path, err := backup.WritePreMigration(ctx, w, dir, from, to)
		if err != nil {
			return err
		}
		logf("database backed up before its schema migration", "from_schema", from, "to_schema", to, "file", path)
		return nil
	}
}

// backupDirOf is where backups go that have no other place: the scheduled
// backups' directory, else DATA/backups.
func backupDirOf(dataDir, backupDir string) string {
	if backupDir != "" {
		return backupDir
	}
	return filepath.Join(dataDir, "backups")
}
