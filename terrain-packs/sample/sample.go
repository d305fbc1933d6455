package sample

import (
	_ "embed"
)

// Name is the file name of the embedded pack (as in its manifest).
const Name = "rio.ltp"

//go:embed rio.ltp
var pack []byte

// Pack returns the embedded Rio de Janeiro terrain pack. The slice is
// shared: callers must not modify it.
func Pack() []byte { return pack }
