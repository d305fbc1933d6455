#!/bin/bash
# make install-check: follows INSTALL.md literally on this machine.
#
#   build/install-check/run.sh DEB
#
# Every ```sh block of INSTALL.md runs, in order, each in a fresh
# `bash -euo pipefail` (so each block must stand on its own, as it would
# pasted into a new terminal), with three substitutions in its text and
# nothing else changed:
#
#   /media/usb/linkplan-media  -> a scratch directory (the removable disk)
#   /srv/linkplan-downloads    -> a scratch directory (the site's copy)
#   127.0.0.1:8080             -> 127.0.0.1:<a free port> (this machine may
#                                 serve something on 8080)
#
# An HTML comment right before a block changes how it runs:
#
#   <!-- install-check: stand-in NAME -->   the block is replaced by the
#       function standin_NAME below (the downloads: the repository's sample
#       files are copied under the names the document's later commands use);
#   <!-- install-check: needs linkplan CMD -->   the block runs when the
#       installed binary has the command CMD, and is reported skipped
#       otherwise (backup and restore come with issue 21's backup branch).
#
# Blocks in other languages (```text) are not run. Where systemd is not the
# running init (a container, this CI), systemctl and journalctl are shell
# functions that run the installed unit with build/deb/run-unit.sh (its
# User=, StateDirectory=, EnvironmentFile= and ExecStart=, plus --addr for
# the port above), and sudo is a function that runs the command (we are
# root). After the blocks, the check asserts the outcome: the appliance is
# ready and its data manifest names the pack and the two tower files built
# and installed from the stand-ins, by the SHA-256 of those files.
#
# Root is needed (the document installs a package): without it the check is
# skipped with a message, except under CI=true, where it runs through sudo -n
# or fails. It refuses to run where linkplan is installed or has data.
set -euo pipefail

DEB=$(readlink -f "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
DOC=$ROOT/INSTALL.md

if [ "$(id -u)" != 0 ]; then
	if [ "${CI:-}" = true ]; then exec sudo -n "$0" "$@"; fi
	echo "install-check: SKIPPED: INSTALL.md installs a package, which needs root (run as root, or set CI=true to run it through sudo)"
	exit 0
fi
fail() {
	echo "install-check: FAIL: $*" >&2
	exit 1
}
say() { echo "install-check: $*"; }

if dpkg-query -W -f='${Status}' linkplan 2>/dev/null | grep -q 'ok \(installed\|config-files\)'; then
	fail "linkplan is already installed here; this check installs and purges it: remove it first (dpkg --purge linkplan, after a backup)"
fi
for d in /var/lib/linkplan /var/lib/private/linkplan /etc/linkplan; do
	if [ -e "$d" ] || [ -L "$d" ]; then fail "$d exists: this machine has linkplan data the check must not touch"; fi
done
for tool in jq unzip zip gzip curl sha256sum runuser setpriv; do
	command -v "$tool" >/dev/null || fail "$tool is missing (make test-deps installs jq, unzip and zip)"
done
user_existed=no
if getent passwd linkplan >/dev/null; then user_existed=yes; fi
backups_existed=no
if [ -e /var/backups/linkplan ]; then backups_existed=yes; fi

WORK=$(mktemp -d /tmp/linkplan-install-check.XXXXXX)
chmod 0755 "$WORK"
MEDIA=$WORK/media
SRV=$WORK/srv/linkplan-downloads
HOMEDIR=$WORK/home
mkdir -p "$MEDIA" "$HOMEDIR" "$WORK/blocks"
PORT=""
for p in $(seq 18080 18180); do
	if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then PORT=$p; break; fi
done
[ -n "$PORT" ] || fail "no free port in 18080-18180"

SYSTEMD=no
if [ -d /run/systemd/system ]; then SYSTEMD=yes; fi

cleanup() {
	rc=$?
	if [ "$SYSTEMD" = yes ]; then
		systemctl stop linkplan.service 2>/dev/null || true
		rm -rf /run/systemd/system/linkplan.service.d
		systemctl daemon-reload || true
	elif [ -f "$WORK/linkplan.pid" ]; then
		kill "$(cat "$WORK/linkplan.pid")" 2>/dev/null || true
		sleep 1
	fi
	if [ $rc -ne 0 ] && [ -f "$WORK/linkplan.log" ]; then
		echo "install-check: service log (last 30 lines):" >&2
		tail -n 30 "$WORK/linkplan.log" >&2
	fi
	dpkg --purge linkplan >/dev/null 2>&1 || true
	if [ "$backups_existed" = no ]; then rm -rf /var/backups/linkplan; fi
	if [ "$user_existed" = no ] && getent passwd linkplan >/dev/null; then
		deluser --quiet --system linkplan >/dev/null 2>&1 || userdel linkplan || true
	fi
	rm -rf "$WORK"
	exit $rc
}
trap cleanup EXIT

# The prelude every block sources: the emulated commands.
PRELUDE=$WORK/prelude.sh
cat >"$PRELUDE" <<EOF
# install-check prelude (build/install-check/run.sh)
export HOME=$HOMEDIR
EOF
if [ "$SYSTEMD" = no ] || ! command -v sudo >/dev/null; then
	echo 'sudo() { "$@"; }' >>"$PRELUDE"
fi
if [ "$SYSTEMD" = yes ]; then
	# The real unit, moved to the check's port by a volatile drop-in.
	install -d /run/systemd/system/linkplan.service.d
	printf '[Service]\nExecStart=\nExecStart=/usr/bin/linkplan serve --addr 127.0.0.1:%s\n' "$PORT" \
		>/run/systemd/system/linkplan.service.d/install-check.conf
	systemctl daemon-reload
else
	cat >>"$PRELUDE" <<EOF
_lp_pid() { cat "$WORK/linkplan.pid" 2>/dev/null; }
_lp_stop() {
	local pid; pid=\$(_lp_pid) || return 0
	if kill -0 "\$pid" 2>/dev/null; then
		kill -TERM "\$pid"
		for _ in \$(seq 300); do kill -0 "\$pid" 2>/dev/null || break; sleep 0.1; done
	fi
	rm -f "$WORK/linkplan.pid"
}
_lp_start() {
	setsid "$ROOT/build/deb/run-unit.sh" /lib/systemd/system/linkplan.service --addr 127.0.0.1:$PORT >>"$WORK/linkplan.log" 2>&1 < /dev/null &
	echo \$! > "$WORK/linkplan.pid"
}
systemctl() {
	local action=\$1 unit=\${2:-}
	[ "\${unit%.service}" = linkplan ] || { echo "install-check: emulated systemctl knows linkplan only: \$*" >&2; return 1; }
	case \$action in
	start) kill -0 "\$(_lp_pid)" 2>/dev/null || _lp_start ;;
	restart) _lp_stop; _lp_start ;;
	stop) _lp_stop ;;
	is-active) kill -0 "\$(_lp_pid)" 2>/dev/null && echo active || { echo inactive; return 3; } ;;
	*) echo "install-check: emulated systemctl does not know \$action" >&2; return 1 ;;
	esac
}
journalctl() {
	local n=10
	while [ \$# -gt 0 ]; do case \$1 in -n) n=\$2; shift ;; esac; shift; done
	tail -n "\$n" "$WORK/linkplan.log"
}
EOF
fi

# The stand-ins.
standin_downloads() {
	local stamp=202603011200
	cp "$DEB" "$MEDIA/packages/"
	cp "$ROOT/terrain-packs/testdata/S22W043.hgt.zip" "$ROOT/terrain-packs/testdata/S23W044.hgt.zip" "$MEDIA/dem/1-srtm/"
	# TOPODATA: a zip holding the GeoTIFF (the repository's crop of 03S39_ZN).
	local t=$WORK/topodata
	mkdir -p "$t"
	cp "$ROOT/terrain-packs/testdata/fortaleza-srtm.tif" "$t/03S39_ZN.tif"
	(cd "$t" && zip -q -X "$MEDIA/dem/2-topodata/03S39_ZN.zip" 03S39_ZN.tif)
	cp "$ROOT/appliance/catalog/testdata/anatel_estacoes_licenciadas_smp_sample.csv" "$MEDIA/towers/anatel-estacoes-licenciadas.csv"
	gzip -c "$ROOT/appliance/catalog/testdata/opencellid_724_sample.csv" >"$MEDIA/towers/724.csv.gz"
	find "$MEDIA" -type f -exec touch -t "$stamp" {} +
}

# Extract the blocks: NN.sh and NN.how ("run", "stand-in NAME", "needs linkplan CMD").
awk -v dir="$WORK/blocks" '
	/^<!-- install-check: .* -->$/ { how = $0; sub(/^<!-- install-check: /, "", how); sub(/ -->$/, "", how); next }
	!inblock && /^```sh$/ { inblock = 1; n++; file = sprintf("%s/%02d.sh", dir, n); printf "" > file
		printf "%s\n", (how == "" ? "run" : how) > sprintf("%s/%02d.how", dir, n); how = ""; next }
	inblock && /^```$/ { inblock = 0; close(file); next }
	inblock { print > file; next }
	/^```/ { how = "" }
' "$DOC"
blocks=$(ls "$WORK/blocks"/*.sh 2>/dev/null | wc -l)
[ "$blocks" -ge 10 ] || fail "found $blocks sh blocks in INSTALL.md (want at least 10): did the fences change?"

ran=0
skipped=0
for b in "$WORK"/blocks/*.sh; do
	n=$(basename "$b" .sh)
	how=$(cat "$WORK/blocks/$n.how")
	first=$(grep -m1 -v '^\s*$' "$b" || true)
	case $how in
	run) ;;
	"stand-in "*)
		name=${how#stand-in }
		declare -F "standin_$name" >/dev/null || fail "block $n: no stand-in named $name"
		say "block $n: stand-in $name (for: $first ...)"
		"standin_$name"
		ran=$((ran + 1))
		continue
		;;
	"needs linkplan "*)
		cmd=${how#needs linkplan }
		if ! linkplan help 2>&1 | grep -Eq "^  $cmd( |$)"; then
			say "block $n: SKIPPED, this build has no 'linkplan $cmd' ($first ...)"
			skipped=$((skipped + 1))
			continue
		fi
		;;
	*) fail "block $n: unknown install-check directive '$how'" ;;
	esac
	sed -e "s|/media/usb/linkplan-media|$MEDIA|g" -e "s|/srv/linkplan-downloads|$SRV|g" -e "s|127\.0\.0\.1:8080|127.0.0.1:$PORT|g" "$b" >"$b.run"
	say "block $n: $first ..."
	if ! (cd "$HOMEDIR" && timeout 600 bash -euo pipefail -c ". '$PRELUDE'
$(cat "$b.run")") >"$WORK/blocks/$n.out" 2>&1; then
		cat "$WORK/blocks/$n.out" >&2
		fail "block $n of INSTALL.md failed:
$(cat "$b")"
	fi
	sed 's/^/    | /' "$WORK/blocks/$n.out" | head -n 40
	ran=$((ran + 1))
done

# The outcome: the appliance serves the pack and the tower files that came
# from the stand-ins, and says so by SHA-256.
ADMIN=$(jq -r .api_key /var/lib/linkplan/admin-credentials.json)
curl -fsS --retry 30 --retry-delay 1 --retry-connrefused "http://127.0.0.1:$PORT/health/ready" >/dev/null || fail "the appliance is not ready after the document's steps"
curl -fsS -H "X-API-Key: $ADMIN" "http://127.0.0.1:$PORT/platform/maturity" >"$WORK/maturity.json"
got=$(jq -r '.data_manifest | [(.terrain_packs[] | "\(.name) \(.sha256)"), (.tower_sources[] | "\(.name) \(.sha256)")] | join("\n")' "$WORK/maturity.json")
sum() { sha256sum "$1" | cut -d' ' -f1; }
want="brazil.ltp $(sum /var/lib/linkplan/terrain/brazil.ltp)
724.csv $(sum "$ROOT/appliance/catalog/testdata/opencellid_724_sample.csv")
anatel-estacoes-licenciadas.csv $(sum "$ROOT/appliance/catalog/testdata/anatel_estacoes_licenciadas_smp_sample.csv")"
[ "$got" = "$want" ] || fail "data manifest:
$got
want:
$want"
say "the appliance serves brazil.ltp, 724.csv and anatel-estacoes-licenciadas.csv by their SHA-256"
say "PASS: $ran blocks of INSTALL.md run, $skipped skipped (commands this build lacks)"
