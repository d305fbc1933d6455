//go:build noconsole

package console

import (
	"io/fs"
	"testing/fstest"
)

// Files returns no file: a headless build (go build -tags noconsole)
// serves the API only, and every console path answers 404.
func Files() fs.FS { return fstest.MapFS{} }
