//go:build systemtools

package main_test

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// packagedConf is the settings file the Debian package installs as
// /etc/linkplan/linkplan.conf.
const packagedConf = "../../../build/deb/linkplan.conf"

// notYetFlags are settings the packaged file documents for serve flags that
// other branches of issue 20/21 add (backup and start-up checks; heavy-work
// admission; the decode budget). Each may or may not be a
// flag of this binary; once all are merged, this list can go.
var notYetFlags = []string{
	"backup-dir", "backup-every", "backup-keep", "db-check",
	"heavy-workers", "heavy-queue", "heavy-memory-mib", "decode-budget-mib",
}

// TestIssue21_PackagedConfNamesEveryServeFlag: every LINKPLAN_ name in the
// packaged linkplan.conf (set or commented) is a flag of `linkplan serve`
// (a typo would be ignored with a warning at start), and every serve flag
// is documented there, so the file cannot drift from the binary.
func TestIssue21_PackagedConfNamesEveryServeFlag(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	stdout, stderr, _ := runCLI(t, bin, "serve", "-h")
	usage := stdout + stderr // help goes to stdout since every command answers -h there
	flagRE := regexp.MustCompile(`(?m)^\s+-([a-z0-9-]+)`)
	var flags []string
	for _, m := range flagRE.FindAllStringSubmatch(usage, -1) {
		flags = append(flags, m[1])
	}
	if len(flags) < 20 {
		t.Fatalf("serve -h listed %d flags:\n%s", len(flags), usage)
	}
	raw, err := os.ReadFile(packagedConf)
	if err != nil {
		t.Fatal(err)
	}
	nameRE := regexp.MustCompile(`(?m)^(#?)(LINKPLAN_[A-Z0-9_]+)=`)
	documented := map[string]bool{}
	for _, m := range nameRE.FindAllStringSubmatch(string(raw), -1) {
		flag := strings.ToLower(strings.ReplaceAll(strings.TrimPrefix(m[2], "LINKPLAN_"), "_", "-"))
		documented[flag] = true
		if !slices.Contains(flags, flag) && !slices.Contains(notYetFlags, flag) {
			t.Errorf("%s names no serve flag (--%s)", m[2], flag)
		}
	}
	for _, f := range flags {
		if !documented[f] {
			t.Errorf("serve flag --%s is not documented in build/deb/linkplan.conf (add LINKPLAN_%s, commented with its default)",
				f, strings.ToUpper(strings.ReplaceAll(f, "-", "_")))
		}
	}
}
