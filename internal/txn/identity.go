package txn

import (
	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/schema"
)

// Identity high watermarks under concurrency (Spark's IdentityColumn and
// ConflictChecker.checkNoMetadataUpdates). A commit that numbers identity
// rows advances delta.identity.highWaterMark in its metaData and, when
// that is its only metaData change, tags its commitInfo with
// IdentityCommitTag. A winner whose metaData differs from the read one in
// high watermarks alone:
//
//   - never conflicts with a commit that carries no metaData (Spark's
//     case (2): a DELETE, UPDATE or an insert of explicit values);
//   - conflicts (RuleIdentityHighWaterMark) with a commit that numbered
//     rows after a high watermark the winner moved past: both may hold a
//     value. Spark fails such a commit (MetadataChangedException); here the
//     operation plans again (op.Replan), or, for a write whose rows are in
//     files already, numbers them again past the winner (Txn.NumberedAfter)
//     and commits the same plan, so that no value repeats and no commit
//     fails for numbering alone;
//   - does not conflict with a commit that numbered rows past its high
//     watermarks (numbered again): that commit then takes, column by
//     column, the further of its own and the winner's marks;
//   - conflicts (RuleIdentityHighWaterMark) with a commit whose metaData
//     changes more than high watermarks, as in Spark: the plan was made for
//     the older metaData.

// IdentityCommitTag is the commitInfo tag Spark writes (true) on a commit
// whose metaData change only advances identity high watermarks; Spark's
// conflict checker lets such a winner pass a commit that changes no
// metaData, where it would fail it for any other metaData change.
const IdentityCommitTag = "delta.identity.schemaUpdate"

// NumberedAfter declares that the identity values of this commit's rows
// follow the high watermarks of md (by default those of the snapshot the
// transaction read): a write that numbered its rows again after losing a
// race to a commit that numbered rows too.
func (t *Txn) NumberedAfter(md *protocol.Metadata) { t.numberedAfter = md }

// idMark is an identity column's step and high watermark.
type idMark struct {
	step, hwm int64
	has       bool // whether the column has a high watermark
}

// identityMarks are the identity columns of a schema by name.
func identityMarks(schemaString string) (map[string]idMark, *schema.Struct, error) {
	sc, err := schema.Parse(schemaString)
	if err != nil {
		return nil, nil, err
	}
	out := map[string]idMark{}
	for _, f := range sc.Fields {
		if _, ok := f.Metadata[schema.IdentityStartKey]; !ok {
			continue
		}
		step, ok := schema.MetadataLong(f.Metadata[schema.IdentityStepKey])
		if !ok || step == 0 {
			continue // colrules refuses the table before anything is numbered
		}
		m := idMark{step: step}
		if v, present := f.Metadata[schema.IdentityHighWaterMarkKey]; present {
			if m.hwm, m.has = schema.MetadataLong(v); !m.has {
				continue
			}
		}
		out[f.Name] = m
	}
	return out, sc, nil
}

// past reports whether mark a lies beyond mark b in the column's direction;
// no mark lies before every value.
func (a idMark) past(b idMark) bool {
	switch {
	case !a.has:
		return false
	case !b.has:
		return true
	case a.step > 0:
		return a.hwm > b.hwm
	default:
		return a.hwm < b.hwm
	}
}

// identityOnlyUpdate reports whether the commit carries a metaData that
// differs from the read one in identity high watermarks alone.
func (t *Txn) identityOnlyUpdate() bool {
	if t.snap == nil || !t.metadataChanged() {
		return false
	}
	md := t.newMetadata()
	return md.SchemaString != t.snap.Metadata().SchemaString && OnlyHighWaterMarks(t.snap.Metadata(), md)
}

// identityOverlap names an identity column whose values this commit
// assigned (its high watermark moved past the one it numbered after) and
// the winner's metaData w assigned too (its mark moved past the same
// one): values both may hold. "" when none.
func (t *Txn) identityOverlap(w *protocol.Metadata) (string, error) {
	base := t.snap.Metadata()
	if t.numberedAfter != nil {
		base = t.numberedAfter
	}
	from, _, err1 := identityMarks(base.SchemaString)
	ours, _, err2 := identityMarks(t.newMetadata().SchemaString)
	theirs, _, err3 := identityMarks(w.SchemaString)
	if err := firstErr(err1, err2, err3); err != nil {
		return "", errs.Wrap(errs.CorruptTable, "", err, "reading identity high watermarks")
	}
	for name, m := range ours {
		if m.past(from[name]) && theirs[name].past(from[name]) {
			return name, nil
		}
	}
	return "", nil
}

// takeHighWaterMarks gives the commit's metaData, column by column, the
// further of its own high watermark and the winner's (w): the winner's
// values stay behind the mark whichever commit wrote it last.
func (t *Txn) takeHighWaterMarks(w *protocol.Metadata) error {
	md := t.newMetadata()
	ours, sc, err1 := identityMarks(md.SchemaString)
	theirs, _, err2 := identityMarks(w.SchemaString)
	if err := firstErr(err1, err2); err != nil {
		return errs.Wrap(errs.CorruptTable, "", err, "reading identity high watermarks")
	}
	changed := false
	for name, m := range theirs {
		if o, ok := ours[name]; ok && m.past(o) {
			sc.Field(name).Metadata[schema.IdentityHighWaterMarkKey] = m.hwm
			changed = true
		}
	}
	if !changed {
		return nil
	}
	next := *md
	next.SchemaString = sc.JSON()
	for i, a := range t.actions {
		if a.Metadata == md {
			t.actions[i] = protocol.Action{Metadata: &next}
		}
	}
	return nil
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
