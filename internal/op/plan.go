package op

import (
	"context"
	"strings"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/expr"
	"github.com/deltalite-go/deltalite/internal/rewrite"
	"github.com/deltalite-go/deltalite/internal/stats"
	"github.com/deltalite-go/deltalite/internal/txn"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/snapshot"
)

// Predicate binds the WHERE condition of a DELETE or UPDATE (verb) to
// snap's schema; nil means every row. Every row must be asked for with all
// and no text: a blank text alone is refused, so that a predicate left
// unset (a script's empty variable) never deletes or rewrites a whole
// table. The messages name the options as Options.Predicate and
// Options.All, which a caller with other names for them may replace. The
// predicate is bound in session sess.
func Predicate(verb, text string, all bool, snap *snapshot.Snapshot, sess expr.Session) (*expr.Bound, error) {
	blank := strings.TrimSpace(text) == ""
	switch {
	case all && !blank:
		return nil, errs.New(errs.InvalidArgument, "", "%s: Options.All (every row) and Options.Predicate %q: give one, not both", verb, text)
	case all:
		return nil, nil
	case blank:
		return nil, errs.New(errs.InvalidArgument, "", "%s: no Options.Predicate (it is empty or blank); give the WHERE condition, or Options.All to %s every row",
			verb, strings.ToLower(verb))
	}
	pred, err := sess.ParsePredicate(text, snap.Schema())
	if err != nil {
		return nil, errs.Wrap(errs.InvalidArgument, "", err, "%s predicate", verb)
	}
	return pred, nil
}

// Decide returns the classifier of snap's live files for pred, from their
// partition values and statistics: True, every live row matches (remove
// the file whole); False, none does (leave it); Unknown, read it. A nil
// pred matches every row. Statistics of a file with a deletion vector
// describe a superset of its live rows, which still proves all or none.
func Decide(snap *snapshot.Snapshot, pred *expr.Bound) func(*protocol.Add) expr.Tristate {
	if pred == nil {
		return func(*protocol.Add) expr.Tristate { return expr.True }
	}
	sc, mode := snap.Schema(), snap.ColumnMapping()
	partsOnly := expr.OnlyPartitionColumns(pred, snap.PartitionColumns())
	// What pred implies for generated partition columns decides files too
	// (d = CAST(ts AS DATE): WHERE ts < ... rules out later partitions).
	// The generated values are taken as computed in pred's session.
	sess := pred.Session()
	if g := sess.GeneratedPartitionFilter(pred.Expr(), sc, snap.PartitionColumns()); g != nil {
		if b, err := sess.BindTable(expr.And(pred.Expr(), g), sc); err == nil {
			pred = b
		}
	}
	return func(a *protocol.Add) expr.Tristate {
		f := expr.File{PartitionValues: a.PartitionValues}
		if !partsOnly {
			f.Stats = stats.Parse(a.Stats, sc, mode)
		}
		return expr.Decide(pred, f)
	}
}

// Plan is where a predicate's rows are among a snapshot's live files.
type Plan struct {
	// All are the files every live row of which matches, by the log.
	All []*protocol.Add
	// Some are the files the log could not decide that hold a matching
	// row, found by Matching.
	Some []*protocol.Add
	// Scanned counts the files whose rows Matching read.
	Scanned int
	// Decide is the classifier the plan used (see Decide).
	Decide func(*protocol.Add) expr.Tristate
}

// PlanFiles sorts snap's live files for pred (nil: every row matches):
// decided by the log first, then the undecided ones read by Matching.
func PlanFiles(ctx context.Context, snap *snapshot.Snapshot, pred *expr.Bound, opt rewrite.Options) (Plan, error) {
	p := Plan{Decide: Decide(snap, pred)}
	var undecided []*protocol.Add
	for _, a := range snap.Files() {
		switch p.Decide(a) {
		case expr.True:
			p.All = append(p.All, a)
		case expr.Unknown:
			undecided = append(undecided, a)
		}
	}
	some, err := rewrite.Matching(ctx, snap, undecided, pred, opt)
	if err != nil {
		return Plan{}, err
	}
	p.Some, p.Scanned = some, len(undecided)
	return p, nil
}

// ReadSet sets what a commit of an operation planned by p read: the
// files the predicate may select, or the whole table without one.
func (p Plan) ReadSet(c *Commit, pred *expr.Bound) {
	if pred == nil {
		return
	}
	c.Read = func(a *protocol.Add) bool { return p.Decide(a) != expr.False }
	c.ReadDescription = "the files that may hold rows where " + pred.String()
}

// Operation is the commit's operation name with Spark's parameters for a
// predicate: a JSON array of its text, empty without one.
func Operation(name string, pred *expr.Bound) txn.Operation {
	preds := []string{}
	if pred != nil {
		preds = append(preds, pred.String())
	}
	return txn.Operation{Name: name, Parameters: map[string]any{"predicate": preds}}
}
