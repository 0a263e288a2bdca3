package protocol

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Reader features this engine reads correctly. Anything else listed in
// readerFeatures makes the table unreadable for us, by name.
var supportedReaderFeatures = map[string]bool{
	"columnMapping":        true,
	"deletionVectors":      true,
	"timestampNtz":         true,
	"v2Checkpoint":         true,
	"vacuumProtocolCheck":  true,
	"typeWidening":         true,
	"typeWidening-preview": true,
}

// MaxReaderVersion is the highest reader protocol version understood.
const MaxReaderVersion = 3

// UnsupportedReaderFeatures returns what in p stops this engine from
// reading the table, e.g. ["readerVersion 5"] or ["variantType"]; empty
// when the table reads.
func UnsupportedReaderFeatures(p *Protocol) []string {
	if p == nil {
		return nil
	}
	var out []string
	if p.MinReaderVersion > MaxReaderVersion {
		out = append(out, fmt.Sprintf("readerVersion %d", p.MinReaderVersion))
	}
	if p.MinReaderVersion >= 3 {
		for _, f := range p.ReaderFeatures {
			if !supportedReaderFeatures[f] {
				out = append(out, f)
			}
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// ReaderFeatures lists the reader features in effect, legacy versions
// expanded (reader 2 implies columnMapping).
func (p *Protocol) EffectiveReaderFeatures() []string {
	switch {
	case p.MinReaderVersion >= 3:
		return p.ReaderFeatures
	case p.MinReaderVersion == 2:
		return []string{"columnMapping"}
	}
	return nil
}

// EffectiveWriterFeatures lists the writer features in effect, legacy
// writer versions expanded as PROTOCOL.md prescribes.
func (p *Protocol) EffectiveWriterFeatures() []string {
	if p.MinWriterVersion >= 7 {
		return p.WriterFeatures
	}
	legacy := [][]string{
		2: {"appendOnly", "invariants"},
		3: {"checkConstraints"},
		4: {"changeDataFeed", "generatedColumns"},
		5: {"columnMapping"},
		6: {"identityColumns"},
	}
	var out []string
	for v := 2; v <= p.MinWriterVersion && v < len(legacy); v++ {
		out = append(out, legacy[v]...)
	}
	return out
}

// HasFeature reports whether a reader or writer feature is in effect.
func (p *Protocol) HasFeature(name string) bool {
	return slices.Contains(p.EffectiveReaderFeatures(), name) || slices.Contains(p.EffectiveWriterFeatures(), name)
}

// DroppedFeatures lists the features of old that new no longer has.
func DroppedFeatures(old, new *Protocol) []string {
	var out []string
	for _, f := range old.EffectiveWriterFeatures() {
		if !slices.Contains(new.EffectiveWriterFeatures(), f) {
			out = append(out, f)
		}
	}
	for _, f := range old.EffectiveReaderFeatures() {
		if !slices.Contains(new.EffectiveReaderFeatures(), f) {
			out = append(out, f)
		}
	}
	return out
}

// String renders the protocol as "r3/w7 [deletionVectors, ...]".
func (p *Protocol) String() string {
	s := fmt.Sprintf("r%d/w%d", p.MinReaderVersion, p.MinWriterVersion)
	feats := append(slices.Clone(p.ReaderFeatures), p.WriterFeatures...)
	sort.Strings(feats)
	feats = slices.Compact(feats)
	if len(feats) > 0 {
		s += " [" + strings.Join(feats, ", ") + "]"
	}
	return s
}

// MergeProtocols is the protocol that supports everything a and b do: the
// higher reader and writer versions, and, where those are table-feature
// versions, the union of the features each has in effect (legacy versions
// expanded). It is how an operation that brings an older state back (a
// restore) keeps the table's protocol from being downgraded.
func MergeProtocols(a, b *Protocol) *Protocol {
	p := &Protocol{MinReaderVersion: max(a.MinReaderVersion, b.MinReaderVersion), MinWriterVersion: max(a.MinWriterVersion, b.MinWriterVersion)}
	union := func(x, y []string) []string {
		out := append(slices.Clone(x), y...)
		sort.Strings(out)
		return slices.Compact(out)
	}
	if p.MinWriterVersion >= 7 {
		p.WriterFeatures = union(a.EffectiveWriterFeatures(), b.EffectiveWriterFeatures())
	}
	if p.MinReaderVersion >= 3 {
		p.ReaderFeatures = union(a.EffectiveReaderFeatures(), b.EffectiveReaderFeatures())
	}
	return p
}
