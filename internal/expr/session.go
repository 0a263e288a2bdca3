package expr

import (
	"time"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/schema"
)

// Session is what binding takes from the session an expression runs in,
// as Spark's spark.sql.session.timeZone: the time zone that reads a
// timestamp literal or text without a zone, and in which CAST(ts AS DATE),
// date, hour, date_format, date_trunc, from_unixtime, unix_timestamp of a
// text or date, to_timestamp, months_between, timestampadd / timestampdiff
// by days or more, CAST(ts AS STRING) and the casts between TIMESTAMP and
// DATE or TIMESTAMP_NTZ see a TIMESTAMP's local date and time. The zone is
// fixed when an expression is bound and travels in its Bound. The zero
// Session is UTC, this engine's default: a Delta table does not record the
// zone its writers used.
type Session struct {
	loc *time.Location
}

// NewSession is the session of the named time zone, read as Spark reads
// spark.sql.session.timeZone: a region ("America/New_York"), "UTC", "Z",
// "GMT", or an offset ("+05:30", "-08:00", "GMT+8"); "" is UTC.
func NewSession(zone string) (Session, error) {
	if zone == "" {
		return Session{}, nil
	}
	loc, err := zoneNamed(zone)
	if err != nil {
		return Session{}, errs.New(errs.InvalidArgument, "", "%v", err)
	}
	if loc == time.UTC {
		return Session{}, nil
	}
	return Session{loc: loc}, nil
}

// Zone is the session's time zone.
func (s Session) Zone() *time.Location {
	if s.loc == nil {
		return time.UTC
	}
	return s.loc
}

// Bind is Bind in the session.
func (s Session) Bind(e Expr, rels map[string]*schema.Struct) (*Bound, error) {
	b, err := s.BindValue(e, rels)
	if err != nil {
		return nil, err
	}
	t := b.root.Type()
	if isVoid(t) {
		return newBound(&lit{t: tBool, src: e}, rels, b.loc), nil
	}
	if !isBool(t) {
		return nil, bindErr("%s is of type %s, not a predicate (a boolean expression)", e, typeName(t))
	}
	return b, nil
}

// BindValue is BindValue in the session.
func (s Session) BindValue(e Expr, rels map[string]*schema.Struct) (*Bound, error) {
	if e == nil {
		return nil, bindErr("no expression")
	}
	if len(rels) == 0 {
		return nil, bindErr("no relation to bind %s against", e)
	}
	for name, sc := range rels {
		if sc == nil {
			return nil, bindErr("relation %q has no schema", name)
		}
	}
	bd := &binder{rels: rels, now: time.Now().UTC().Truncate(time.Microsecond), loc: s.Zone()}
	n, err := bd.bind(e)
	if err != nil {
		return nil, err
	}
	return newBound(n, rels, bd.loc), nil
}

// Session is the session b was bound in.
func (b *Bound) Session() Session {
	if b.loc == time.UTC {
		return Session{}
	}
	return Session{loc: b.loc}
}

// BindTable is BindTable in the session.
func (s Session) BindTable(e Expr, sc *schema.Struct) (*Bound, error) {
	return s.Bind(e, map[string]*schema.Struct{"": sc})
}

// ParsePredicate is ParsePredicate in the session.
func (s Session) ParsePredicate(src string, sc *schema.Struct) (*Bound, error) {
	return s.Compile(src, map[string]*schema.Struct{"": sc})
}

// Compile is Compile in the session.
func (s Session) Compile(src string, rels map[string]*schema.Struct) (*Bound, error) {
	e, err := Parse(src)
	if err != nil {
		return nil, err
	}
	b, err := s.Bind(e, rels)
	return b, withPosition(src, err)
}
