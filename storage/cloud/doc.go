// Package cloud adds object stores to the storage registry: Amazon S3 and
// S3-compatible servers (s3://, s3a://), Azure Blob Storage and ADLS Gen2
// (az://, azure://, adl://, abfs://, abfss://) and Google Cloud Storage
// (gs://). Import it for its side effect:
//
//	import _ "github.com/deltalite-go/deltalite/storage/cloud"
//
// Storage options use the keys delta-rs and object_store use
// (AWS_REGION, AWS_ENDPOINT_URL, AZURE_STORAGE_ACCOUNT_NAME, ...), matched
// case-insensitively; environment variables of the same names fill in what
// the options leave out, and without credentials each cloud's standard
// credential chain applies. docs/storage.md lists every key.
//
// Commits are safe only where PutIfAbsent is an atomic create-if-absent:
// S3 If-None-Match: *, Azure If-None-Match: *, GCS ifGenerationMatch=0. An
// S3 endpoint that ignores the condition is detected on first write and
// refused, unless the caller opts in to single-writer mode with
// AWS_S3_ALLOW_UNSAFE_RENAME=true.
//
// This package must never put a credential into an error, a log line or a
// URL, and must never turn a failed condition into a silent overwrite.
package cloud
