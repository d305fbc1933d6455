package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"linkplan/appliance"
	"linkplan/appliance/backup"
	"linkplan/store"
)

// packHashes hashes the loaded terrain packs once per process (a national
// pack is gigabytes: the first backup pays for it, later ones reuse it;
// packs do not change while they are open).
type packHashes struct {
	once  sync.Once
	files []appliance.DataFile
	err   error
}

func (h *packHashes) get(ter *terrainSet, names []string) ([]appliance.DataFile, error) {
	h.once.Do(func() {
		for i, p := range ter.packs {
			name := "embedded:rio-sample"
			if i < len(names) {
				name = names[i]
			}
			sum, err := p.SHA256()
			if err != nil {
				h.err = fmt.Errorf("hash terrain pack %s: %w", name, err)
				return
			}
			h.files = append(h.files, appliance.DataFile{Name: name, SHA256: sum, Bytes: p.Info().FileBytes})
		}
	})
	return h.files, h.err
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
	return appliance.DataFile{Name: path, SHA256: hex.EncodeToString(h.Sum(nil)), Bytes: n}, nil
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
