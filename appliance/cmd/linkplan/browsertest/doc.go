// Package browsertest holds the browser tests of the web console (issue
// 27 and before): the real linkplan binary (internal/realbin) driven by a
// real headless Chromium (Debian's chromium) through the DevTools
// protocol. They are a package of their own so that go test runs them
// beside the other real-binary tests of appliance/cmd/linkplan instead of
// after them; both share one build of the binary (realbin.Binary).
//
// A new console test goes here (a file named *_browser_test.go); it
// starts its own appliance (startConsole) and tab (openConsole).
// LINKPLAN_SKIP_BROWSER=1 skips them; without the systemtools build tag
// they skip (appliance/tooltest), with it a missing chromium fails them.
package browsertest
