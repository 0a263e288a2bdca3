package op

import (
	"strings"

	"github.com/deltalite-go/deltalite/internal/colrules"
	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/expr"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/schema"
)

// WidenTypes checks the type changes from the table's schema (of
// metaData md under protocol p) to next, the schema an operation evolved
// or altered it to, and records them in next's field metadata
// (delta.typeChanges), as Spark's TypeWideningMetadata does. A change is
// refused, naming the column and the two types, when a CHECK constraint
// or a generated column reads the column (Spark's
// checkDependentExpressions), or when it widens a date to timestamp_ntz on
// a table without the timestampNtz feature, which Spark asks to enable by
// hand. next without a widened column is returned as it is; next is
// changed in place.
func WidenTypes(uri string, p *protocol.Protocol, md *protocol.Metadata, next *schema.Struct) (*schema.Struct, error) {
	old, err := schema.Parse(md.SchemaString)
	if err != nil {
		return nil, errs.Wrap(errs.CorruptTable, uri, err, "table schema")
	}
	changes := schema.Widened(old, next)
	if len(changes) == 0 {
		return next, nil
	}
	rules, err := colrules.For(md, old, expr.Session{}) // which columns the rules read, in any zone
	if err != nil {
		return nil, errs.Wrap(errs.UnsupportedTable, uri, err, "widening")
	}
	for _, c := range changes {
		if readers := rules.Readers(c.Path); len(readers) > 0 {
			return nil, errs.New(errs.InvalidArgument, uri, "column %q cannot be widened from %s to %s because %s reads it; drop it first, widen, and add it again",
				c.Column(), c.From, c.To, strings.Join(readers, " and "))
		}
		if c.To.String() == schema.TimestampNTZ && !p.HasFeature("timestampNtz") {
			return nil, errs.New(errs.InvalidArgument, uri, "column %q cannot be widened from %s to %s: the table lacks the timestampNtz feature, which Spark asks to enable by hand first "+
				"(alter --set-property delta.feature.timestampNtz=supported)", c.Column(), c.From, c.To)
		}
	}
	return schema.RecordTypeChanges(old, next), nil
}
