"""Shared helpers for the scripts that run peer engines (delta-rs, pyarrow,
DuckDB, polars, Spark) against Delta tables for deltalite's interop tests.

Nothing here is part of the product: the Go tests run these scripts through
testkit/peers to check that deltalite reads what the peers write and the other
way round.
"""
