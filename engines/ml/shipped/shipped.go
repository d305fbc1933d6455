// Package shipped holds the model artifacts built into the binary: the
// set the serving side (appliance/prediction) uses while the state
// directory has no models/current/ of its own. README.md gives each
// file's provenance.
package shipped

import (
	"embed"
	"io/fs"
)

//go:embed *.json
var files embed.FS

// FS returns the shipped artifacts (read-only).
func FS() fs.FS { return files }
