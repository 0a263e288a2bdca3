package protocol

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strings"
)

// SameMetadata reports whether two metaData actions describe the same
// table: every field equal, the schema compared as JSON values (field order
// and spacing aside), a missing and an empty name, description, map or
// list alike. A writer commits a metaData action only when this is false,
// since any metaData action fails concurrent writers' commits.
func SameMetadata(a, b *Metadata) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.ID == b.ID && deref(a.Name) == deref(b.Name) && deref(a.Description) == deref(b.Description) &&
		a.Format.Provider == b.Format.Provider && maps.Equal(a.Format.Options, b.Format.Options) &&
		sameJSON(a.SchemaString, b.SchemaString) && slices.Equal(a.PartitionColumns, b.PartitionColumns) &&
		maps.Equal(a.Configuration, b.Configuration) && sameInt(a.CreatedTime, b.CreatedTime)
}

// SameProtocol reports whether two protocol actions require the same: the
// same reader and writer versions and the same features, in any order.
func SameProtocol(a, b *Protocol) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.MinReaderVersion == b.MinReaderVersion && a.MinWriterVersion == b.MinWriterVersion &&
		sameSet(a.EffectiveReaderFeatures(), b.EffectiveReaderFeatures()) &&
		sameSet(a.EffectiveWriterFeatures(), b.EffectiveWriterFeatures())
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func sameInt(a, b *int64) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// sameJSON compares two JSON texts as values, numbers by their text (no
// float rounding); text that does not parse is compared as it is.
func sameJSON(a, b string) bool {
	if a == b {
		return true
	}
	x, okX := decodeJSON(a)
	y, okY := decodeJSON(b)
	return okX && okY && reflect.DeepEqual(x, y)
}

func decodeJSON(s string) (any, bool) {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil || d.More() {
		return nil, false
	}
	return v, true
}

func sameSet(a, b []string) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(slices.Compact(x), slices.Compact(y))
}
