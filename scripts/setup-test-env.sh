#!/usr/bin/env bash
# Installs everything deltalite's interop tests need, inside the repository:
#   .venv/             Python with the pinned peers (python/requirements.txt)
#   .cache/ivy, .cache/spark/jars.txt   Delta Lake jars for Spark, from Maven Central
#   .cache/spark/classes.jsa            a JVM class archive that speeds up Spark's start
#   whatever scripts/cloud-servers.sh installs (S3 and Azure test servers)
# Idempotent: a second run only checks and takes a few seconds.
#
# Independent steps run side by side, each with its log in .cache/setup/; a
# line every 15 s says what is still running. Downloads and builds are kept
# in $DELTALITE_CACHE (default ~/.cache/deltalite, see scripts/lib.sh), so a
# new clone sets up from there: pip's wheels (the pyspark wheel is built from
# source), Spark's Ivy cache, the npm cache and the versitygw binary.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
# shellcheck source=lib.sh
source "$root/scripts/lib.sh"

venv="$root/.venv"
py="$venv/bin/python"
lock="$root/python/requirements.txt"
stamp="$venv/.deltalite-requirements"
logs="$root/.cache/setup"
base_python="${PYTHON:-python3}"

say() { echo "setup-test-env: $*"; }

t_all="$(now)"
mkdir -p "$logs" "$DELTALITE_CACHE"
say "logs in .cache/setup/, downloads kept in $DELTALITE_CACHE"

# What the steps need from the machine, checked before any starts.
if ! command -v "$base_python" >/dev/null; then
	say "no $base_python on PATH; install Python 3.11" >&2
	exit 1
fi
if ! command -v java >/dev/null; then
	if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null; then
		say "no java on PATH; installing openjdk-17-jre-headless"
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jre-headless >/dev/null
	else
		say "Spark needs Java 17 or newer on PATH" >&2
		exit 1
	fi
fi
java_major="$(java -version 2>&1 | awk -F'"' '/version/ { split($2, v, "."); print v[1]; exit }')"
if [[ -z "$java_major" || "$java_major" -lt 17 ]]; then
	say "Spark needs Java 17 or newer; found: $(java -version 2>&1 | head -1)" >&2
	exit 1
fi

# Python: a virtual environment with exactly the locked packages.
step_python() {
	local want
	want="$(sha256sum "$lock" | cut -d' ' -f1) $("$base_python" -c 'import sys; print(sys.version.split()[0])')"
	if [[ -x "$py" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
		echo "python peers already installed"
		return
	fi
	# A set-up killed while creating the environment leaves one without
	# pip: start it again.
	if [[ -x "$py" ]] && ! "$py" -m pip --version >/dev/null 2>&1; then
		rm -rf "$venv"
	fi
	[[ -x "$py" ]] || "$base_python" -m venv "$venv"
	# Not --quiet: the log shows which package pip is on.
	PIP_CACHE_DIR="$DELTALITE_CACHE/pip" PYTHONUNBUFFERED=1 "$py" -m pip install --disable-pip-version-check --progress-bar off \
		--no-deps -r "$lock"
	"$py" -m pip check
	echo "$want" >"$stamp"
	echo "installed the python peers into .venv"
}

# Delta jars for Spark, resolved once through Spark's Ivy into .cache, and a
# JVM class archive of a typical session (.cache/spark/classes.jsa), which
# halves the start-up of every later Spark session. The Ivy cache is seeded
# from, and saved to, $DELTALITE_CACHE/ivy; the archive names this clone's
# paths, so it is made in every clone.
step_spark() {
	local state
	state="$("$py" - <<'PY' || echo resolve
import sys
sys.path.insert(0, "python")
from peerlib import spark
try:
    spark.jar_list()
except Exception:
    print("resolve")
else:
    print("ready" if spark.archive_ok() else "archive")
PY
)"
	case "$state" in
	ready)
		echo "spark delta jars and class archive already in .cache (java $java_major)"
		return
		;;
	resolve)
		copy_tree "$DELTALITE_CACHE/ivy" "$root/.cache/ivy/cache"
		;;
	esac
	"$py" python/spark_ops.py "--$state"
	if [[ "$state" == resolve ]]; then
		copy_tree "$root/.cache/ivy/cache" "$DELTALITE_CACHE/ivy"
	fi
	echo "prepared spark (java $java_major) in .cache"
}

step_versitygw() { bash "$root/scripts/cloud-servers.sh" install versitygw; }
step_azurite() { bash "$root/scripts/cloud-servers.sh" install azurite; }

# The scheduler: python, versitygw and azurite start at once, spark when
# python is done.
declare -A pid started
failed=()

# Each step runs in its own process group (set -m), so that an interrupted
# setup can end the whole of a step: pip, the JVM, the Go compiler.
launch() {
	started[$1]="$(now)"
	set -m
	step_"$1" >"$logs/$1.log" 2>&1 &
	pid[$1]=$!
	set +m
	say "$1: started (log .cache/setup/$1.log)"
}

stop_steps() {
	for p in "${pid[@]}"; do
		kill -- "-$p" 2>/dev/null || true
	done
}
trap stop_steps EXIT
trap 'exit 130' INT TERM

# the last non-blank line of a step's log, shortened
last_line() { tail -n 20 "$logs/$1.log" 2>/dev/null | tr -d '\r' | grep -v '^[[:space:]]*$' | tail -n 1 | cut -c1-120; }

finished() {
	local name=$1 rc=0
	wait "${pid[$name]}" || rc=$?
	unset "pid[$name]"
	if [[ $rc == 0 ]]; then
		say "$name: $(last_line "$name") ($(since "${started[$name]}"))"
		if [[ "$name" == python ]]; then launch spark; fi
	else
		tail -n 40 "$logs/$name.log" >&2
		say "$name: FAILED after $(since "${started[$name]}"); full log: .cache/setup/$name.log" >&2
		failed+=("$name")
		if [[ "$name" == python ]]; then say "spark: not started, it needs the python peers" >&2; fi
	fi
}

launch python
launch versitygw
launch azurite

tick=0
while ((${#pid[@]} > 0)); do
	sleep 1
	tick=$((tick + 1))
	for name in "${!pid[@]}"; do
		if ! kill -0 "${pid[$name]}" 2>/dev/null; then finished "$name"; fi
	done
	if ((tick % 15 == 0)); then
		for name in "${!pid[@]}"; do
			say "$name: running for $(since "${started[$name]}"): $(last_line "$name")"
		done
	fi
done

if ((${#failed[@]} > 0)); then
	say "failed: ${failed[*]} (after $(since "$t_all")); see the logs above" >&2
	exit 1
fi
say "done in $(since "$t_all")"
