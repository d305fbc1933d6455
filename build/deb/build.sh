#!/bin/sh
# Builds the linkplan Debian package from a staged tree with dpkg-deb
# (why dpkg-deb and not a packager: build/deb/README.md).
#
#   build/deb/build.sh BIN VERSION OUTDIR
#
# BIN is the static binary (make build), VERSION the version stamped into it
# (git describe). Writes OUTDIR/linkplan_<debversion>_<arch>.deb and prints
# its path. Needs dpkg-deb, gzip, and the Go module cache of the build (the
# licence texts of the linked modules go into the copyright file).
set -eu

BIN=$1
VERSION=$2
OUT=$3
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
MAINTAINER=${DEB_MAINTAINER:-$(git -C "$ROOT" log -1 --format='%an <%ae>')}
# Reproducible dates: the commit's time, unless the caller sets one.
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$ROOT" log -1 --format=%ct)}
export SOURCE_DATE_EPOCH

# The Debian version of a git describe: v1.2.3 -> 1.2.3, v1.2.3-4-gabc ->
# 1.2.3+4.gabc, a bare commit abc -> 0~git<commit date>.abc (sorts below
# any release); -dirty -> +dirty. Always native (no Debian revision).
debversion() {
	v=${1#v}
	dirty=""
	case $v in *-dirty) v=${v%-dirty}; dirty="+dirty" ;; esac
	if printf '%s' "$v" | grep -Eq '^[0-9]+\.[0-9]+'; then
		v=$(printf '%s' "$v" | tr '-' '+' | sed 's/+g/.g/')
	else
		v="0~git$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y%m%d).$v"
	fi
	printf '%s%s\n' "$v" "$dirty"
}
DEBVER=$(debversion "$VERSION")
case $(go env GOARCH) in
amd64) ARCH=amd64 ;; arm64) ARCH=arm64 ;; 386) ARCH=i386 ;; arm) ARCH=armhf ;;
*) echo "build.sh: no Debian architecture for GOARCH $(go env GOARCH)" >&2; exit 1 ;;
esac

STAGE=$(mktemp -d)
chmod 0755 "$STAGE"
trap 'rm -rf "$STAGE"' EXIT
DOC=$STAGE/usr/share/doc/linkplan
install -d -m 0755 "$STAGE/DEBIAN" "$STAGE/usr/bin" "$STAGE/lib/systemd/system" "$STAGE/etc/linkplan" \
	"$DOC" "$STAGE/usr/share/man/man1" "$STAGE/usr/share/lintian/overrides"
install -m 0755 "$BIN" "$STAGE/usr/bin/linkplan"
install -m 0644 "$ROOT/systemd/linkplan.service" "$STAGE/lib/systemd/system/linkplan.service"
# 0640: the file may hold the standby key; systemd reads it as root.
install -m 0640 "$HERE/linkplan.conf" "$STAGE/etc/linkplan/linkplan.conf"
install -m 0644 "$HERE/lintian-overrides" "$STAGE/usr/share/lintian/overrides/linkplan"
# The unit's Documentation= names README.md and INSTALL.md: kept
# uncompressed so that they open as they are on an air-gapped host.
install -m 0644 "$ROOT/README.md" "$ROOT/INSTALL.md" "$DOC/"
for f in "$ROOT/docs/OPERATIONS.md"; do
	if [ -f "$f" ]; then install -m 0644 "$f" "$DOC/"; fi
done
install -m 0755 "$HERE/postinst" "$HERE/prerm" "$HERE/postrm" "$STAGE/DEBIAN/"
install -m 0644 "$HERE/conffiles" "$STAGE/DEBIAN/conffiles"

# changelog.gz (a native package): an entry for this build, then the
# committed history. The entry is dated at the commit, or just after the
# newest committed entry when that is later (a tree with uncommitted edits).
LAST=$(date -u -d "$(sed -n 's/^ -- .*>  //p' "$HERE/changelog" | head -n 1)" +%s)
ENTRY_EPOCH=$SOURCE_DATE_EPOCH
if [ "$ENTRY_EPOCH" -le "$LAST" ]; then ENTRY_EPOCH=$((LAST + 1)); fi
{
	printf 'linkplan (%s) unstable; urgency=medium\n\n' "$DEBVER"
	printf '  * Package of linkplan %s, built from commit %s.\n\n' "$VERSION" "$(git -C "$ROOT" rev-parse --short=12 HEAD)"
	printf ' -- %s  %s\n\n' "$MAINTAINER" "$(date -u -R -d "@$ENTRY_EPOCH")"
	cat "$HERE/changelog"
} | gzip -9n >"$DOC/changelog.gz"
chmod 0644 "$DOC/changelog.gz"

# copyright: the hand-written paragraphs (linkplan, its embedded data), then
# one per Go module linked into the binary, with the module's own licence
# text (Apache-2.0 by reference to /usr/share/common-licenses, plus any
# NOTICE file). A module missing from go-module-licences stops the build.
MODCACHE=$(go env GOMODCACHE)
GOROOT=$(go env GOROOT)
# indent makes a licence text a DEP-5 field body; a full Apache License 2.0
# text inside it (a module under several licences) becomes a reference to
# Debian's copy (Policy 12.5).
indent() {
	awk '
		/^[[:space:]]*Apache License[[:space:]]*$/ { held = $0; next }
		held != "" && /^[[:space:]]*Version 2\.0, January 2004/ { skip = 1; held = ""
			print "The Apache License 2.0: on Debian systems, /usr/share/common-licenses/Apache-2.0."; next }
		held != "" { print held; held = "" }
		skip == 1 && /END OF TERMS AND CONDITIONS/ { skip = 0; next }
		skip == 1 { next }
		/^[[:space:]]*APPENDIX: How to apply the Apache License/ { skip = 2; next }
		skip == 2 && /third-party archives\./ { skip = 0; next }
		skip == 2 { next }
		{ print }
		END { if (held != "") print held }
	' | sed -e 's/[[:space:]]*$//' -e 's/^$/./' -e 's/^/ /'
}
{
	while IFS= read -r line; do
		case $line in
		" @include "*) indent <"$ROOT/${line#" @include "}" ;;
		*) printf '%s\n' "$line" ;;
		esac
	done <"$HERE/copyright"
	printf '\nFiles: go-modules/std\nCopyright: The Go Authors\nLicense: BSD-3-Clause\n'
	indent <"$GOROOT/LICENSE"
	printf ' .\n PATENTS:\n .\n'
	indent <"$GOROOT/PATENTS"
	printf 'Comment: The Go %s standard library and runtime, compiled into\n /usr/bin/linkplan.\n' "$(go env GOVERSION)"
	go version -m "$BIN" | awk '$1 == "dep" { print $2, $3 }' | while read -r mod ver; do
		spdx=$(awk -v m="$mod" '$1 == m { $1 = ""; sub(/^ +/, ""); print }' "$HERE/go-module-licences")
		if [ -z "$spdx" ]; then
			echo "build.sh: Go module $mod is linked into linkplan but has no line in build/deb/go-module-licences" >&2
			exit 1
		fi
		# The module cache escapes capitals as !lower.
		dir=$MODCACHE/$(printf '%s@%s' "$mod" "$ver" | sed 's/[A-Z]/!\L&/g')
		lic=$(find "$dir" -maxdepth 1 -type f \( -iname 'LICENSE*' -o -iname 'COPYING*' \) | sort | head -n 1)
		if [ -z "$lic" ]; then
			echo "build.sh: no licence file in $dir (run go mod download)" >&2
			exit 1
		fi
		printf '\nFiles: go-modules/%s\n' "$mod"
		printf 'Copyright: the authors of %s, as the licence text below states\n' "$mod"
		printf 'License: %s\n' "$spdx"
		if [ "$spdx" = Apache-2.0 ]; then
			printf ' On Debian systems, the full text of the Apache License 2.0 is in\n /usr/share/common-licenses/Apache-2.0.\n'
		else
			indent <"$lic"
		fi
		for n in $(find "$dir" -maxdepth 1 -type f \( -iname 'NOTICE*' -o -iname 'THIRD-PARTY-NOTICES*' -o -name PATENTS \) | sort); do
			printf ' .\n %s:\n .\n' "$(basename "$n")"
			indent <"$n"
		done
		printf 'Comment: Go module %s %s, compiled into /usr/bin/linkplan.\n' "$mod" "$ver"
	done
} >"$DOC/copyright"
chmod 0644 "$DOC/copyright"

# The manual page: the command list is the binary's own usage text.
{
	printf '.TH LINKPLAN 1 "%s" "linkplan %s" "User Commands"\n' "$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%d)" "$VERSION"
	printf '.SH NAME\nlinkplan \\- RF link-planning appliance for Brazil\n'
	printf '.SH SYNOPSIS\n.B linkplan\n.I command\n[\\fIflags\\fR]\n'
	printf '.SH DESCRIPTION\nOne binary that serves the linkplan API and web console (\\fBlinkplan serve\\fR),\n'
	printf 'builds terrain packs, imports tower files and runs the propagation engines offline.\n'
	printf '\\fBlinkplan\\fR \\fIcommand\\fR \\fB\\-h\\fR lists the flags of a command.\n'
	printf '.PP\n.nf\n'
	"$BIN" help | sed -e 's/\\/\\e/g' -e 's/^\./\\\&./'
	printf '.fi\n'
	printf '.SH FILES\n.TP\n.I /etc/linkplan/linkplan.conf\n'
	printf 'settings of the service: LINKPLAN_<FLAG>=value for each flag of \\fBlinkplan serve\\fR\n'
	printf '.TP\n.I /var/lib/linkplan\ndata directory: database, admin credentials, terrain packs, tower sources\n'
	printf '.TP\n.I /var/backups/linkplan\nscheduled backups\n'
	printf '.SH SEE ALSO\n.BR systemctl (1),\n.I /usr/share/doc/linkplan/INSTALL.md\n'
} | gzip -9n >"$STAGE/usr/share/man/man1/linkplan.1.gz"
chmod 0644 "$STAGE/usr/share/man/man1/linkplan.1.gz"

# DEBIAN/control and md5sums (conffiles excluded, as dh_md5sums does).
SIZE=$(du -k -s --apparent-size --exclude=DEBIAN "$STAGE" | cut -f1)
sed -e "s/@VERSION@/$DEBVER/" -e "s/@ARCH@/$ARCH/" -e "s/@SIZE@/$SIZE/" -e "s/@MAINTAINER@/$MAINTAINER/" \
	"$HERE/control" >"$STAGE/DEBIAN/control"
(cd "$STAGE" && find . -type f ! -path './DEBIAN/*' ! -path './etc/*' | sed 's|^\./||' | LC_ALL=C sort | xargs md5sum) >"$STAGE/DEBIAN/md5sums"
chmod 0644 "$STAGE/DEBIAN/control" "$STAGE/DEBIAN/md5sums"
find "$STAGE" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +

mkdir -p "$OUT"
DEB=$OUT/linkplan_${DEBVER}_${ARCH}.deb
dpkg-deb --root-owner-group -Zxz --build "$STAGE" "$DEB" >/dev/null
echo "$DEB"
