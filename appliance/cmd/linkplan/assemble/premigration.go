package assemble

import (
	"context"

	"linkplan/appliance/backup"
	"linkplan/store"
)

// PreMigrationBackup is the store.Options.BeforeMigrate of a command that
// opens a data directory outside serve (linkplan observations, model
// retrain): the same verified backup serve's openStore takes before a
// schema migration (preMigrationBackup), into backupDir, else
// DATA/backups. A failure leaves the file unmigrated.
func PreMigrationBackup(ctx context.Context, dataDir, backupDir, version string, check backup.Checker, logf func(msg string, args ...any)) func(db *store.DB, from, to int) error {
	return preMigrationBackup(ctx, backupDirOf(dataDir, backupDir), version, check, logf)
}
