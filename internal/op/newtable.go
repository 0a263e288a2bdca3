package op

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/google/uuid"

	"github.com/deltalite-go/deltalite/internal/colrules"
	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/expr"
	"github.com/deltalite-go/deltalite/internal/txn"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/snapshot"
	"github.com/deltalite-go/deltalite/storage"
)

// NewTableOptions describe a table to create.
type NewTableOptions struct {
	PartitionBy []string
	// ClusterBy makes a clustered table (liquid clustering) with these
	// clustering columns; it excludes PartitionBy.
	ClusterBy         []string
	Properties        map[string]string
	Name, Description string
}

// Empty is the table an operation creates in st with schema sc, as o
// describes: version -1 and no files (snapshot.Empty). Write, upsert and
// merge plan against it as against any table, and their one commit is
// version 0: the table and its first rows.
func Empty(st storage.Store, sc *schema.Struct, o NewTableOptions) (*snapshot.Snapshot, error) {
	md, p, domain, err := NewTable(st.URL(), uuid.NewString(), sc, o)
	if err != nil {
		return nil, err
	}
	if domain == nil {
		return snapshot.Empty(st, p, md)
	}
	return snapshot.Empty(st, p, md, domain)
}

// SourceSchema is the Delta schema of a source's Arrow schema, the schema
// of a table created from it.
func SourceSchema(uri string, as *arrow.Schema) (*schema.Struct, error) {
	if as == nil {
		return nil, errs.New(errs.InvalidArgument, uri, "the source has no schema")
	}
	sc, err := schema.FromArrow(as)
	if err != nil {
		return nil, errs.Wrap(errs.SchemaMismatch, uri, err, "source schema")
	}
	return sc, nil
}

// NewTable builds the protocol and metaData of a new table with schema sc
// (which it does not modify): partition columns resolved, column mapping
// ids assigned when a mapping mode is asked for, and the minimal protocol
// with the features the schema, properties and clustering need; a
// clustered table also gets its delta.clustering domain (else domain is
// nil).
func NewTable(uri, id string, sc *schema.Struct, o NewTableOptions) (_ *protocol.Metadata, _ *protocol.Protocol, domain *protocol.DomainMetadata, _ error) {
	sc = sc.Clone()
	parts, err := PartitionColumns(sc, o.PartitionBy)
	if err != nil {
		return nil, nil, nil, errs.Wrap(errs.InvalidArgument, uri, err, "partition columns")
	}
	if err := RefuseClusteringFeatureProperty(uri, o.Properties); err != nil {
		return nil, nil, nil, err
	}
	props, features, err := CheckProperties(uri, o.Properties)
	if err != nil {
		return nil, nil, nil, err
	}
	mode, err := schema.ParseMode(props[protocol.PropColumnMappingMode])
	if err != nil {
		return nil, nil, nil, errs.Wrap(errs.InvalidArgument, uri, err, "table properties")
	}
	if mode != schema.MappingNone {
		props[protocol.PropColumnMappingMaxID] = fmt.Sprint(schema.AssignColumnMapping(sc, 0))
	}
	if len(o.ClusterBy) > 0 {
		c, err := ResolveClustering(sc, parts, mode, props, o.ClusterBy)
		if err != nil {
			return nil, nil, nil, errs.Wrap(errs.InvalidArgument, uri, err, "clustering columns")
		}
		features = append(features, protocol.FeatureClustering, protocol.FeatureDomainMetadata)
		domain = c.Domain()
	}
	// A generated or identity column this engine could not keep would make
	// a table it cannot write.
	if err := colrules.CheckNewColumns(sc); err != nil {
		return nil, nil, nil, errs.Wrap(errs.InvalidArgument, uri, err, "schema")
	}
	if _, err := colrules.For(&protocol.Metadata{SchemaString: sc.JSON(), Configuration: props}, sc, expr.Session{}); err != nil {
		return nil, nil, nil, errs.Wrap(errs.InvalidArgument, uri, err, "schema")
	}
	p := protocol.MinimalProtocol(append(protocol.RequiredFeatures(sc, props), features...))
	if bad := protocol.UnsupportedReaderFeatures(&p); len(bad) > 0 {
		return nil, nil, nil, errs.New(errs.UnsupportedTable, uri, "the table would need %s, which this engine cannot read", strings.Join(bad, ", "))
	}
	created := time.Now().UnixMilli()
	md := &protocol.Metadata{
		ID:               id,
		Format:           protocol.Format{Provider: "parquet", Options: map[string]string{}},
		SchemaString:     sc.JSON(),
		PartitionColumns: parts,
		Configuration:    props,
		CreatedTime:      &created,
	}
	if o.Name != "" {
		md.Name = &o.Name
	}
	if o.Description != "" {
		md.Description = &o.Description
	}
	return md, &p, domain, nil
}

// RefuseClusteringFeatureProperty refuses delta.feature.clustering among
// properties a user gives, as Spark does: a table becomes clustered by
// CLUSTER BY (create, or alter), which records the columns too.
func RefuseClusteringFeatureProperty(uri string, props map[string]string) error {
	for k := range props {
		if strings.EqualFold(k, protocol.PropFeaturePrefix+protocol.FeatureClustering) {
			return errs.New(errs.InvalidArgument, uri, "table property %s cannot be set; make a clustered table with cluster by (create --cluster-by, or alter --cluster-by)", k)
		}
	}
	return nil
}

// CheckProperties validates the table properties a write or create was
// given (protocol.CheckProperties), before any file is written: it returns
// the configuration to store and the table features the properties add.
func CheckProperties(uri string, props map[string]string) (map[string]string, []string, error) {
	config, features, err := protocol.CheckProperties(props, txn.WritableFeature)
	var e *errs.Error
	if errors.As(err, &e) && e.Path == "" {
		e.Path = uri
	}
	return config, features, err
}

// PartitionColumns resolves the requested partition columns against the
// schema (case-insensitively, keeping the schema's spelling).
func PartitionColumns(sc *schema.Struct, names []string) ([]string, error) {
	out := []string{}
	for _, n := range names {
		f := sc.Field(strings.TrimSpace(n))
		if f == nil {
			return nil, fmt.Errorf("partition column %q is not in the schema (%s)", n, fieldNames(sc))
		}
		if slices.Contains(out, f.Name) {
			return nil, fmt.Errorf("partition column %q is listed twice", f.Name)
		}
		out = append(out, f.Name)
	}
	if len(out) > 0 && len(out) == len(sc.Fields) {
		return nil, fmt.Errorf("every column is a partition column: a table needs at least one data column")
	}
	return out, nil
}

func fieldNames(sc *schema.Struct) string {
	names := make([]string, len(sc.Fields))
	for i, f := range sc.Fields {
		names[i] = f.Name
	}
	return strings.Join(names, ", ")
}
