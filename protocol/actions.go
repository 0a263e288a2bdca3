// Package protocol is the Delta transaction log as data: the actions of
// PROTOCOL.md, their JSON form, the log segment (which commit and checkpoint
// files make up a version), action reconciliation and table features.
//
// It does no I/O at all (its subpackage checkpoint neither): snapshot reads
// the log and txn writes it. Its one import of storage is the pure key rule
// storage.CleanKey.
package protocol

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
)

// Protocol is the protocol action: the reader/writer versions and, from
// reader 3 / writer 7, the explicit feature lists.
type Protocol struct {
	MinReaderVersion int      `json:"minReaderVersion"`
	MinWriterVersion int      `json:"minWriterVersion"`
	ReaderFeatures   []string `json:"readerFeatures,omitempty"`
	WriterFeatures   []string `json:"writerFeatures,omitempty"`
}

// Format is the metaData format; provider is always "parquet".
type Format struct {
	Provider string            `json:"provider"`
	Options  map[string]string `json:"options"`
}

// Metadata is the metaData action.
type Metadata struct {
	ID               string            `json:"id"`
	Name             *string           `json:"name,omitempty"`
	Description      *string           `json:"description,omitempty"`
	Format           Format            `json:"format"`
	SchemaString     string            `json:"schemaString"`
	PartitionColumns []string          `json:"partitionColumns"`
	Configuration    map[string]string `json:"configuration"`
	CreatedTime      *int64            `json:"createdTime,omitempty"`
}

// DeletionVector is a deletion vector descriptor.
type DeletionVector struct {
	StorageType    string `json:"storageType"` // "u" (relative UUID path), "i" (inline), "p" (absolute path)
	PathOrInlineDv string `json:"pathOrInlineDv"`
	Offset         *int32 `json:"offset,omitempty"`
	SizeInBytes    int32  `json:"sizeInBytes"`
	Cardinality    int64  `json:"cardinality"`
}

// UniqueID identifies a DV within a table: storageType + pathOrInlineDv
// [+ "@" + offset]. File actions reconcile by (path, UniqueID).
func (d *DeletionVector) UniqueID() string {
	if d == nil {
		return ""
	}
	id := d.StorageType + d.PathOrInlineDv
	if d.Offset != nil {
		id += "@" + strconv.Itoa(int(*d.Offset))
	}
	return id
}

// PartitionValues map partition columns to the log's text form of their
// values; "" means null. It is written with JSON null for null, as Spark
// does, because some readers take "" for an empty string.
type PartitionValues map[string]string

// MarshalJSON writes "" as null.
func (pv PartitionValues) MarshalJSON() ([]byte, error) {
	if pv == nil {
		return []byte("{}"), nil
	}
	m := make(map[string]*string, len(pv))
	for k, v := range pv {
		if v != "" {
			m[k] = &v
		} else {
			m[k] = nil
		}
	}
	return json.Marshal(m)
}

// Add is the add action: a data file that is part of the table.
// PartitionValues hold the log's strings; "" means null.
type Add struct {
	Path                    string            `json:"path"`
	PartitionValues         PartitionValues   `json:"partitionValues"`
	Size                    int64             `json:"size"`
	ModificationTime        int64             `json:"modificationTime"`
	DataChange              bool              `json:"dataChange"`
	Stats                   string            `json:"stats,omitempty"`
	Tags                    map[string]string `json:"tags,omitempty"`
	DeletionVector          *DeletionVector   `json:"deletionVector,omitempty"`
	BaseRowID               *int64            `json:"baseRowId,omitempty"`
	DefaultRowCommitVersion *int64            `json:"defaultRowCommitVersion,omitempty"`
	ClusteringProvider      *string           `json:"clusteringProvider,omitempty"`
}

// Remove is the remove action: a tombstone for a file no longer in the table.
type Remove struct {
	Path                    string            `json:"path"`
	DeletionTimestamp       *int64            `json:"deletionTimestamp,omitempty"`
	DataChange              bool              `json:"dataChange"`
	ExtendedFileMetadata    *bool             `json:"extendedFileMetadata,omitempty"`
	PartitionValues         PartitionValues   `json:"partitionValues,omitempty"`
	Size                    *int64            `json:"size,omitempty"`
	Stats                   string            `json:"stats,omitempty"`
	Tags                    map[string]string `json:"tags,omitempty"`
	DeletionVector          *DeletionVector   `json:"deletionVector,omitempty"`
	BaseRowID               *int64            `json:"baseRowId,omitempty"`
	DefaultRowCommitVersion *int64            `json:"defaultRowCommitVersion,omitempty"`
}

// Txn is an application transaction identifier.
type Txn struct {
	AppID       string `json:"appId"`
	Version     int64  `json:"version"`
	LastUpdated *int64 `json:"lastUpdated,omitempty"`
}

// CDC is a change data file of the change data feed.
type CDC struct {
	Path            string            `json:"path"`
	PartitionValues PartitionValues   `json:"partitionValues"`
	Size            int64             `json:"size"`
	DataChange      bool              `json:"dataChange"`
	Tags            map[string]string `json:"tags,omitempty"`
}

// DomainMetadata is a named configuration blob; Removed is a tombstone.
type DomainMetadata struct {
	Domain        string `json:"domain"`
	Configuration string `json:"configuration"`
	Removed       bool   `json:"removed"`
}

// CheckpointMetadata is the one header action of a v2 checkpoint.
type CheckpointMetadata struct {
	Version int64             `json:"version"`
	Tags    map[string]string `json:"tags,omitempty"`
}

// Sidecar points a v2 checkpoint at a file of file actions in _delta_log/_sidecars.
type Sidecar struct {
	Path             string            `json:"path"`
	SizeInBytes      int64             `json:"sizeInBytes"`
	ModificationTime int64             `json:"modificationTime"`
	Tags             map[string]string `json:"tags,omitempty"`
}

// CommitInfo is kept as raw JSON (engines put anything in it) with the
// fields this engine reads decoded alongside.
type CommitInfo struct {
	Timestamp           *int64         `json:"timestamp,omitempty"`
	InCommitTimestamp   *int64         `json:"inCommitTimestamp,omitempty"`
	Operation           string         `json:"operation,omitempty"`
	OperationParameters map[string]any `json:"operationParameters,omitempty"`
	ReadVersion         *int64         `json:"readVersion,omitempty"`
	IsBlindAppend       *bool          `json:"isBlindAppend,omitempty"`
	// Raw is the whole object as written, unknown fields included.
	Raw map[string]any `json:"-"`
}

func (c *CommitInfo) UnmarshalJSON(b []byte) error {
	type plain CommitInfo
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*c = CommitInfo(p)
	c.Raw = raw
	return nil
}

func (c CommitInfo) MarshalJSON() ([]byte, error) {
	out := make(map[string]any, len(c.Raw)+6)
	for k, v := range c.Raw {
		out[k] = v
	}
	set := func(k string, v any, ok bool) {
		if ok {
			out[k] = v
		}
	}
	set("timestamp", c.Timestamp, c.Timestamp != nil)
	set("inCommitTimestamp", c.InCommitTimestamp, c.InCommitTimestamp != nil)
	set("operation", c.Operation, c.Operation != "")
	set("operationParameters", c.OperationParameters, c.OperationParameters != nil)
	set("readVersion", c.ReadVersion, c.ReadVersion != nil)
	set("isBlindAppend", c.IsBlindAppend, c.IsBlindAppend != nil)
	return json.Marshal(out)
}

// Action is one line of a commit: exactly one field is set. Unknown action
// kinds decode to an Action with no field set and are ignored by replay.
type Action struct {
	Protocol           *Protocol           `json:"protocol,omitempty"`
	Metadata           *Metadata           `json:"metaData,omitempty"`
	Add                *Add                `json:"add,omitempty"`
	Remove             *Remove             `json:"remove,omitempty"`
	Txn                *Txn                `json:"txn,omitempty"`
	CommitInfo         *CommitInfo         `json:"commitInfo,omitempty"`
	CDC                *CDC                `json:"cdc,omitempty"`
	DomainMetadata     *DomainMetadata     `json:"domainMetadata,omitempty"`
	CheckpointMetadata *CheckpointMetadata `json:"checkpointMetadata,omitempty"`
	Sidecar            *Sidecar            `json:"sidecar,omitempty"`
}

// DecodePath turns a log path (RFC 2396 URI-encoded) into the object key or
// absolute URI it names.
func DecodePath(p string) (string, error) {
	s, err := url.PathUnescape(p)
	if err != nil {
		return "", fmt.Errorf("path %q is not a valid URI path: %w", p, err)
	}
	return s, nil
}

// EncodePath is the inverse of DecodePath for relative keys: it
// percent-escapes what a URI path may not hold (non-ASCII bytes included)
// and keeps "/"; every reader decodes it back to the key.
func EncodePath(key string) string {
	u := url.URL{Path: key}
	return u.EscapedPath()
}

// MarshalJSON writes the feature lists exactly when the versions call for
// them (reader 3 / writer 7), as empty arrays when there are none: Spark
// rejects a table-features protocol without its lists.
func (p Protocol) MarshalJSON() ([]byte, error) {
	out := map[string]any{"minReaderVersion": p.MinReaderVersion, "minWriterVersion": p.MinWriterVersion}
	if p.MinReaderVersion >= 3 || p.ReaderFeatures != nil {
		out["readerFeatures"] = nonNil(p.ReaderFeatures)
	}
	if p.MinWriterVersion >= 7 || p.WriterFeatures != nil {
		out["writerFeatures"] = nonNil(p.WriterFeatures)
	}
	return json.Marshal(out)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// MarshalJSON keeps partitionValues (as {} when empty) whenever the remove
// claims extended file metadata, which promises the field is there.
func (r Remove) MarshalJSON() ([]byte, error) {
	type plain Remove
	b, err := json.Marshal(plain(r))
	if err != nil || r.ExtendedFileMetadata == nil || !*r.ExtendedFileMetadata || len(r.PartitionValues) > 0 {
		return b, err
	}
	// plain omitted the empty map: add it back.
	return append(b[:len(b)-1], []byte(`,"partitionValues":{}}`)...), nil
}

// RemoveOf is the tombstone of the live file a, removed at now (ms): with
// extended file metadata, its deletion vector and row tracking fields, as
// PROTOCOL.md asks of writers so that readers and vacuum know exactly what
// went away.
func RemoveOf(a *Add, now int64) *Remove {
	ext := true
	size := a.Size
	return &Remove{
		Path: a.Path, DeletionTimestamp: &now, DataChange: true, ExtendedFileMetadata: &ext,
		PartitionValues: a.PartitionValues, Size: &size, Tags: a.Tags, DeletionVector: a.DeletionVector,
		BaseRowID: a.BaseRowID, DefaultRowCommitVersion: a.DefaultRowCommitVersion,
	}
}
