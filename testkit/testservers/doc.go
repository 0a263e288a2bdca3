// Package testservers starts the object-store servers that storage tests
// run against on 127.0.0.1: versitygw (S3) and Azurite (Azure Blob) as
// child processes installed by scripts/cloud-servers.sh, and
// fake-gcs-server (GCS) in process. Each starts once per test binary, on a
// free port, and StopAll ends them.
//
// When a server is not installed the test is skipped with the command that
// installs it, or fails if DELTALITE_REQUIRE_CLOUD_SERVERS is set (as CI
// does). It is for tests only and must never be imported by product code.
package testservers
