// Package gopmcheck checks package pmtiles against go-pmtiles (tests
// only; see gopm_test.go).
package gopmcheck
