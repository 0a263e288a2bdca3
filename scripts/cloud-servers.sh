#!/usr/bin/env bash
# Installs the object-store servers the storage/cloud tests run on 127.0.0.1:
#   versitygw (S3) into .cache/bin, Azurite (Azure Blob) into .cache/npm.
# GCS needs nothing: the tests run fake-gcs-server in process.
#
#   scripts/cloud-servers.sh install   install what is missing (fast when done)
#   scripts/cloud-servers.sh status    print what is installed
#
# The tests find the servers in <repo>/.cache, or through DELTALITE_VERSITYGW
# and DELTALITE_AZURITE_BLOB (paths to the executables).
set -euo pipefail

VERSITYGW_VERSION=v1.8.0
AZURITE_VERSION=3.37.0

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
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
		echo "versitygw $VERSITYGW_VERSION: installed"
		return
	fi
	echo "versitygw $VERSITYGW_VERSION: installing into $cache/bin"
	mkdir -p "$cache/bin"
	GOBIN="$cache/bin" GOFLAGS=-buildvcs=false go install "github.com/versity/versitygw/cmd/versitygw@$VERSITYGW_VERSION"
	echo "$VERSITYGW_VERSION" >"$gw_stamp"
}

install_azurite() {
	if have_azurite; then
		echo "azurite $AZURITE_VERSION: installed"
		return
	fi
	if ! command -v npm >/dev/null; then
		echo "azurite: npm not found; install Node.js (>= 20) and npm first" >&2
		return 1
	fi
	echo "azurite $AZURITE_VERSION: installing into $cache/npm"
	mkdir -p "$cache/npm"
	npm install --prefix "$cache/npm" --no-audit --no-fund --loglevel=error "azurite@$AZURITE_VERSION"
}

case "${1:-install}" in
install)
	# The two installs are independent; run them side by side.
	install_gw &
	gw_pid=$!
	rc=0
	install_azurite || rc=$?
	wait "$gw_pid" || rc=$?
	exit "$rc"
	;;
status)
	have_gw && echo "versitygw $VERSITYGW_VERSION: $gw" || echo "versitygw: not installed"
	have_azurite && echo "azurite $AZURITE_VERSION: $azurite" || echo "azurite: not installed"
	;;
*)
	echo "usage: $0 [install|status]" >&2
	exit 2
	;;
esac
