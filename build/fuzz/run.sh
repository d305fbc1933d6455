#!/bin/sh
# Runs every Go fuzz target of the module (or of the packages named in
# FUZZPKGS) for FUZZTIME each, one target at a time (go test fuzzes one
# target per run). A target that fails (a 500 from a route, a panic in a
# parser) stops with its input written under the package's
# testdata/fuzz/<target>/: commit it, it becomes part of the seed corpus
# that plain `go test` runs. FUZZ selects targets by regular expression.
#
#   make fuzz                          every target, 10 s each
#   make fuzz FUZZTIME=60s FUZZPKGS=./web/api FUZZ=Batch
set -eu
GO=${GO:-go}
FUZZTIME=${FUZZTIME:-10s}
FUZZPKGS=${FUZZPKGS:-./...}
FUZZ=${FUZZ:-.}
export LINKPLAN_SKIP_BROWSER=${LINKPLAN_SKIP_BROWSER:-1}
total=0
failed=""
for pkg in $($GO list $FUZZPKGS); do
	targets=$($GO test -list '^Fuzz' "$pkg" 2>/dev/null | grep '^Fuzz' | grep -E -- "$FUZZ" || true)
	for t in $targets; do
		total=$((total + 1))
		echo "== $pkg $t ($FUZZTIME)"
		if ! $GO test -run '^$' -fuzz "^$t\$" -fuzztime "$FUZZTIME" "$pkg" >"${TMPDIR:-/tmp}/fuzz-$t.log" 2>&1; then
			tail -n 30 "${TMPDIR:-/tmp}/fuzz-$t.log"
			failed="$failed $pkg.$t"
		else
			grep -E '^(fuzz: elapsed|ok|PASS)' "${TMPDIR:-/tmp}/fuzz-$t.log" | tail -n 2
		fi
	done
done
echo "fuzz: $total targets, $FUZZTIME each"
if [ -n "$failed" ]; then
	echo "fuzz: failed:$failed (inputs under testdata/fuzz/)"
	exit 1
fi
