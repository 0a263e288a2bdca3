package protocol

import (
	"encoding/json"
	"fmt"
	"maps"
	"strconv"
	"strings"
)

// Row tracking (PROTOCOL.md "Row Tracking"): the names Delta gives its
// domain, properties and materialized columns.
const (
	// RowTrackingDomain holds the row id high water mark.
	RowTrackingDomain = "delta.rowTracking"
	// PropRowTrackingSuspended stops writers from assigning row ids.
	PropRowTrackingSuspended = "delta.rowTrackingSuspended"
	// PropMaterializedRowID and PropMaterializedRowCommitVersion name the
	// hidden data file columns that keep a copied row's id and version.
	PropMaterializedRowID            = "delta.rowTracking.materializedRowIdColumnName"
	PropMaterializedRowCommitVersion = "delta.rowTracking.materializedRowCommitVersionColumnName"
	// NoHighWaterMark is the mark of a table that assigned no row id yet
	// (Spark's MISSING_HIGH_WATER_MARK): the first id is 0.
	NoHighWaterMark int64 = -1
	// RowTrackingPreservedTag is the commitInfo tag by which a commit says
	// whether it kept the row ids and commit versions of the rows it copied
	// or updated ("true" or "false"; absent means not kept). Spark's
	// DELETE, UPDATE, MERGE and OPTIMIZE (REORG too) write it "true" on a
	// table with row tracking enabled; its appends and metadata commits
	// write no tag.
	RowTrackingPreservedTag = "delta.rowTracking.preserved"
)

// RowTrackingSupported reports whether writers must assign fresh row ids
// and commit versions to the adds they commit: the protocol has the
// rowTracking feature and delta.rowTrackingSuspended is not true.
func RowTrackingSupported(p *Protocol, md *Metadata) bool {
	if p == nil || !p.HasFeature("rowTracking") {
		return false
	}
	if md == nil {
		return true
	}
	suspended, _ := Properties(md.Configuration).Bool(PropRowTrackingSuspended, false)
	return !suspended
}

// RowTrackingEnabled reports whether row ids are relied upon
// (delta.enableRowTracking is true): writers then preserve the ids and
// versions of rows they copy, in the materialized columns.
func RowTrackingEnabled(p *Protocol, md *Metadata) bool {
	if !RowTrackingSupported(p, md) {
		return false
	}
	on, _ := Properties(md.Configuration).Bool(PropEnableRowTracking, false)
	return on
}

// MaterializedRowColumns are the names of the materialized row id and
// row commit version columns of a table with row tracking enabled.
func MaterializedRowColumns(md *Metadata) (rowID, commitVersion string, err error) {
	rowID, commitVersion = md.Configuration[PropMaterializedRowID], md.Configuration[PropMaterializedRowCommitVersion]
	if rowID == "" || commitVersion == "" {
		return "", "", fmt.Errorf("row tracking is enabled but the table's metaData lacks %s or %s", PropMaterializedRowID, PropMaterializedRowCommitVersion)
	}
	return rowID, commitVersion, nil
}

// WithMaterializedRowColumns returns md with the materialized column names
// assigned when the protocol supports row tracking, as Spark assigns them
// on every metaData of such a table: the old table's names when it has
// them, else new random ones (prefix + UUID, which no column name is).
// md itself is returned when nothing changes.
func WithMaterializedRowColumns(p *Protocol, old, md *Metadata, uuid func() string) *Metadata {
	if md == nil || p == nil || !p.HasFeature("rowTracking") {
		return md
	}
	names := map[string]string{PropMaterializedRowID: "_row-id-col-", PropMaterializedRowCommitVersion: "_row-commit-version-col-"}
	var out *Metadata
	for _, key := range []string{PropMaterializedRowID, PropMaterializedRowCommitVersion} {
		want := md.Configuration[key]
		if old != nil && old.Configuration[key] != "" {
			want = old.Configuration[key]
		}
		if want == "" {
			want = names[key] + uuid()
		}
		if md.Configuration[key] == want {
			continue
		}
		if out == nil {
			c := *md
			c.Configuration = maps.Clone(md.Configuration)
			if c.Configuration == nil {
				c.Configuration = map[string]string{}
			}
			out = &c
		}
		out.Configuration[key] = want
	}
	if out == nil {
		return md
	}
	return out
}

// rowTrackingDomain is the configuration of the delta.rowTracking domain.
type rowTrackingDomain struct {
	RowIDHighWaterMark *int64 `json:"rowIdHighWaterMark"`
}

// RowIDHighWaterMark reads the highest row id assigned from the
// delta.rowTracking domain's configuration.
func RowIDHighWaterMark(config string) (int64, error) {
	var d rowTrackingDomain
	if err := json.Unmarshal([]byte(config), &d); err != nil || d.RowIDHighWaterMark == nil {
		return 0, fmt.Errorf("domain %s: configuration %q has no rowIdHighWaterMark", RowTrackingDomain, truncate(config))
	}
	return *d.RowIDHighWaterMark, nil
}

// RowIDHighWaterMarkAction is the domainMetadata action recording mark.
func RowIDHighWaterMarkAction(mark int64) Action {
	return Action{DomainMetadata: &DomainMetadata{Domain: RowTrackingDomain,
		Configuration: `{"rowIdHighWaterMark":` + strconv.FormatInt(mark, 10) + `}`}}
}

func truncate(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return strings.TrimSpace(s)
}

// NumRecords is the file's physical row count from its statistics
// (numRecords counts rows a deletion vector deletes too); false when the
// add has no statistics or they lack it.
func (a *Add) NumRecords() (int64, bool) {
	if a == nil || a.Stats == "" {
		return 0, false
	}
	var s struct {
		NumRecords *int64 `json:"numRecords"`
	}
	if json.Unmarshal([]byte(a.Stats), &s) != nil || s.NumRecords == nil || *s.NumRecords < 0 {
		return 0, false
	}
	return *s.NumRecords, true
}
