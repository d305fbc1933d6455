#!/bin/sh
# The package's install/remove test (make deb-test): on this machine, with
# dpkg, as an administrator would.
#
#   build/deb/test-install.sh DEB VERSION
#
# 1. dpkg -i: /usr/bin/linkplan --version prints VERSION; the linkplan
#    system user, /var/lib/linkplan and /var/backups/linkplan (0700, owned by
#    it), the conffile /etc/linkplan/linkplan.conf (0640), the unit enabled;
#    systemd-analyze verify passes on the installed unit.
# 2. The installed unit starts (systemctl where systemd runs, else
#    run-unit.sh: its User=, StateDirectory=, EnvironmentFile=, ExecStart=)
#    and answers /health/ready; it writes its database as the linkplan user.
# 3. dpkg -i again (an upgrade in place): the database is the same bytes.
# 4. dpkg -r: the binary is gone; /var/lib/linkplan (database included),
#    the conffile, the backups directory and the user stay.
# 5. dpkg --purge: /var/lib/linkplan and /etc/linkplan are gone; the
#    backups directory stays. The test then removes what it created (the
#    backups directory, the user), leaving the machine as it found it.
#
# Needs root: without it the test is skipped with a message, except under
# CI=true, where it runs through sudo -n or fails. It refuses to run when
# linkplan is installed or /var/lib/linkplan or /etc/linkplan exist (a real
# installation's data must not be touched).
set -eu

DEB=$1
VERSION=$2
HERE=$(cd "$(dirname "$0")" && pwd)

if [ "$(id -u)" != 0 ]; then
	if [ "${CI:-}" = true ]; then
		exec sudo -n "$0" "$@"
	fi
	echo "deb-test: SKIPPED: installing a package needs root (run as root, or set CI=true to run it through sudo)"
	exit 0
fi

fail() {
	echo "deb-test: FAIL: $*" >&2
	exit 1
}
step() { echo "deb-test: $*"; }

if dpkg-query -W -f='${Status}' linkplan 2>/dev/null | grep -q 'ok \(installed\|config-files\)'; then
	fail "linkplan is already installed here; this test installs and purges it: remove it first (dpkg --purge linkplan, after a backup)"
fi
for d in /var/lib/linkplan /var/lib/private/linkplan /etc/linkplan; do
	if [ -e "$d" ] || [ -L "$d" ]; then fail "$d exists: this machine has linkplan data the test must not touch"; fi
done
user_existed=no
if getent passwd linkplan >/dev/null; then user_existed=yes; fi
backups_existed=no
if [ -e /var/backups/linkplan ]; then backups_existed=yes; fi

SERVE_PID=""
LOG=$(mktemp)
cleanup() {
	rc=$?
	if [ -n "$SERVE_PID" ]; then kill "$SERVE_PID" 2>/dev/null || true; fi
	if [ $rc -ne 0 ]; then
		echo "deb-test: service log:" >&2
		tail -n 30 "$LOG" >&2 || true
		dpkg --purge linkplan >/dev/null 2>&1 || true
	fi
	if [ "$backups_existed" = no ]; then rm -rf /var/backups/linkplan; fi
	if [ "$user_existed" = no ] && getent passwd linkplan >/dev/null; then
		deluser --quiet --system linkplan >/dev/null 2>&1 || userdel linkplan || true
	fi
	rm -f "$LOG"
	exit $rc
}
trap cleanup EXIT

t0=$(date +%s)
step "dpkg -i $(basename "$DEB")"
dpkg -i "$DEB" >/dev/null || fail "dpkg -i"

got=$(linkplan --version)
[ "$got" = "linkplan $VERSION" ] || fail "linkplan --version printed '$got', want 'linkplan $VERSION'"
[ "$(command -v linkplan)" = /usr/bin/linkplan ] || fail "linkplan is not /usr/bin/linkplan"
ent=$(getent passwd linkplan) || fail "no linkplan user"
uid=$(echo "$ent" | cut -d: -f3)
[ "$uid" -lt 1000 ] || fail "linkplan is not a system user (uid $uid)"
[ "$(echo "$ent" | cut -d: -f6)" = /var/lib/linkplan ] || fail "linkplan's home is not /var/lib/linkplan: $ent"
getent group linkplan >/dev/null || fail "no linkplan group"
for d in /var/lib/linkplan /var/backups/linkplan; do
	[ "$(stat -c '%U:%G %a' "$d")" = "linkplan:linkplan 700" ] || fail "$d is $(stat -c '%U:%G %a' "$d"), want linkplan:linkplan 700"
done
[ "$(stat -c '%U:%G %a' /etc/linkplan/linkplan.conf)" = "root:root 640" ] || fail "linkplan.conf is $(stat -c '%U:%G %a' /etc/linkplan/linkplan.conf)"
dpkg-query -W -f='${Conffiles}\n' linkplan | grep -q '/etc/linkplan/linkplan.conf' || fail "linkplan.conf is not a conffile"
[ -L /etc/systemd/system/multi-user.target.wants/linkplan.service ] || fail "linkplan.service is not enabled"
step "installed: $got, user $ent"

UNIT=/lib/systemd/system/linkplan.service
# exit status 3 is unusable data: docs/OPERATIONS.md ("Exit statuses")
# promises that systemd does not restart the appliance on it
grep -qx 'RestartPreventExitStatus=3' "$UNIT" || fail "$UNIT lacks RestartPreventExitStatus=3"
step "$UNIT: no restart on exit status 3 (unusable data)"
if command -v systemd-analyze >/dev/null; then
	systemd-analyze verify --man=no "$UNIT" || fail "systemd-analyze verify $UNIT"
	step "systemd-analyze verify $UNIT: ok"
elif [ "${CI:-}" = true ]; then
	fail "systemd-analyze is missing (Debian package systemd)"
else
	step "systemd-analyze not installed: unit not verified (install the systemd package)"
fi

# 2. Start the installed service and wait for readiness.
if [ -d /run/systemd/system ]; then
	systemctl start linkplan.service || fail "systemctl start linkplan"
	addr=$(sed -n 's/^LINKPLAN_ADDR=//p' /etc/linkplan/linkplan.conf)
else
	"$HERE/run-unit.sh" "$UNIT" --addr 127.0.0.1:0 >"$LOG" 2>&1 &
	SERVE_PID=$!
	addr=""
fi
i=0
while :; do
	if [ -z "$addr" ]; then addr=$(sed -n 's/.*msg="linkplan serving" addr=\([0-9.:]*\).*/\1/p' "$LOG" | head -n 1); fi
	if [ -n "$addr" ] && curl -fs "http://$addr/health/ready" >/dev/null 2>&1; then break; fi
	i=$((i + 1))
	[ $i -lt 300 ] || fail "the installed service did not become ready in 30 s"
	if [ -n "$SERVE_PID" ] && ! kill -0 "$SERVE_PID" 2>/dev/null; then fail "the installed service exited"; fi
	sleep 0.1
done
grep -q 'settings from the environment.*overridden_by_flags=LINKPLAN_ADDR' "$LOG" 2>/dev/null || [ -d /run/systemd/system ] ||
	fail "the service did not read /etc/linkplan/linkplan.conf"
step "the installed unit serves on $addr and is ready"
if [ -d /run/systemd/system ]; then
	systemctl stop linkplan.service
else
	kill -TERM "$SERVE_PID"
	wait "$SERVE_PID" || fail "the service did not stop cleanly on SIGTERM"
	SERVE_PID=""
fi
DB=/var/lib/linkplan/linkplan.db
[ "$(stat -c %U "$DB")" = linkplan ] || fail "$DB is not the linkplan user's"
sum=$(sha256sum "$DB" | cut -d' ' -f1)

# 3. Reinstall over itself: postinst configure with the old version.
dpkg -i "$DEB" >/dev/null || fail "dpkg -i over an installed package"
[ "$(sha256sum "$DB" | cut -d' ' -f1)" = "$sum" ] || fail "the database changed on reinstall"
step "reinstalled in place: database unchanged"

# 4. Remove: the data stays.
dpkg -r linkplan >/dev/null || fail "dpkg -r"
[ ! -e /usr/bin/linkplan ] || fail "/usr/bin/linkplan is still there after dpkg -r"
[ "$(sha256sum "$DB" | cut -d' ' -f1)" = "$sum" ] || fail "dpkg -r changed or removed $DB"
[ -f /var/lib/linkplan/admin-credentials.json ] || fail "dpkg -r removed the admin credentials"
[ -f /etc/linkplan/linkplan.conf ] || fail "dpkg -r removed the conffile"
[ -d /var/backups/linkplan ] || fail "dpkg -r removed /var/backups/linkplan"
getent passwd linkplan >/dev/null || fail "dpkg -r removed the linkplan user"
dpkg-query -W -f='${Status}\n' linkplan | grep -q 'deinstall ok config-files' || fail "unexpected state after dpkg -r: $(dpkg-query -W -f='${Status}' linkplan)"
step "dpkg -r: binary gone; /var/lib/linkplan (database $sum), conffile, backups and user kept"

# 5. Purge: the data directory and the conffile go, the backups stay.
dpkg --purge linkplan >/dev/null || fail "dpkg --purge"
[ ! -e /var/lib/linkplan ] || fail "dpkg --purge left /var/lib/linkplan"
[ ! -e /etc/linkplan ] || fail "dpkg --purge left /etc/linkplan"
[ -d /var/backups/linkplan ] || fail "dpkg --purge removed /var/backups/linkplan"
step "dpkg --purge: /var/lib/linkplan and /etc/linkplan removed; /var/backups/linkplan kept"
step "PASS in $(($(date +%s) - t0)) s"
