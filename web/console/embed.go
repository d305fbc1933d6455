//go:build !noconsole

package console

import (
	"embed"
	"io/fs"
)

//go:embed all:dist
var embedded embed.FS

// Files returns the committed console build (web/console/dist) embedded in
// the binary, rooted at dist.
func Files() fs.FS {
	sub, err := fs.Sub(embedded, "dist")
	if err != nil {
		// fs.Sub fails only for an invalid path name; "dist" is valid.
		panic(err)
	}
	return sub
}
