#!/usr/bin/env bash
# Regenerates engines/ml/h3/testdata/h3ref: the answers of the pinned h3-js
# (this folder's package-lock.json) to the questions of engines/ml/h3's
# reference tests, which plain go test reads instead of running Node.js.
# Needs Node.js and npm (Debian's nodejs and npm packages will do).
set -euo pipefail
cd "$(dirname "$0")"
npm ci --no-audit --no-fund --loglevel=error
cd ../../engines/ml/h3
rm -rf testdata/h3ref
H3REF=update go test -count=1 .
ls -l testdata/h3ref
