package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"linkplan/appliance/tenancy"
)

const adminUsage = `usage:
  linkplan admin totp [--data-dir DIR] [--uri]
      print the current admin TOTP code (6 digits, for X-Admin-Totp) from
      DIR/admin-credentials.json; with --uri, print the otpauth:// URI to add
      the secret to an authenticator app instead
  linkplan admin totp-forget [--data-dir DIR] --code CODE
      remove the TOTP secret from DIR/admin-credentials.json once an
      authenticator holds it: CODE is the code the authenticator shows now
      (it proves the enrolment); the admin key stays in the file
Neither command opens the database: both work while the appliance runs.
`

// adminCmd runs the admin subcommands. now is the clock of the TOTP codes.
func adminCmd(_ context.Context, args []string, now func() time.Time, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, adminUsage)
		return fmt.Errorf("admin: a subcommand is required: %w", errUsage)
	}
	switch args[0] {
	case "totp":
		fs := newFlags("admin totp", stderr)
		dataDir := fs.String("data-dir", defaultDataDir(), "state directory holding admin-credentials.json")
		uri := fs.Bool("uri", false, "print the otpauth:// URI of the secret (for an authenticator) instead of a code")
		if err := fs.Parse(args[1:]); err != nil || fs.NArg() != 0 {
			fmt.Fprint(stderr, adminUsage)
			return fmt.Errorf("admin totp: %w", errUsage)
		}
		c, err := tenancy.ReadCredentials(*dataDir)
		if err != nil {
			return fmt.Errorf("admin totp: %w", err)
		}
		if *uri {
			u, err := c.URI()
			if err != nil {
				return fmt.Errorf("admin totp: %w", movedHint(err))
			}
			fmt.Fprintln(stdout, u)
			return nil
		}
		code, left, err := c.Code(now())
		if err != nil {
			return fmt.Errorf("admin totp: %w", movedHint(err))
		}
		fmt.Fprintln(stdout, code)
		fmt.Fprintf(stderr, "valid for %d s more; each code is accepted once\n", int(left.Seconds()))
		return nil
	case "totp-forget":
		fs := newFlags("admin totp-forget", stderr)
		dataDir := fs.String("data-dir", defaultDataDir(), "state directory holding admin-credentials.json")
		code := fs.String("code", "", "the code your authenticator shows now (required)")
		if err := fs.Parse(args[1:]); err != nil || fs.NArg() != 0 || *code == "" {
			fmt.Fprint(stderr, adminUsage)
			return fmt.Errorf("admin totp-forget: --code from the authenticator is required: %w", errUsage)
		}
		if err := tenancy.ForgetTOTPSecret(*dataDir, *code, now()); err != nil {
			return fmt.Errorf("admin totp-forget: %w", movedHint(err))
		}
		fmt.Fprintln(stdout, "the TOTP secret was removed from admin-credentials.json; read codes from your authenticator from now on")
		return nil
	}
	fmt.Fprint(stderr, adminUsage)
	return fmt.Errorf("admin: unknown subcommand %q: %w", args[0], errUsage)
}

// movedHint tells the operator where the codes come from once the secret
// left the file.
func movedHint(err error) error {
	if errors.Is(err, tenancy.ErrTOTPMoved) {
		return fmt.Errorf("%w: read the code from your authenticator app", err)
	}
	return err
}
