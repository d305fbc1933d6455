#!/bin/sh
# Runs a systemd unit's ExecStart= as systemd would, on a host where systemd
# is not the running init (a container, a chroot, most CI runners), so that
# the package and INSTALL.md checks can start the installed service there:
#
#   build/deb/run-unit.sh /lib/systemd/system/linkplan.service [EXTRA-ARG...]
#
# Applied: User= and Group= (setpriv), StateDirectory= ($STATE_DIRECTORY,
# the directory itself must exist), EnvironmentFile= (optional with '-';
# KEY=value lines, '#' and ';' comments, one pair of surrounding double
# quotes removed, as systemd reads it), a clean environment, then ExecStart=
# with EXTRA-ARGs appended. Not applied: the sandboxing directives
# (systemd-analyze verify checks those) and Restart=. Stays in the
# foreground with the service's exit status.
set -eu

unit=$1
shift
val() { sed -n "s/^$1=//p" "$unit" | tail -n 1; }
user=$(val User)
group=$(val Group)
state=$(val StateDirectory)
exec_start=$(val ExecStart)
envfile=$(val EnvironmentFile)
[ -n "$user" ] && [ -n "$exec_start" ] || { echo "run-unit.sh: $unit has no User= or ExecStart=" >&2; exit 1; }

vars="PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8"
if [ -n "$state" ]; then vars="$vars STATE_DIRECTORY=/var/lib/$state"; fi

# Quote the extra arguments for the eval below, then collect the
# environment file's pairs as positional parameters (values may hold spaces).
extra=""
for a in "$@"; do extra="$extra '$(printf '%s' "$a" | sed "s/'/'\\\\''/g")'"; done
set --
optional=no
case $envfile in -*) envfile=${envfile#-}; optional=yes ;; esac
if [ -n "$envfile" ] && [ -f "$envfile" ]; then
	while IFS= read -r line || [ -n "$line" ]; do
		case $line in '' | '#'* | ';'*) continue ;; esac
		key=${line%%=*}
		v=${line#*=}
		case $v in \"*\") v=${v#\"}; v=${v%\"} ;; esac
		set -- "$@" "$key=$v"
	done <"$envfile"
elif [ -n "$envfile" ] && [ "$optional" = no ]; then
	echo "run-unit.sh: EnvironmentFile $envfile is missing" >&2
	exit 1
fi
eval "set -- \"\$@\" $exec_start $extra"
# shellcheck disable=SC2086 # $vars splits on spaces on purpose
# setpriv execs the command itself (no process in between, unlike runuser),
# so a SIGTERM reaches the service as systemd's would.
exec setpriv --reuid="$user" --regid="${group:-$user}" --init-groups -- env -i $vars "$@"
