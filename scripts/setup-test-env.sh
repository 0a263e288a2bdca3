#!/usr/bin/env bash
# Installs everything deltalite's interop tests need, inside the repository:
#   .venv/             Python with the pinned peers (python/requirements.txt)
#   .cache/ivy, .cache/spark/jars.txt   Delta Lake jars for Spark, from Maven Central
#   .cache/spark/classes.jsa            a JVM class archive that speeds up Spark's start
#   whatever scripts/cloud-servers.sh installs (S3 and Azure test servers)
# Idempotent: a second run only checks and takes a few seconds.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

venv="$root/.venv"
py="$venv/bin/python"
lock="$root/python/requirements.txt"
stamp="$venv/.deltalite-requirements"

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1fs", b - a }'; }
say() { echo "setup-test-env: $*"; }

t_all="$(now)"

# Python: a virtual environment with exactly the locked packages.
t="$(now)"
base_python="${PYTHON:-python3}"
if ! command -v "$base_python" >/dev/null; then
	say "no $base_python on PATH; install Python 3.11" >&2
	exit 1
fi
want="$(sha256sum "$lock" | cut -d' ' -f1) $("$base_python" -c 'import sys; print(sys.version.split()[0])')"
if [[ -x "$py" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
	say "python peers already installed ($(since "$t"))"
else
	if [[ ! -x "$py" ]]; then
		"$base_python" -m venv "$venv"
	fi
	"$py" -m pip install --quiet --disable-pip-version-check --no-deps -r "$lock"
	"$py" -m pip check >/dev/null
	echo "$want" >"$stamp"
	say "installed python peers into .venv ($(since "$t"))"
fi

# Java for Spark.
t="$(now)"
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

# Delta jars for Spark, resolved once through Spark's Ivy into .cache, and a
# JVM class archive of a typical session (.cache/spark/classes.jsa), which
# halves the start-up of every later Spark session.
mkdir -p "$root/.cache"
spark_state="$("$py" - <<'PY' 2>/dev/null || echo resolve
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
case "$spark_state" in
ready)
	say "spark delta jars and class archive already in .cache (java $java_major, $(since "$t"))"
	;;
resolve | archive)
	"$py" python/spark_ops.py "--$spark_state" 2>"$root/.cache/spark-setup.log" || {
		tail -n 40 "$root/.cache/spark-setup.log" >&2
		say "preparing Spark failed; full log in .cache/spark-setup.log" >&2
		exit 1
	}
	say "prepared spark (java $java_major) in .cache ($(since "$t"))"
	;;
esac

# Cloud test servers, when the project has them.
if [[ -f "$root/scripts/cloud-servers.sh" ]]; then
	t="$(now)"
	bash "$root/scripts/cloud-servers.sh" install
	say "cloud test servers ready ($(since "$t"))"
fi

say "done in $(since "$t_all")"
