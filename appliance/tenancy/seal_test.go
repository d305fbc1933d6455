package tenancy

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestSealRoundTripAndTamper(t *testing.T) {
	const plain, id, secret = "lp_adm_0123456789abcdef0123456789abcdef01234567", "abc123def456", "JBSWY3DPEHPK3PXP"
	sealed, err := sealTOTP(plain, id, secret)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := sealTOTP(plain, id, secret)
	if again == sealed {
		t.Error("two seals are equal: the nonce is not random")
	}
	tests := []struct {
		name          string
		plain, id, in string
		want          string // "" means ErrSealed
	}{
		{name: "round trip", plain: plain, id: id, in: sealed, want: secret},
		{name: "another plain key", plain: plain + "0", id: id, in: sealed},
		{name: "moved to another key id", plain: plain, id: "000000000000", in: sealed},
		{name: "flipped byte", plain: plain, id: id, in: sealed[:10] + string(sealed[10]^1) + sealed[11:]},
		{name: "unknown scheme", plain: plain, id: id, in: "v2." + sealed[3:]},
		{name: "truncated", plain: plain, id: id, in: sealed[:12]},
		{name: "not base64", plain: plain, id: id, in: "v1.***"},
		{name: "empty", plain: plain, id: id, in: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := openTOTP(tc.plain, tc.id, tc.in)
			if tc.want == "" {
				if !errors.Is(err, ErrSealed) {
					t.Fatalf("got %q, %v; want ErrSealed", got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// FuzzOpenTOTP: any stored value either opens to what was sealed or is
// ErrSealed; never a panic.
func FuzzOpenTOTP(f *testing.F) {
	const plain, id = "lp_adm_fuzz", "fuzzkey00001"
	s, _ := sealTOTP(plain, id, "JBSWY3DPEHPK3PXP")
	f.Add(s)
	f.Add("v1.")
	f.Add("v1.AAAA")
	f.Add("")
	f.Fuzz(func(t *testing.T, in string) {
		got, err := openTOTP(plain, id, in)
		if err != nil && !errors.Is(err, ErrSealed) {
			t.Fatalf("error %v is not ErrSealed", err)
		}
		if err == nil && got != "JBSWY3DPEHPK3PXP" {
			t.Fatalf("opened %q to %q", in, got)
		}
	})
}

// FuzzReadCredentials: the credentials file parser refuses or reads any
// content without panicking, and what it reads has an admin key.
func FuzzReadCredentials(f *testing.F) {
	f.Add([]byte(`{"api_key":"lp_adm_00","totp_secret":"JBSWY3DPEHPK3PXP"}`))
	f.Add([]byte(`{"api_key":"lp_adm_00","totp_moved_unix":1790000000}`))
	f.Add([]byte(`{"api_key":"lp_live_00"}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, CredentialsFile), raw, 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := ReadCredentials(dir)
		if err != nil {
			return
		}
		if len(c.APIKey) < len("lp_adm_") {
			t.Fatalf("read %+v from %q", c, raw)
		}
		_, _, _ = c.Code(time.Unix(1_790_000_000, 0))
	})
}
