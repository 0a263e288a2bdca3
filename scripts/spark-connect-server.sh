#!/usr/bin/env bash
# Runs a local Spark Connect server with Delta Lake in the foreground, bound
# to 127.0.0.1:PORT (default 15002), from the pinned pyspark in .venv and the
# Delta jars scripts/setup-test-env.sh resolved into .cache: nothing is
# downloaded. Connect with sc://127.0.0.1:PORT (integrations/spark). The
# integration tests start one per test binary; stop it with Ctrl-C.
#
#   scripts/spark-connect-server.sh [PORT]
#
# DELTALITE_SPARK_MEMORY (driver memory, default 2g), DELTALITE_SPARK_MASTER
# (default local[2]) and DELTALITE_SPARK_JAVA_OPTS work as for the peers
# (python/peerlib/spark.py).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
port="${1:-15002}"
py="$root/.venv/bin/python"
if [[ ! -x "$py" ]]; then
	echo "spark-connect-server: no .venv; run scripts/setup-test-env.sh" >&2
	exit 1
fi
if ! [[ "$port" =~ ^[0-9]+$ ]]; then
	echo "spark-connect-server: PORT must be a number, not '$port'" >&2
	exit 2
fi
cd "$root"
# spark_ops.py becomes spark-submit, which becomes the JVM: one process to stop.
exec "$py" python/spark_ops.py --connect-server "$port"
