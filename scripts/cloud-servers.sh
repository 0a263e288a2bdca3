#!/usr/bin/env bash
# Installs the object-store servers the storage/cloud tests run on 127.0.0.1:
#   versitygw (S3) into .cache/bin, Azurite (Azure Blob) into .cache/npm.
# GCS needs nothing: the tests run fake-gcs-server in process.
#
#   scripts/cloud-servers.sh install [versitygw|azurite]
#                                      install what is missing (all by default; fast when done)
#   scripts/cloud-servers.sh status    print what is installed
#
# The tests find the servers in <repo>/.cache, or through DELTALITE_VERSITYGW
# and DELTALITE_AZURITE_BLOB (paths to the executables). Downloads and the
# versitygw build are kept in $DELTALITE_CACHE (scripts/lib.sh) for the next
# clone.
set -euo pipefail

VERSITYGW_VERSION=v1.8.0
AZURITE_VERSION=3.37.0

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=lib.sh
source "$repo/scripts/lib.sh"
cache="$repo/.cache"
gw="$cache/bin/versitygw"
gw_stamp="$cache/bin/versitygw.version"
azurite="$cache/npm/node_modules/.bin/azurite-blob"
azurite_pkg="$cache/npm/node_modules/azurite/package.json"

have_gw() { [[ -x "$gw" && -f "$gw_stamp" && "$(cat "$gw_stamp")" == "$VERSITYGW_VERSION" ]]; }
have_azurite() {
	[[ -x "$azurite" && -f "$azurite_pkg" ]] &&
		grep -q "\"version\": \"$AZURITE_VERSION\"" "$azurite_pkg"
}

install_gw() {
	if have_gw; then
		echo "versitygw $VERSITYGW_VERSION: already installed"
		return
	fi
	mkdir -p "$cache/bin"
	# Building versitygw takes minutes on a small machine: keep the binary.
	local kept
	kept="$DELTALITE_CACHE/versitygw/$VERSITYGW_VERSION-$(go env GOOS)-$(go env GOARCH)/versitygw"
	if [[ -x "$kept" ]]; then
		echo "versitygw $VERSITYGW_VERSION: copying the build kept in $kept"
		cp "$kept" "$gw"
	else
		echo "versitygw $VERSITYGW_VERSION: building into $cache/bin (go install; minutes on a small machine)"
		GOBIN="$cache/bin" GOFLAGS=-buildvcs=false go install -v "github.com/versity/versitygw/cmd/versitygw@$VERSITYGW_VERSION"
		mkdir -p "$(dirname "$kept")"
		cp "$gw" "$kept.tmp.$$" && mv "$kept.tmp.$$" "$kept"
	fi
	echo "$VERSITYGW_VERSION" >"$gw_stamp"
	echo "versitygw $VERSITYGW_VERSION: installed"
}

install_azurite() {
	if have_azurite; then
		echo "azurite $AZURITE_VERSION: already installed"
		return
	fi
	if ! command -v npm >/dev/null; then
		echo "azurite: npm not found; install Node.js (>= 20) and npm first" >&2
		return 1
	fi
	echo "azurite $AZURITE_VERSION: installing into $cache/npm"
	mkdir -p "$cache/npm"
	# --prefer-offline: what the npm cache in $DELTALITE_CACHE holds is not
	# asked for again.
	# An install interrupted midway leaves node_modules that npm cannot
	# move (ENOTEMPTY): start once more from an empty prefix.
	local i
	for i in 1 2; do
		if npm install --prefix "$cache/npm" --cache "$DELTALITE_CACHE/npm" --prefer-offline \
			--no-audit --no-fund --loglevel=http "azurite@$AZURITE_VERSION"; then
			break
		fi
		[[ $i == 2 ]] && return 1
		echo "azurite: npm install failed; retrying from an empty $cache/npm" >&2
		rm -rf "$cache/npm/node_modules" "$cache/npm/package.json" "$cache/npm/package-lock.json"
	done
	echo "azurite $AZURITE_VERSION: installed"
}

case "${1:-install}" in
install)
	shift || true
	case "${1:-all}" in
	versitygw) install_gw ;;
	azurite) install_azurite ;;
	all)
		# The two installs are independent; run them side by side.
		install_gw &
		gw_pid=$!
		rc=0
		install_azurite || rc=$?
		wait "$gw_pid" || rc=$?
		exit "$rc"
		;;
	*)
		echo "usage: $0 install [versitygw|azurite]" >&2
		exit 2
		;;
	esac
	;;
status)
	have_gw && echo "versitygw $VERSITYGW_VERSION: $gw" || echo "versitygw: not installed"
	have_azurite && echo "azurite $AZURITE_VERSION: $azurite" || echo "azurite: not installed"
	;;
*)
	echo "usage: $0 [install [versitygw|azurite] | status]" >&2
	exit 2
	;;
esac
