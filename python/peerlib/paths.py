"""Locations of the test environment inside the repository."""

import os
from pathlib import Path

# Delta Lake for Spark, as resolved from Maven Central by scripts/setup-test-env.sh.
# The Python package delta-spark in python/requirements.txt must carry the same
# version, and pyspark must be the Spark version the artifact is built for.
DELTA_VERSION = "4.4.0"
SPARK_MINOR = "4.2"
DELTA_PACKAGE = f"io.delta:delta-spark_{SPARK_MINOR}_2.13:{DELTA_VERSION}"


def repo_root() -> Path:
    env = os.environ.get("DELTALITE_ROOT")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2]


def cache_dir() -> Path:
    return repo_root() / ".cache"


def ivy_dir() -> Path:
    return cache_dir() / "ivy"


def jar_list_file() -> Path:
    return cache_dir() / "spark" / "jars.txt"
