package seal_test

import (
	"bytes"
	"errors"
	"testing"

	"linkplan/appliance/seal"
)

func TestSealOpen(t *testing.T) {
	t.Parallel()
	sealed, err := seal.Seal("secret", "id-1", "linkplan test v1", []byte("the plain value"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := seal.Open("secret", "id-1", "linkplan test v1", sealed)
	if err != nil || string(got) != "the plain value" {
		t.Fatalf("open: %q, %v", got, err)
	}
	again, _ := seal.Seal("secret", "id-1", "linkplan test v1", []byte("the plain value"))
	if bytes.Equal(again, sealed) {
		t.Error("two seals of the same value are equal: the nonce is not random")
	}
	tampered := append([]byte(nil), sealed...)
	tampered[len(tampered)-1] ^= 1
	for _, tc := range []struct {
		name, secret, id, info string
		sealed                 []byte
	}{
		{"another secret", "other", "id-1", "linkplan test v1", sealed},
		{"another id", "secret", "id-2", "linkplan test v1", sealed},
		{"another info", "secret", "id-1", "linkplan test v2", sealed},
		{"tampered", "secret", "id-1", "linkplan test v1", tampered},
		{"too short", "secret", "id-1", "linkplan test v1", sealed[:20]},
		{"empty", "secret", "id-1", "linkplan test v1", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := seal.Open(tc.secret, tc.id, tc.info, tc.sealed); !errors.Is(err, seal.ErrOpen) {
				t.Errorf("open: %v, want ErrOpen", err)
			}
		})
	}
}
