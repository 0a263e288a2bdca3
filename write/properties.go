package write

import (
	"context"
	"maps"
	"slices"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/op"
	"github.com/deltalite-go/deltalite/internal/txn"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/snapshot"
)

// PropertiesOptions configure SetProperties.
type PropertiesOptions struct {
	// CommitMaxRetries bounds retries after lost commit races (default 15;
	// negative: none).
	CommitMaxRetries int
	// CommitMetadata is merged into commitInfo.
	CommitMetadata map[string]any
	// SessionTimeZone is the time zone AddConstraint checks the table's
	// rows in (see Options.SessionTimeZone); "" is UTC.
	SessionTimeZone string
}

// SetProperties sets table properties on the existing table snap shows,
// as Spark's ALTER TABLE SET TBLPROPERTIES does: the properties are
// checked as a new table's are, a property that needs a table feature adds
// it to the protocol (never downgraded), and the new metaData is one
// commit that changes no data. Properties the table already has with the
// same values change nothing: no commit, and the result is snap. The
// column mapping mode is refused: changing it rewrites the schema.
// Turning row tracking on first upgrades the protocol and gives every file
// row ids (backfillRowIDs), in commits of their own, as Spark does.
func SetProperties(ctx context.Context, snap *snapshot.Snapshot, props map[string]string, o PropertiesOptions) (*snapshot.Snapshot, error) {
	if snap == nil || snap.IsEmpty() {
		return nil, errs.New(errs.TableNotFound, "", "setting table properties needs an existing table")
	}
	uri := snap.Store().URL()
	if err := op.RefuseClusteringFeatureProperty(uri, props); err != nil {
		return nil, err
	}
	config, features, err := op.CheckProperties(uri, props)
	if err != nil {
		return nil, err
	}
	old := snap.Properties()
	changed := false
	for k, v := range config {
		if cur, ok := old[k]; ok && cur == v {
			continue
		}
		if k == protocol.PropColumnMappingMode || k == protocol.PropColumnMappingMaxID {
			return nil, errs.New(errs.InvalidArgument, uri, "table property %s cannot be changed on an existing table (it is %q); recreate the table with mode create_or_replace", k, old[k])
		}
		changed = true
	}
	// delta.feature.<name> = supported changes the protocol alone, as
	// Spark's SET TBLPROPERTIES upgrades it.
	for _, f := range features {
		changed = changed || !snap.Protocol().HasFeature(f)
	}
	if !changed {
		return snap, nil
	}
	if enablesRowTracking(snap, config) {
		// Every file needs row ids before the property says they are there.
		if snap, err = backfillRowIDs(ctx, snap, o); err != nil {
			return nil, err
		}
		old = snap.Properties()
	}
	md := *snap.Metadata()
	md.Configuration = maps.Clone(old)
	if md.Configuration == nil {
		md.Configuration = map[string]string{}
	}
	maps.Copy(md.Configuration, config)
	op := txn.Operation{Name: txn.OpSetProperties, Parameters: map[string]any{"properties": config}}
	return commitMetadataChange(ctx, snap, op, &md, features, nil, o)
}

// keepFeatures is the protocol a table with protocol old needs to also
// support p: p when it is no downgrade of old, else the union of both
// (versions and features are never dropped). upgraded reports a result
// other than old.
func keepFeatures(old, p *protocol.Protocol) (_ *protocol.Protocol, upgraded bool) {
	if old.MinReaderVersion > p.MinReaderVersion || old.MinWriterVersion > p.MinWriterVersion || len(protocol.DroppedFeatures(old, p)) > 0 {
		merged := protocol.MinimalProtocol(slices.Concat(p.EffectiveWriterFeatures(), p.EffectiveReaderFeatures(),
			old.EffectiveWriterFeatures(), old.EffectiveReaderFeatures()))
		p = &merged
	}
	upgraded = p.MinReaderVersion != old.MinReaderVersion || p.MinWriterVersion != old.MinWriterVersion ||
		!slices.Equal(p.ReaderFeatures, old.ReaderFeatures) || !slices.Equal(p.WriterFeatures, old.WriterFeatures)
	return p, upgraded
}
