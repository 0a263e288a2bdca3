package txn

import (
	"encoding/json"
	"maps"
	"slices"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/schema"
)

// newProtocol and newMetadata are the protocol and metaData in effect
// after the commit: the commit's own, else the read snapshot's.
func (t *Txn) newProtocol() *protocol.Protocol {
	for _, a := range t.actions {
		if a.Protocol != nil {
			return a.Protocol
		}
	}
	if t.snap != nil {
		return t.snap.Protocol()
	}
	return nil
}

func (t *Txn) newMetadata() *protocol.Metadata {
	for _, a := range t.actions {
		if a.Metadata != nil {
			return a.Metadata
		}
	}
	if t.snap != nil {
		return t.snap.Metadata()
	}
	return nil
}

func invalid(format string, args ...any) error {
	return errs.New(errs.InvalidArgument, "", format, args...)
}

// validate checks the commit before any attempt: the actions are a valid
// commit on their own (PROTOCOL.md "Delta Log Entries"), the table is
// writable by this engine as the commit leaves it, and the commit keeps
// the table's obligations (append-only, in-commit timestamps).
func (t *Txn) validate() error {
	if t.st == nil {
		return invalid("the transaction has no table (Begin was given no snapshot)")
	}
	if err := validateActions(t.actions); err != nil {
		return err
	}
	p, md := t.newProtocol(), t.newMetadata()
	if t.snap == nil && (p == nil || md == nil) {
		return invalid("the first commit of a table needs a protocol and a metaData action")
	}
	md = t.nameMaterializedRowColumns(p, md)
	if err := validateMetadata(md); err != nil {
		return err
	}
	if err := t.checkPropertyChanges(md, p); err != nil {
		return err
	}
	if t.snap != nil && p != t.snap.Protocol() {
		if lost := protocol.DroppedFeatures(t.snap.Protocol(), p); len(lost) > 0 {
			return invalid("the new protocol %s drops features %v of the table's %s; features are never removed", p, lost, t.snap.Protocol())
		}
	}
	if err := CheckProtocolWritable(p, md, t.op); err != nil {
		return err
	}
	if ictEnabled(md) && !slices.Contains(p.WriterFeatures, "inCommitTimestamp") {
		return invalid("%s is true but the protocol %s does not list the inCommitTimestamp writer feature",
			protocol.PropEnableInCommitTimestamps, p)
	}
	for _, a := range t.actions {
		if a.DomainMetadata != nil && !slices.Contains(p.EffectiveWriterFeatures(), "domainMetadata") {
			return invalid("domainMetadata action for %q, but the protocol %s does not list the domainMetadata writer feature", a.DomainMetadata.Domain, p)
		}
	}
	if err := t.checkDeletionVectorAdds(p, md); err != nil {
		return err
	}
	if err := t.checkRowIDAdds(p, md); err != nil {
		return err
	}
	if appendOnly(md) {
		for _, a := range t.actions {
			if a.Remove != nil && a.Remove.DataChange {
				return errs.New(errs.InvalidArgument, a.Remove.Path,
					"the table is append-only (%s=true): a commit may not remove data (only dataChange=false rearrangement)", protocol.PropAppendOnly)
			}
		}
	}
	if t.blind != nil && *t.blind && !t.derivedBlindAppend() {
		return invalid("the commit is not a blind append: it declared reads or removes files")
	}
	return nil
}

// validateActions enforces the per-commit rules: no generated or
// checkpoint-only actions, at most one protocol, metaData, txn per appId and
// domainMetadata per domain, and at most one file action per file.
func validateActions(actions []protocol.Action) error {
	var nProto, nMeta int
	apps := map[string]bool{}
	domains := map[string]bool{}
	// Spark's checkNoDuplicateActions: a path is added at most once and
	// removed at most once, whatever its deletion vectors (two adds of one
	// path would leave its rows live twice), and never added and removed
	// with the same vector; a remove and an add of one path with different
	// vectors is a deletion-vector re-add.
	added, removed := map[string]string{}, map[string]string{}
	fileAction := func(path string, dv *protocol.DeletionVector, kind string) error {
		if path == "" {
			return invalid("%s action without a path", kind)
		}
		key, id := decodedPath(path), dv.UniqueID()
		same, other, otherKind := added, removed, "remove"
		if kind == "remove" {
			same, other, otherKind = removed, added, "add"
		}
		if _, ok := same[key]; ok {
			return errs.New(errs.InvalidArgument, path, "the commit has more than one file action for this file (%s, then %s)", kind, kind)
		}
		if prev, ok := other[key]; ok && prev == id {
			return errs.New(errs.InvalidArgument, path, "the commit has more than one file action for this file with the same deletion vector (%s, then %s)", otherKind, kind)
		}
		same[key] = id
		return nil
	}
	for i := range actions {
		a := &actions[i]
		switch {
		case a.Add != nil:
			if a.Add.Size < 0 {
				return errs.New(errs.InvalidArgument, a.Add.Path, "add action with negative size")
			}
			if err := fileAction(a.Add.Path, a.Add.DeletionVector, "add"); err != nil {
				return err
			}
		case a.Remove != nil:
			if err := fileAction(a.Remove.Path, a.Remove.DeletionVector, "remove"); err != nil {
				return err
			}
		case a.Protocol != nil:
			if nProto++; nProto > 1 {
				return invalid("the commit has more than one protocol action")
			}
		case a.Metadata != nil:
			if nMeta++; nMeta > 1 {
				return invalid("the commit has more than one metaData action")
			}
		case a.Txn != nil:
			if a.Txn.AppID == "" {
				return invalid("txn action without an appId")
			}
			if apps[a.Txn.AppID] {
				return invalid("the commit has more than one txn action for appId %q", a.Txn.AppID)
			}
			apps[a.Txn.AppID] = true
		case a.DomainMetadata != nil:
			d := a.DomainMetadata.Domain
			if d == "" {
				return invalid("domainMetadata action without a domain")
			}
			if domains[d] {
				return invalid("the commit has more than one domainMetadata action for domain %q", d)
			}
			domains[d] = true
		case a.CDC != nil:
			if a.CDC.Path == "" {
				return invalid("cdc action without a path")
			}
		case a.CommitInfo != nil:
			return invalid("commitInfo is generated by the transaction; pass caller fields in Options.Metadata")
		case a.CheckpointMetadata != nil, a.Sidecar != nil:
			return invalid("checkpointMetadata and sidecar actions belong in checkpoints, not commits")
		default:
			return invalid("action %d of the commit is empty", i)
		}
	}
	return nil
}

func validateMetadata(md *protocol.Metadata) error {
	if md == nil {
		return nil
	}
	if md.ID == "" {
		return invalid("metaData action without an id")
	}
	if md.Format.Provider != "" && md.Format.Provider != "parquet" {
		return invalid("metaData format provider %q; Delta tables are parquet", md.Format.Provider)
	}
	sc, err := schema.Parse(md.SchemaString)
	if err != nil {
		return errs.Wrap(errs.InvalidArgument, "", err, "metaData schemaString")
	}
	for _, c := range md.PartitionColumns {
		if sc.Field(c) == nil {
			return invalid("partition column %q is not in the schema", c)
		}
	}
	return nil
}

// checkPropertyChanges applies Delta's rules for table properties to those
// the commit sets or changes (keys the engine maintains aside), and
// requires the protocol to carry every feature they need: a property must
// never be stored without its feature.
func (t *Txn) checkPropertyChanges(md *protocol.Metadata, p *protocol.Protocol) error {
	var prev map[string]string
	if t.snap != nil {
		if md == t.snap.Metadata() {
			return nil
		}
		prev = t.snap.Metadata().Configuration
	}
	changed := map[string]string{}
	for k, v := range md.Configuration {
		if old, ok := prev[k]; (!ok || old != v) && !protocol.EngineMaintained(k) && !(t.op.Name == OpAddConstraint && protocol.IsConstraintKey(k)) {
			changed[k] = v
		}
	}
	canon, _, err := protocol.CheckProperties(changed, WritableFeature)
	if err != nil {
		return err
	}
	for k, v := range changed {
		// Readers look keys and values up as Delta spells them.
		if c := protocol.CanonicalKey(k); c != k || (canon[c] != "" && canon[c] != v) {
			return invalid("table property %s = %s must be spelled %s = %s", k, v, c, canon[c])
		}
	}
	for _, k := range slices.Sorted(maps.Keys(changed)) {
		for _, f := range protocol.RequiredFeatures(nil, map[string]string{k: changed[k]}) {
			if !p.HasFeature(f) {
				return invalid("table property %s = %s needs the %s table feature, which the protocol %s lacks: commit a protocol action with it",
					k, changed[k], f, p)
			}
		}
	}
	return nil
}

// derivedBlindAppend is Spark's rule: no declared reads and no file action
// other than add.
func (t *Txn) derivedBlindAppend() bool {
	if t.readWholeTable || len(t.predicates) > 0 || len(t.readFiles) > 0 {
		return false
	}
	for _, a := range t.actions {
		if a.Remove != nil {
			return false
		}
	}
	return true
}

func (t *Txn) isBlindAppend() bool {
	if t.blind != nil && !*t.blind {
		return false
	}
	return t.derivedBlindAppend()
}

// checkDeletionVectorAdds holds the adds that carry a deletion vector to
// Spark's commit check (getAssertDeletionVectorWellFormedFunc): the
// protocol supports deletion vectors, the table as the commit leaves it
// allows new ones (delta.enableDeletionVectors true, Spark's
// DELTA_ADDING_DELETION_VECTORS_DISALLOWED; an operation that only updates
// files' metadata in place, such as ROW TRACKING BACKFILL, may re-add a
// file with its vector on a table where they are off, as Spark's
// isInPlaceFileMetadataUpdate operations may), the statistics count the
// file's rows (PROTOCOL.md: readers need numRecords to count a file with a
// vector), and, but for RESTORE, which brings back adds as they were, the
// bounds are marked loose (tightBounds false): the minimum and maximum may
// be those of deleted rows.
func (t *Txn) checkDeletionVectorAdds(p *protocol.Protocol, md *protocol.Metadata) error {
	for _, a := range t.actions {
		if a.Add == nil || a.Add.DeletionVector == nil {
			continue
		}
		if !p.HasFeature("deletionVectors") {
			return errs.New(errs.InvalidArgument, a.Add.Path,
				"the add carries a deletion vector but the table's protocol %s does not support the deletionVectors feature", p)
		}
		if !DeletionVectors(p, md) && !t.op.InPlaceFileMetadataUpdate {
			return errs.New(errs.InvalidArgument, a.Add.Path,
				"%s adds a file with a deletion vector but the table does not permit new deletion vectors: %s is not true "+
					"(Spark refuses the commit too, DELTA_ADDING_DELETION_VECTORS_DISALLOWED); set %s=true on the table first, "+
					"or write the change copy-on-write", t.op.Name, protocol.PropEnableDeletionVectors, protocol.PropEnableDeletionVectors)
		}
		var st struct {
			NumRecords  *int64 `json:"numRecords"`
			TightBounds *bool  `json:"tightBounds"`
		}
		if a.Add.Stats == "" || json.Unmarshal([]byte(a.Add.Stats), &st) != nil || st.NumRecords == nil {
			return errs.New(errs.InvalidArgument, a.Add.Path,
				"the add carries a deletion vector but its statistics do not count its rows (numRecords), which the protocol requires")
		}
		if t.op.Name != OpRestore && (st.TightBounds == nil || *st.TightBounds) {
			return errs.New(errs.InvalidArgument, a.Add.Path,
				"the add carries a new deletion vector but its statistics claim tight bounds: set tightBounds false (stats.Loosened), as Spark requires")
		}
	}
	return nil
}
