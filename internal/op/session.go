package op

import (
	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/expr"
)

// Session is the expression session of an operation's SessionTimeZone
// option, Spark's spark.sql.session.timeZone: the zone its predicates,
// generated columns and CHECK constraints read a TIMESTAMP in. "" is UTC,
// the default, since a Delta table does not record the zone its writers
// used. A zone Spark would not read is refused, naming the option.
func Session(zone string) (expr.Session, error) {
	s, err := expr.NewSession(zone)
	if err != nil {
		return expr.Session{}, errs.Wrap(errs.InvalidArgument, "", err, "Options.SessionTimeZone")
	}
	return s, nil
}
