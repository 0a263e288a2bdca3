package protocol

import (
	"github.com/deltalite-go/deltalite/schema"
)

// Type widening's table feature names.
const (
	FeatureTypeWidening        = "typeWidening"
	FeatureTypeWideningPreview = "typeWidening-preview"
)

// TypeWidening is the widening a schema evolution of this table may apply
// to its columns, as Spark decides it (TypeWideningMode): none unless
// delta.enableTypeWidening is true and the protocol supports the
// typeWidening feature; only the changes Iceberg reads on a table with an
// Iceberg compatibility feature (PROTOCOL.md, Writer Requirements for
// Type Widening). A table with the preview feature (typeWidening-preview,
// Delta 3.2), whose type changes carry the version that made them, is not
// widened by this engine (TypeWideningPreview).
func TypeWidening(p *Protocol, md *Metadata) schema.Widening {
	if p == nil || md == nil || !p.HasFeature(FeatureTypeWidening) || TypeWideningPreview(p) {
		return schema.NoWidening
	}
	if on, err := Properties(md.Configuration).Bool(PropEnableTypeWidening, false); err != nil || !on {
		return schema.NoWidening
	}
	if p.HasFeature("icebergCompatV1") || p.HasFeature("icebergCompatV2") {
		return schema.WidenIceberg
	}
	return schema.WidenAll
}

// TypeWideningPreview reports a protocol with the preview of type
// widening (typeWidening-preview, Delta 3.2): this engine writes rows to
// such a table but never changes a type on it, since a writer must then
// record the table version in each type change for preview readers
// (Spark's TypeWideningMetadata does while the preview feature is there).
func TypeWideningPreview(p *Protocol) bool {
	return p != nil && p.HasFeature(FeatureTypeWideningPreview)
}
