package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/VictoriaMetrics/metrics"

	"linkplan/appliance"
	"linkplan/appliance/planner"
	"linkplan/appliance/tenancy"
	"linkplan/engines/fspl"
	"linkplan/store"
	"linkplan/store/spatial"
	"linkplan/web"
	"linkplan/web/api"
)

func serve(ctx context.Context, args []string, stderr io.Writer) error {
	fs := newFlags("serve", stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "listen address")
	dataDir := fs.String("data-dir", defaultDataDir(), "state directory (database, credentials)")
	logLevel := fs.String("log-level", "info", "debug, info, warn or error")
	var packs, towerFiles multi
	fs.Var(&packs, "terrain", "terrain pack file (repeatable); default: the embedded Rio de Janeiro sample")
	fs.Var(&towerFiles, "towers", "tower file in any supported format (repeatable); default: the embedded sample towers")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("serve: %w", errUsage)
	}
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(*logLevel)); err != nil {
		return fmt.Errorf("serve: --log-level: %w", errUsage)
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: lvl}))
	set := metrics.NewSet()

	// Start order: store, terrain, indexes, engines, web; then ready.
	db, err := store.Open(*dataDir, store.Options{})
	if err != nil {
		return err
	}
	defer db.Close() // closed last: everything above writes through it
	auth := tenancy.New(db, nil)
	credPath, createdCred, err := auth.Bootstrap(*dataDir)
	if err != nil {
		return err
	}
	if createdCred {
		log.Info("created admin credentials; keep this file safe", "path", credPath)
	} else {
		log.Info("admin credentials", "path", credPath)
	}

	ter, terrainDesc, err := openTerrain(packs)
	if err != nil {
		return err
	}
	towers, stats, err := loadTowers(ter, towerFiles)
	if err != nil {
		return err
	}
	user, err := db.UserTowers()
	if err != nil {
		return err
	}
	all := append(towers, user...)
	index := spatial.New(all)
	log.Info("towers loaded", "total", len(all), "regulator", stats.Regulator, "crowd", stats.Crowd,
		"synthetic", stats.Synthetic, "user", len(user), "rejected_rows", stats.Rejected, "source", stats.Source)

	fsplEngine := fspl.New()
	lookup := func(id appliance.EngineID) (appliance.Engine, error) {
		switch id {
		case "", appliance.EngineFSPL:
			return fsplEngine, nil
		}
		return nil, appliance.Invalid("engine", "engine %q is not available; available: fspl", id)
	}
	plan := planner.New(ter, func() appliance.TowerIndex { return index }, lookup)

	a := api.New(api.Deps{
		Auth: auth, Links: plan, Towers: func() appliance.TowerIndex { return index }, Upsert: index.Upsert,
		TowerDB: db, Audit: db, Metrics: set, Log: log, Version: version(), Offline: true,
		TerrainDescription: terrainDesc,
		Checks: []api.Check{
			{Name: "database", Fn: func(context.Context) error { return db.Ping() }},
			{Name: "terrain", Fn: func(context.Context) error { return ter.Check() }},
			{Name: "towers", Fn: func(context.Context) error {
				if index.Len() == 0 {
					return errors.New("no tower loaded")
				}
				return nil
			}},
		},
	})
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("serve: listen %s: %w", *addr, err)
	}
	srv := web.New(a, log)
	a.SetState(api.StateReady)
	log.Info("linkplan serving", "addr", ln.Addr().String(), "version", version(), "data_dir", *dataDir, "terrain", terrainDesc)
	err = srv.Serve(ctx, ln, func() { a.SetState(api.StateStopping) })
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	log.Info("linkplan stopped")
	return err
}

// defaultDataDir is systemd's $STATE_DIRECTORY when set, else ./.data.
func defaultDataDir() string {
	if d := os.Getenv("STATE_DIRECTORY"); d != "" {
		return strings.Split(d, ":")[0]
	}
	return filepath.Join(".", ".data")
}
