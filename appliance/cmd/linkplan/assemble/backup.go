package assemble

import (
	"context"
	"fmt"
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

// preMigrationBackup is store.Options.BeforeMigrate: before a schema
// migration, a verified backup of the file as it is goes into dir
// (--backup-dir, else DATA/backups). A failure stops the start: the file
// is not migrated without its backup.
func preMigrationBackup(ctx context.Context, dir, version string, check backup.Checker, logf func(msg string, args ...any)) func(db *store.DB, from, to int) error {
	return func(db *store.DB, from, to int) error {
		w := &backup.Writer{DB: db, Check: check, Version: version}
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
