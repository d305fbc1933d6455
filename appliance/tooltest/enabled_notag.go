//go:build !systemtools

package tooltest

const enabled = false
