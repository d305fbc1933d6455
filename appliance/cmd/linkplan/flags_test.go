package main

import (
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestParseWithEnv: serve's flags come from the command line, then from
// LINKPLAN_<FLAG> (the packaged /etc/linkplan/linkplan.conf), then from
// their defaults.
func TestParseWithEnv(t *testing.T) {
	type got struct {
		addr    string
		every   time.Duration
		sig     bool
		packs   []string
		applied []string
		over    []string
		unknown []string
	}
	cases := []struct {
		name    string
		args    []string
		env     []string
		want    got
		wantErr string // "" none; else a substring of the usage error
	}{
		{name: "defaults", want: got{addr: "127.0.0.1:8080", every: time.Minute}},
		{name: "environment sets each kind of flag",
			env: []string{"LINKPLAN_ADDR=0.0.0.0:9000", "LINKPLAN_REFRESH_INTERVAL=2h", "LINKPLAN_OBSERVATION_REQUIRE_SIGNATURE=true",
				"LINKPLAN_TERRAIN=/var/lib/linkplan/terrain/north.ltp  /var/lib/linkplan/terrain/south.ltp", "PATH=/usr/bin"},
			want: got{addr: "0.0.0.0:9000", every: 2 * time.Hour, sig: true, packs: []string{"/var/lib/linkplan/terrain/north.ltp", "/var/lib/linkplan/terrain/south.ltp"},
				applied: []string{"LINKPLAN_ADDR", "LINKPLAN_OBSERVATION_REQUIRE_SIGNATURE", "LINKPLAN_REFRESH_INTERVAL", "LINKPLAN_TERRAIN"}}},
		{name: "command line wins over the environment",
			args: []string{"--addr", "127.0.0.1:0", "--terrain", "cli.ltp"},
			env:  []string{"LINKPLAN_ADDR=0.0.0.0:9000", "LINKPLAN_TERRAIN=env.ltp"},
			want: got{addr: "127.0.0.1:0", every: time.Minute, packs: []string{"cli.ltp"}, over: []string{"LINKPLAN_ADDR", "LINKPLAN_TERRAIN"}}},
		{name: "empty value keeps the default", env: []string{"LINKPLAN_ADDR=", "LINKPLAN_REFRESH_INTERVAL=  "},
			want: got{addr: "127.0.0.1:8080", every: time.Minute}},
		{name: "unknown LINKPLAN_ variables are reported, others ignored",
			env:  []string{"LINKPLAN_ADRR=0.0.0.0:1", "LINKPLAN_SKIP_BROWSER=1", "HOME=/root"},
			want: got{addr: "127.0.0.1:8080", every: time.Minute, unknown: []string{"LINKPLAN_ADRR", "LINKPLAN_SKIP_BROWSER"}}},
		{name: "a bad value names the variable", env: []string{"LINKPLAN_REFRESH_INTERVAL=soon"},
			wantErr: `LINKPLAN_REFRESH_INTERVAL="soon" (--refresh-interval)`},
		{name: "a bad boolean names the variable", env: []string{"LINKPLAN_OBSERVATION_REQUIRE_SIGNATURE=maybe"},
			wantErr: "LINKPLAN_OBSERVATION_REQUIRE_SIGNATURE"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs := newFlags("serve", io.Discard)
			addr := fs.String("addr", "127.0.0.1:8080", "")
			every := fs.Duration("refresh-interval", time.Minute, "")
			sig := fs.Bool("observation-require-signature", false, "")
			var packs multi
			fs.Var(&packs, "terrain", "")
			set, err := parseWithEnv(fs, c.args, c.env)
			if c.wantErr != "" {
				if err == nil || !errors.Is(err, errUsage) || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err %v, want a usage error with %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			g := got{addr: *addr, every: *every, sig: *sig, packs: packs, applied: set.Applied, over: set.Overridden, unknown: set.Unknown}
			slices.Sort(g.applied)
			if g.addr != c.want.addr || g.every != c.want.every || g.sig != c.want.sig || !slices.Equal(g.packs, c.want.packs) ||
				!slices.Equal(g.applied, c.want.applied) || !slices.Equal(g.over, c.want.over) || !slices.Equal(g.unknown, c.want.unknown) {
				t.Errorf("got %+v\nwant %+v", g, c.want)
			}
		})
	}
}

func TestEnvName(t *testing.T) {
	for flagName, want := range map[string]string{"addr": "LINKPLAN_ADDR", "data-dir": "LINKPLAN_DATA_DIR", "oidc-client-secret-file": "LINKPLAN_OIDC_CLIENT_SECRET_FILE"} {
		if got := envName(flagName); got != want {
			t.Errorf("envName(%q) = %q, want %q", flagName, got, want)
		}
	}
}
