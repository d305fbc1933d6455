#!/usr/bin/env bash
# Side-by-side coverage benchmark against SPLAT! (issue 9): `make bench-splat`.
#
# For each map it runs SPLAT! 1.4.2 (Debian package `splat`, ITM via -olditm)
# and `linkplan coverage` on the same transmitter, radius, receiver height,
# ITM parameters and terrain, times both, then compares the rasters pixel by
# pixel (build/bench-splat/compare.go) and prints one line per map:
#
#   map=<name> splat_s=<s> ours_s=<s> ratio=<x> median_abs_delta_db=<x> p95_abs_delta_db=<x>
#   map=<name>-1core ...      (ours with GOMAXPROCS=1; SPLAT! is single-threaded anyway)
#
# Maps: rio30 and rio50 (Sumaré, 30 and 50 km, SRTM3 3″ grid); with SRTM1=1
# also srtm1-50 (SRTM1 1″ tile S46W066 against splat-hd, 50 km).
#
# Environment:
#   LINKPLAN    linkplan binary (default: built from this checkout into $BENCH_WORK)
#   BENCH_WORK  work directory (default build/bench-splat/work, git-ignored)
#   SRTM1=1     also run the optional 1″ map srtm1-50
#   MAPS        maps to run, space-separated (default "rio30 rio50", plus srtm1-50 with SRTM1=1)
#
# SEA-TILE CAVEAT. SPLAT! silently treats every tile it has no .sdf for as
# sea level. Of the four tiles that a 30 or 50 km circle around Sumaré
# touches, only S23W044 is in the sample: S23W043 (Niterói, Maricá: land!)
# is absent, S24W044 and S24W043 are open sea. So that both programs compute
# the same pixels, our pack for this benchmark is built with every absent tile
# declared sea (`linkplan terrain build --sea ...`). This is a benchmark-only
# pack: the appliance's own packs never invent sea, and its coverage marks
# missing terrain as no-data.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$ROOT/build/bench-splat
WORK=${BENCH_WORK:-$HERE/work}
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
TESTDATA=$ROOT/terrain-packs/testdata
SHARED=$ROOT/../shared/data/terrain

say() { echo "bench-splat: $*" >&2; }
die() { echo "bench-splat: FAIL: $*" >&2; exit 1; }

# --- common parameters (both sides) -----------------------------------------
FREQ_MHZ=700     # MHz
RX_H_M=10        # receiver height above ground, metres
TX_H_M=50        # transmitter height above ground, metres
EIRP_DBM=60      # our rasters are dBm = EIRP - loss; compare.go takes loss = EIRP - dBm
# ITM: the itm engine's defaults (engines/params.go, engines/adapter_itm.go):
# ground eps 15, sigma 0.005 S/m, vertical polarization, 50 % time /
# location / situation; climate 3 (maritime subtropical: what the engine's
# Brazil rule picks for every path around Rio, within 100 km of the coast)
# with its tabulated N0 = 370 N-units (no refractivity maps configured).
# Both programs reduce N0 to Ns = N0*exp(-h_sys/9460 m) per path.
ITM_EPS=15 ITM_SIGMA=0.005 ITM_CLIMATE=3 ITM_N0=370 ITM_POL=1 # 1 = vertical (SPLAT!)

declare -A LAT LON RADIUS_KM GRID RES_M TITLE
LAT[rio30]=-22.9516 LON[rio30]=-43.2372 RADIUS_KM[rio30]=30 GRID[rio30]=srtm3 RES_M[rio30]=90 TITLE[rio30]=Sumare
LAT[rio50]=-22.9516 LON[rio50]=-43.2372 RADIUS_KM[rio50]=50 GRID[rio50]=srtm3 RES_M[rio50]=90 TITLE[rio50]=Sumare
# srtm1-50: the highest sample of S46W066 (146 m, Chubut coast, Argentina).
LAT[srtm1-50]=-45.0247222 LON[srtm1-50]=-65.6288889 RADIUS_KM[srtm1-50]=50 GRID[srtm1-50]=srtm1 RES_M[srtm1-50]=30 TITLE[srtm1-50]=S46W066-hill

if [ -z "${MAPS:-}" ]; then
  MAPS="rio30 rio50"
  if [ "${SRTM1:-0}" = 1 ]; then MAPS="$MAPS srtm1-50"; fi
fi

# --- SPLAT! -------------------------------------------------------------------
if ! command -v splat >/dev/null 2>&1 || ! command -v srtm2sdf >/dev/null 2>&1; then
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
  say "installing the Debian package splat"
  $SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq
  $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq splat >/dev/null
fi
SPLAT_VERSION=$(dpkg-query -W -f '${Version}' splat 2>/dev/null || echo unknown)
say "SPLAT! package $SPLAT_VERSION ($(splat 2>&1 | grep -o 'SPLAT! v[0-9.]*' | head -1))"

# Our small Go helper: tile lists and the comparison.
(cd "$ROOT" && go build -o "$WORK/bench-splat" ./build/bench-splat)

# tilefile GRID NAME: the repository's copy of an SRTM tile, or ../shared's.
tilefile() {
  local grid=$1 name=$2 f
  for f in "$TESTDATA/$name.hgt.zip" "$TESTDATA/$name.hgt.gz" "$TESTDATA/$name.hgt"; do
    if [ -f "$f" ]; then echo "$f"; return 0; fi
  done
  for f in "$SHARED/$grid/$name.hgt.zip" "$SHARED/$grid/$name.hgt.gz"; do
    if [ -f "$f" ]; then
      say "NOTE: $name is not in the repository (terrain-packs/testdata); using the shared copy $f"
      echo "$f"; return 0
    fi
  done
  return 1
}

# unpack SRC DIR: the raw .hgt of a .hgt(.zip|.gz) in DIR; prints its path.
unpack() {
  local src=$1 dir=$2 base
  base=$(basename "$src"); base=${base%.zip}; base=${base%.gz}; base=${base%.hgt}
  case "$src" in
    *.zip) unzip -o -q "$src" -d "$dir" ;;
    *.gz) gunzip -c "$src" > "$dir/$base.hgt" ;;
    *) cp "$src" "$dir/$base.hgt" ;;
  esac
  [ -f "$dir/$base.hgt" ] || die "$src did not unpack to $base.hgt"
  echo "$dir/$base.hgt"
}

TIMEFORMAT='%R %U %S' # bash's time: wall user sys, seconds

for m in $MAPS; do
  [ -n "${LAT[$m]:-}" ] || die "unknown map $m (known: ${!LAT[*]})"
  d=$WORK/$m
  rm -rf "$d"; mkdir -p "$d/sdf" "$d/hgt"
  grid=${GRID[$m]}
  if [ "$grid" = srtm1 ]; then SPLAT=splat-hd S2S=srtm2sdf-hd; else SPLAT=splat S2S=srtm2sdf; fi
  command -v $SPLAT >/dev/null || die "$SPLAT not installed"
  present="" sea=""
  for t in $("$WORK/bench-splat" tiles -lat "${LAT[$m]}" -lon "${LON[$m]}" -radius-km "${RADIUS_KM[$m]}"); do
    if f=$(tilefile "$grid" "$t"); then
      present="$present $f"
      hgt=$(unpack "$f" "$d/hgt")
      # -d /dev/null: no USGS data to fill voids from; SPLAT! then fills
      # them by averaging neighbours (our packer interpolates them too).
      (cd "$d/hgt" && $S2S -d /dev/null "$(basename "$hgt")" >/dev/null && mv ./*.sdf "$d/sdf/")
    else
      sea="$sea${sea:+,}$t"
    fi
  done
  rm -rf "$d/hgt"
  [ -n "$present" ] || die "map $m: none of its tiles is available"
  echo "bench-splat: map $m: tiles present:$(for f in $present; do printf ' %s' "$(basename "$f")"; done);" \
    "absent, treated as SEA LEVEL on both sides (SPLAT! does so silently): ${sea:-none}" >&2

  # SPLAT! site file: name, latitude (north +), longitude in degrees WEST
  # (0..360), antenna height ("meters": else feet).
  lonw=$(awk -v x="${LON[$m]}" 'BEGIN { w = -x; if (w < 0) w += 360; printf "%.7f", w }')
  printf '%s\n%s\n%s\n%s meters\n' "${TITLE[$m]}" "${LAT[$m]}" "$lonw" "$TX_H_M" > "$d/tx.qth"
  # ITM parameters; no ERP line, so the -ano file holds path loss in dB.
  cat > "$d/tx.lrp" <<EOF
$ITM_EPS	; Earth Dielectric Constant (Relative permittivity)
$ITM_SIGMA	; Earth Conductivity (Siemens per meter)
$ITM_N0	; Atmospheric Bending Constant (N-units)
$FREQ_MHZ	; Frequency in MHz (20 MHz to 20 GHz)
$ITM_CLIMATE	; Radio Climate (3 = Maritime Subtropical)
$ITM_POL	; Polarization (0 = Horizontal, 1 = Vertical)
0.50	; Fraction of situations (50% of locations)
0.50	; Fraction of time (50% of the time)
EOF
  # -metric: -L in metres, -R in km. -olditm: Longley-Rice ITM 1.2.2
  # rather than ITWOM. -ano: one line per computed pixel.
  say "map $m: $SPLAT -t tx.qth -L $RX_H_M -R ${RADIUS_KM[$m]} -metric -olditm -ano splat.ano -o splat -d sdf/"
  (cd "$d" && { time $SPLAT -t tx.qth -L "$RX_H_M" -R "${RADIUS_KM[$m]}" -metric -olditm \
      -ano splat.ano -o splat -d "$d/sdf/" >splat.log 2>&1; } 2>splat.time) \
    || { tail -20 "$d/splat.log" >&2; die "map $m: $SPLAT failed"; }
  read -r sw su ss < "$d/splat.time"
  n=$(grep -c -v ';' "$d/splat.ano" || true)
  nf=$(grep -c '\*' "$d/splat.ano" || true)
  echo "bench-splat: map $m: SPLAT! wall ${sw}s cpu $(awk -v u="$su" -v s="$ss" 'BEGIN{print u+s}')s, $n pixels, $nf flagged (obstructed)" >&2
  [ "$n" -gt 0 ] || die "map $m: SPLAT! wrote no pixel"
  rm -rf "$d/sdf"
done

# --- ours ---------------------------------------------------------------------
if [ -z "${LINKPLAN:-}" ]; then
  LINKPLAN=$WORK/linkplan
  say "building $LINKPLAN"
  (cd "$ROOT" && CGO_ENABLED=0 go build -o "$LINKPLAN" ./appliance/cmd/linkplan)
fi
help=$("$LINKPLAN" coverage --help 2>&1 || true)
if grep -q 'unknown command' <<<"$help"; then
  die "linkplan coverage CLI missing ($LINKPLAN has no 'coverage' command): the SPLAT! half ran, see above"
fi
missing=""
for f in site eirp-dbm frequency-mhz radius-km rx-height-m engine resolution-m terrain itm-climate itm-n0 out; do
  grep -q -- "-$f\b" <<<"$help" || missing="$missing --$f"
done
[ -z "$missing" ] || die "linkplan coverage CLI lacks the flags:$missing"

for m in $MAPS; do
  d=$WORK/$m
  present="" sea=""
  for t in $("$WORK/bench-splat" tiles -lat "${LAT[$m]}" -lon "${LON[$m]}" -radius-km "${RADIUS_KM[$m]}"); do
    if f=$(tilefile "${GRID[$m]}" "$t" 2>/dev/null); then present="$present $f"; else sea="$sea${sea:+,}$t"; fi
  done
  # The benchmark pack: the present tiles, and the absent ones declared sea
  # (see the caveat at the top: SPLAT! does the same, silently).
  echo "bench-splat: map $m: our pack = present tiles + absent tiles declared sea (benchmark only): --sea ${sea:-none}" >&2
  # shellcheck disable=SC2086
  "$LINKPLAN" terrain build --quiet --out "$d/ours.pack" ${sea:+--sea "$sea"} $present > "$d/pack.json"
  for run in ours ours-1core; do
    procs=""
    if [ "$run" = ours-1core ]; then procs=1; fi
    cmd=("$LINKPLAN" coverage --site "${LAT[$m]},${LON[$m]},$TX_H_M" --eirp-dbm "$EIRP_DBM"
      --frequency-mhz "$FREQ_MHZ" --radius-km "${RADIUS_KM[$m]}" --rx-height-m "$RX_H_M"
      --engine itm --itm-climate "$ITM_CLIMATE" --itm-n0 "$ITM_N0"
      --resolution-m "${RES_M[$m]}" --terrain "$d/ours.pack" --out "$d/$run.tif")
    say "map $m: ${procs:+GOMAXPROCS=$procs }${cmd[*]}"
    ( cd "$d" && { time env ${procs:+GOMAXPROCS=$procs} "${cmd[@]}" >"$run.log" 2>&1; } 2>"$run.time" ) \
      || { tail -20 "$d/$run.log" >&2; die "map $m: linkplan coverage failed ($run)"; }
  done
done

# --- comparison -----------------------------------------------------------------
# shellcheck disable=SC2086
"$WORK/bench-splat" compare -work "$WORK" -maps "$(echo $MAPS | tr ' ' ',')" -eirp-dbm "$EIRP_DBM"

# --- agreement with the point-to-point answer (issue 22) -------------------------
# Our default mode's pixels against /analyze_link's answer on each pixel's own
# profile (the issue-22 line mode= pixels= within_1db_pct= within_3db_pct=
# max_abs_db=), from the coverage package's benchmarks: the rio50 ITM map on
# this benchmark's pack layout (S23W044 with its absent neighbours declared
# sea), and the rio30/rio50 maps on the repository's Rio sample, 4000 random
# pixels each (seed printed); then the same maps' viewsheds (class against
# /analyze's path check: mode= map=rio50-viewshed pixels= agree_pct=) and
# three-transmitter ITM interference maps (SINR, C/I and carrier against
# the same formula on every transmitter's point-to-point answer:
# map=rio50-interference-itm…). AGREEMENT=0 skips it.
if [ "${AGREEMENT:-1}" = 1 ]; then
  say "agreement with the point-to-point answer (go test -bench Issue22, a few minutes)"
  (cd "$ROOT" && go test -v -run '^$' -bench 'BenchmarkIssue22_(SeaPack|PixelTruth)$/^rio(30|50)$/^itm$' -benchtime 1x \
      -timeout 30m ./appliance/coverage/) | grep -E '^mode=|SEED' || die "agreement benchmarks failed"
  (cd "$ROOT" && go test -v -run '^$' -bench 'BenchmarkIssue22_ViewshedPixelTruth$/^rio(30|50)$/^default$' -benchtime 1x \
      -timeout 30m ./appliance/coverage/ &&
    go test -v -run '^$' -bench 'BenchmarkIssue22_InterferencePixelTruth$/^rio(30|50)$' -benchtime 1x \
      -timeout 30m ./appliance/interference/) | grep -E '^mode=|SEED|^seed=' || die "network map agreement benchmarks failed"
fi
