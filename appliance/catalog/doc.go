// Package catalog is the tower catalogue's data path.
package catalog
