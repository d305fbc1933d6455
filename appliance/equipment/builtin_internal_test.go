package equipment

import "testing"

func TestCheckBuiltins(t *testing.T) {
	if err := checkBuiltins(); err != nil {
		t.Fatal(err)
	}
}
