package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"linkplan/appliance/tenancy"
	"linkplan/store"
)

// TestAdminTOTPCommands covers linkplan admin totp and totp-forget on a
// bootstrapped data directory (issue 7, findings 6 and 10: a TOTP code
// without oathtool, and moving the secret to an authenticator).
func TestAdminTOTPCommands(t *testing.T) {
	dir := t.TempDir()
	db, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := tenancy.New(db, nil).Bootstrap(dir); err != nil {
		t.Fatal(err)
	}
	// The appliance keeps running (the database stays locked): the
	// commands read only the credentials file.
	defer db.Close()
	c, err := tenancy.ReadCredentials(dir)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_790_000_015, 0)
	clock := func() time.Time { return now }
	want, _ := totp.GenerateCode(c.TOTPSecret, now)
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string // regexp the whole stdout must match
		stderr string // substring
	}{
		{name: "no subcommand", args: []string{"admin"}, code: 2, stderr: "usage:"},
		{name: "unknown subcommand", args: []string{"admin", "nope"}, code: 2, stderr: `unknown subcommand "nope"`},
		{name: "current code", args: []string{"admin", "totp", "--data-dir", dir}, stdout: "^" + want + "\n$", stderr: "valid for 25 s"},
		{name: "uri", args: []string{"admin", "totp", "--uri", "--data-dir", dir}, stdout: "^otpauth://totp/linkplan:admin-[0-9a-f]{12}\\?.*secret=" + c.TOTPSecret + ".*\n$"},
		{name: "no credentials file", args: []string{"admin", "totp", "--data-dir", t.TempDir()}, code: 1, stderr: "no such file"},
		{name: "forget without code", args: []string{"admin", "totp-forget", "--data-dir", dir}, code: 2, stderr: "--code"},
		{name: "forget with a wrong code", args: []string{"admin", "totp-forget", "--data-dir", dir, "--code", "12345x"}, code: 1, stderr: "does not match"},
		{name: "forget with the authenticator's code", args: []string{"admin", "totp-forget", "--data-dir", dir, "--code", want}, stdout: "removed from admin-credentials.json"},
		{name: "code after forget", args: []string{"admin", "totp", "--data-dir", dir}, code: 1, stderr: "read the code from your authenticator"},
		{name: "forget twice", args: []string{"admin", "totp-forget", "--data-dir", dir, "--code", want}, code: 1, stderr: "moved to an authenticator"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := 0
			if err := adminCmd(context.Background(), tc.args[1:], clock, &stdout, &stderr); err != nil {
				stderr.WriteString(err.Error())
				code = 1
				if isUsage(err) {
					code = 2
				}
			}
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stdout %q stderr %q", code, tc.code, stdout.String(), stderr.String())
			}
			if tc.stdout != "" && !regexp.MustCompile(tc.stdout).MatchString(stdout.String()) {
				t.Errorf("stdout %q does not match %q", stdout.String(), tc.stdout)
			}
			if !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("stderr %q lacks %q", stderr.String(), tc.stderr)
			}
		})
	}
	raw, _ := os.ReadFile(filepath.Join(dir, tenancy.CredentialsFile))
	if bytes.Contains(raw, []byte(c.TOTPSecret)) || !bytes.Contains(raw, []byte(c.APIKey)) {
		t.Errorf("credentials file after forget: %s", raw)
	}
}

// TestAdminDispatch: run dispatches the admin command.
func TestAdminDispatch(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"admin"}, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "totp-forget") {
		t.Errorf("linkplan admin: exit %d, stderr %q", code, stderr.String())
	}
}
