package txn

import (
	"fmt"
	"strings"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
)

// IsolationLevel is delta.isolationLevel, or SnapshotIsolation for a
// commit that changes no data.
type IsolationLevel string

const (
	// Serializable: a commit conflicts with every concurrent add it
	// should have read, blind appends included.
	Serializable IsolationLevel = "Serializable"
	// WriteSerializable (the default, as in Spark): concurrent blind
	// appends are ordered before this commit and do not conflict.
	WriteSerializable IsolationLevel = "WriteSerializable"
	// SnapshotIsolation is never a table setting: it is what a commit whose
	// file actions all have dataChange=false (compaction, an empty commit)
	// is checked at, so that it never conflicts with concurrent appends.
	SnapshotIsolation IsolationLevel = "SnapshotIsolation"
)

// Rule names the conflict rule that failed a commit.
type Rule string

const (
	RuleProtocolChanged Rule = "ProtocolChanged"
	RuleMetadataChanged Rule = "MetadataChanged"
	// RuleIdentityHighWaterMark: the winner's metaData differs from the
	// one read only in identity high watermarks, i.e. it numbered rows of
	// an identity column; values this commit assigned may repeat its own.
	RuleIdentityHighWaterMark  Rule = "IdentityHighWaterMark"
	RuleConcurrentAppend       Rule = "ConcurrentAppend"
	RuleConcurrentDeleteRead   Rule = "ConcurrentDeleteRead"
	RuleConcurrentDeleteDelete Rule = "ConcurrentDeleteDelete"
	RuleConcurrentTransaction  Rule = "ConcurrentTransaction"
	RuleConcurrentDomainChange Rule = "ConcurrentDomainMetadata"
	RuleRetriesExhausted       Rule = "RetriesExhausted"
)

// ConflictError details a commit conflict; it is the Err of the
// errs.CommitConflict error Commit returns, for errors.As.
type ConflictError struct {
	Rule            Rule
	WinningVersion  int64  // the other writer's version that conflicts (the latest seen when retries ran out)
	WinnerOperation string // its commitInfo.operation, when it has one
	Detail          string
}

func (e *ConflictError) Error() string {
	by := ""
	if e.WinnerOperation != "" {
		by = " (" + e.WinnerOperation + ")"
	}
	return fmt.Sprintf("%s: version %d%s committed by another writer: %s", e.Rule, e.WinningVersion, by, e.Detail)
}

func conflict(w *winner, rule Rule, format string, args ...any) *ConflictError {
	return &ConflictError{Rule: rule, WinningVersion: w.version, WinnerOperation: w.operation(), Detail: fmt.Sprintf(format, args...)}
}

func conflictErr(c *ConflictError) error {
	hint := " Re-read the table and run the operation again."
	switch c.Rule {
	case RuleRetriesExhausted:
		hint = " The table is busy: retry later or raise MaxRetries."
	case RuleConcurrentAppend, RuleConcurrentDeleteRead:
		hint += " A narrower read predicate (e.g. the partitions the operation touches) avoids conflicts with writes elsewhere."
	}
	return &errs.Error{Kind: errs.CommitConflict, Msg: "the commit conflicts with a concurrent commit." + hint, Err: c}
}

// winner is a commit another writer made after the read version.
type winner struct {
	version int64
	actions []protocol.Action
	info    *protocol.CommitInfo
}

func newWinner(version int64, actions []protocol.Action) *winner {
	w := &winner{version: version, actions: actions}
	for _, a := range actions {
		if a.CommitInfo != nil {
			w.info = a.CommitInfo
			break
		}
	}
	return w
}

func (w *winner) operation() string {
	if w.info == nil {
		return ""
	}
	return w.info.Operation
}

// blindAppend is the winner's own claim; a commit without one is not a
// blind append (older writers did not record it).
func (w *winner) blindAppend() bool {
	return w.info != nil && w.info.IsBlindAppend != nil && *w.info.IsBlindAppend
}

func (w *winner) txnID() string {
	if w.info == nil {
		return ""
	}
	s, _ := w.info.Raw["txnId"].(string)
	return s
}

// isolationLevel is the level the commit is checked at: the table's, or
// SnapshotIsolation when the commit changes no data (Spark's downgrade:
// only file actions, all with dataChange=false).
func (t *Txn) isolationLevel() (IsolationLevel, error) {
	md := t.newMetadata()
	if t.snap != nil {
		md = t.snap.Metadata()
	}
	level := WriteSerializable
	switch v := strings.ToLower(strings.TrimSpace(md.Configuration[protocol.PropIsolationLevel])); v {
	case "", "writeserializable":
	case "serializable":
		level = Serializable
	default:
		return "", errs.New(errs.UnsupportedTable, "", "table property %s = %q is not Serializable or WriteSerializable",
			protocol.PropIsolationLevel, md.Configuration[protocol.PropIsolationLevel])
	}
	for _, a := range t.actions {
		switch {
		case a.Add != nil && !a.Add.DataChange, a.Remove != nil && !a.Remove.DataChange, a.CDC != nil && !a.CDC.DataChange:
		default:
			return level, nil
		}
	}
	return SnapshotIsolation, nil
}

// metadataChanged reports whether the commit carries a metaData action.
func (t *Txn) metadataChanged() bool {
	for _, a := range t.actions {
		if a.Metadata != nil {
			return true
		}
	}
	return false
}

// readFileSet is the set of files the transaction read: those declared
// with ReadFiles and the read snapshot's files its predicates select.
func (t *Txn) readFileSet() (map[string]bool, error) {
	if t.readSet != nil {
		return t.readSet, nil
	}
	set := make(map[string]bool, len(t.readFiles))
	for p := range t.readFiles {
		set[p] = true
	}
	if len(t.predicates) > 0 && t.snap != nil {
		for _, f := range t.snap.Files() {
			m, _, err := t.matches(f)
			if err != nil {
				return nil, err
			}
			if m {
				set[decodedPath(f.Path)] = true
			}
		}
	}
	t.readSet = set
	return set, nil
}

// matches runs the caller's read predicates on a file, turning a panic in
// one into an error.
func (t *Txn) matches(a *protocol.Add) (ok bool, desc string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = errs.Recovered(errs.Internal, a.Path, fmt.Sprintf("read predicate %q", desc), r)
		}
	}()
	for _, p := range t.predicates {
		desc = p.desc
		if p.match(a) {
			return true, desc, nil
		}
	}
	return false, "", nil
}

// check runs the conflict rules against one winning commit, in Spark's
// order. It returns the first conflict, or an error when a rule could not
// be evaluated.
func (t *Txn) check(w *winner, level IsolationLevel) (*ConflictError, error) {
	var winProto *protocol.Protocol
	var winMeta *protocol.Metadata
	var winAdds []*protocol.Add
	var winRemoves []*protocol.Remove
	winApps := map[string]bool{}
	winDomains := map[string]bool{}
	for _, a := range w.actions {
		switch {
		case a.Protocol != nil:
			winProto = a.Protocol
		case a.Metadata != nil:
			winMeta = a.Metadata
		case a.Add != nil:
			winAdds = append(winAdds, a.Add)
		case a.Remove != nil:
			winRemoves = append(winRemoves, a.Remove)
		case a.Txn != nil:
			winApps[a.Txn.AppID] = true
		case a.DomainMetadata != nil:
			winDomains[a.DomainMetadata.Domain] = true
		}
	}

	if winProto != nil {
		for _, a := range t.actions {
			if a.Protocol != nil {
				return conflict(w, RuleProtocolChanged, "both commits change the protocol"), nil
			}
		}
		if protocol.RowTrackingSupported(winProto, t.newMetadata()) && !protocol.RowTrackingSupported(t.newProtocol(), t.newMetadata()) {
			return conflict(w, RuleProtocolChanged, "it made the table track row ids, which this commit was not planned for"), nil
		}
		if err := CheckProtocolWritable(winProto, t.newMetadata(), t.op); err != nil {
			return conflict(w, RuleProtocolChanged, "the table's new protocol %s: %v", winProto, err), nil
		}
	}
	if winMeta != nil && t.snap != nil && OnlyHighWaterMarks(t.snap.Metadata(), winMeta) {
		// The winner numbered identity rows (identity.go). A commit
		// without metaData is unaffected by the numbering; one that
		// numbered rows from a mark the winner moved past may repeat its
		// values; one numbered past the winner takes its marks.
		switch {
		case !t.metadataChanged():
		case !OnlyHighWaterMarks(t.snap.Metadata(), t.newMetadata()):
			// Spark's case (1): not merged, the plan was made before.
			return conflict(w, RuleIdentityHighWaterMark, "it assigned identity column values (the high watermark moved) and this transaction changes the table's metadata, planned on the older high watermarks"), nil
		default:
			col, err := t.identityOverlap(winMeta)
			if err != nil {
				return nil, err
			}
			if col != "" {
				return conflict(w, RuleIdentityHighWaterMark, "it assigned values of identity column %s past the high watermark this transaction numbered its rows from, so the two may repeat a value", col), nil
			}
			if err := t.takeHighWaterMarks(winMeta); err != nil {
				return nil, err
			}
		}
		winMeta = nil
	}
	if winMeta != nil {
		return conflict(w, RuleMetadataChanged, "the table's metadata (schema, partitioning or properties) changed"), nil
	}

	if level != SnapshotIsolation && (t.readWholeTable || len(t.predicates) > 0) {
		if level == WriteSerializable && !t.metadataChanged() && w.blindAppend() {
			winAdds = nil // a blind append is ordered before this commit
		}
		for _, a := range winAdds {
			if t.readWholeTable {
				return conflict(w, RuleConcurrentAppend, "it added %s and this transaction read the whole table", a.Path), nil
			}
			m, desc, err := t.matches(a)
			if err != nil {
				return nil, err
			}
			if m {
				return conflict(w, RuleConcurrentAppend, "it added %s, which this transaction's read predicate %q selects", a.Path, desc), nil
			}
		}
	}

	if len(winRemoves) > 0 {
		if t.readWholeTable {
			return conflict(w, RuleConcurrentDeleteRead, "it removed %s and this transaction read the whole table", winRemoves[0].Path), nil
		}
		read, err := t.readFileSet()
		if err != nil {
			return nil, err
		}
		for _, r := range winRemoves {
			if read[decodedPath(r.Path)] {
				return conflict(w, RuleConcurrentDeleteRead, "it removed %s, which this transaction read", r.Path), nil
			}
		}
		mine := map[string]bool{}
		for _, a := range t.actions {
			if a.Remove != nil {
				mine[decodedPath(a.Remove.Path)] = true
			}
		}
		for _, r := range winRemoves {
			if mine[decodedPath(r.Path)] {
				return conflict(w, RuleConcurrentDeleteDelete, "it removed %s, which this transaction removes too", r.Path), nil
			}
		}
	}

	for app := range winApps {
		if t.readApps[app] || t.writesApp(app) {
			return conflict(w, RuleConcurrentTransaction, "it committed application transaction %q, which this transaction depends on", app), nil
		}
	}
	for _, a := range t.actions {
		if a.DomainMetadata != nil && winDomains[a.DomainMetadata.Domain] {
			return conflict(w, RuleConcurrentDomainChange, "it changed domain %q, which this transaction changes too", a.DomainMetadata.Domain), nil
		}
	}
	return nil, nil
}

func (t *Txn) writesApp(app string) bool {
	for _, a := range t.actions {
		if a.Txn != nil && a.Txn.AppID == app {
			return true
		}
	}
	return false
}
