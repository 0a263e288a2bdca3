// Package cloudtest proves the table layer on object stores: every test in
// it drives deltalite's public API (Open, Write, Scan, History, Upsert, the
// CLI) against S3 (versitygw), Azure Blob (Azurite) and GCS
// (fake-gcs-server), started on 127.0.0.1 by testkit/testservers.
//
// It covers create, append, overwrite, partitioned writes, time travel and
// history; commit races between OS processes (the test binary re-executed
// as writers); multipart data files; failed and cancelled writes leaving no
// visible change; delta-rs and deltalite alternating and racing on one S3
// table; and bad credentials, buckets and endpoints failing fast without
// showing a secret.
//
// The package holds tests only. Servers that are not installed skip their
// tests with the command that installs them (scripts/cloud-servers.sh
// install), or fail them when DELTALITE_REQUIRE_CLOUD_SERVERS is set.
package cloudtest
