// Package cliout is the output of command-line tools built on this module
// (the deltalite command and the integration modules' commands): record batches as an aligned
// table, CSV, NDJSON or Parquet, the format settled from --format, the
// --output file's extension and the terminal, and --output files that
// appear only when the command succeeds.
package cliout
