package expr

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/schema"
)

// from_utc_timestamp and to_utc_timestamp name their time zone, so they
// do not depend on the session's (the zone every other datetime function
// reads a TIMESTAMP in, through localMicros and zonedMicros below): Spark's convertTz, the local date-time
// of the instant in one zone read in the other, a local time in a
// daylight-saving gap moved forward by the gap and one in an overlap
// taking the earlier offset (java.time's ZonedDateTime.ofLocal).

// bindZoneFunc binds from_utc_timestamp(ts, tz) and to_utc_timestamp.
func (b *binder) bindZoneFunc(e *Call) (node, error) {
	ts, err := b.timestampOperand(e, e.Args[0])
	if err != nil {
		return nil, err
	}
	if !isType(ts.Type(), schema.Timestamp) {
		ts = &castN{x: ts, t: tTimestamp, implicit: true}
	}
	tz, err := b.stringOperand(e.Args[1])
	if err != nil {
		return nil, err
	}
	if l, ok := tz.(*lit); ok {
		if s, ok := l.v.(string); ok {
			if _, err := zoneNamed(s); err != nil {
				return nil, errAt(e.Args[1], "%s: %v", e.Name, err)
			}
		}
	}
	return b.fold(&callN{fn: e.Name, args: []node{ts, tz}, t: tTimestamp}, e)
}

// zoneFunction evaluates them.
func (ev *evaluator) zoneFunction(n *callN, args []value) (value, error) {
	zones := map[string]*time.Location{}
	return ev.mapRows(args, tTimestamp, true, func(v []any) (any, error) {
		name := v[1].(string)
		loc, ok := zones[name]
		if !ok {
			var err error
			if loc, err = zoneNamed(name); err != nil {
				return nil, errs.New(errs.InvalidArgument, "", "%s: %v", n.fn, err)
			}
			zones[name] = loc
		}
		us := int64(v[0].(arrow.Timestamp))
		if n.fn == "from_utc_timestamp" {
			return arrow.Timestamp(localMicros(loc, us)), nil
		}
		return arrow.Timestamp(zonedMicros(loc, us)), nil
	})
}

// The session time zone (Session) reads a TIMESTAMP through these, as
// java.time does: localMicros is the local date-time of an instant,
// zonedMicros the instant of a local date-time.

// localMicros is the local date-time of instant us (microseconds since
// the epoch) in loc, in microseconds since the epoch read as UTC
// (java.time's LocalDateTime).
func localMicros(loc *time.Location, us int64) int64 {
	if loc == time.UTC {
		return us
	}
	return us + int64(offsetAt(loc, floorDiv(us, 1e6)))*1e6
}

// zonedMicros is the instant of local date-time w (microseconds read as
// UTC) in loc, as java.time's ZonedDateTime.ofLocal gives it without a
// preferred offset: in a daylight-saving overlap the earlier offset, in a
// gap w moved forward by the gap.
func zonedMicros(loc *time.Location, w int64) int64 {
	if loc == time.UTC {
		return w
	}
	return w - int64(localOffset(loc, floorDiv(w, 1e6)))*1e6
}

// PartitionValue is schema.ParsePartitionValue in the session: the log's
// text of a TIMESTAMP partition value that names no zone is a local
// date-time in the session zone. The protocol reads it in "the time zone
// of the system which wrote to the table", which Spark takes to be its
// session's; modern writers (Spark, this engine) write UTC with a Z.
func (s Session) PartitionValue(t schema.Type, text string) (any, bool, error) {
	v, ok, err := schema.ParsePartitionValue(t, text)
	if !ok || err != nil || s.loc == nil || s.loc == time.UTC || !isType(t, schema.Timestamp) {
		return v, ok, err
	}
	if _, zoned, _ := schema.ParseTimestampZoned(text); zoned {
		return v, ok, nil
	}
	return arrow.Timestamp(zonedMicros(s.loc, int64(v.(arrow.Timestamp)))), true, nil
}

// zonedMicrosKeeping is zonedMicros keeping offset off where it is valid
// for w, as ZonedDateTime's plusDays, plusMonths and truncatedTo keep the
// offset of the date-time they start from in an overlap.
func zonedMicrosKeeping(loc *time.Location, w int64, off int) int64 {
	if loc == time.UTC {
		return w
	}
	if offsetAt(loc, floorDiv(w, 1e6)-int64(off)) == off {
		return w - int64(off)*1e6
	}
	return zonedMicros(loc, w)
}

// offsetMicros is the offset of loc at instant us, in seconds.
func offsetMicros(loc *time.Location, us int64) int {
	if loc == time.UTC {
		return 0
	}
	return offsetAt(loc, floorDiv(us, 1e6))
}

func offsetAt(loc *time.Location, sec int64) int {
	_, off := time.Unix(sec, 0).In(loc).Zone()
	return off
}

// localOffset is the offset java.time gives the local date-time w (in
// seconds as if UTC) in loc: the one offset valid for it; in an overlap
// the earlier (the one before the transition); in a gap the one before,
// which reads w as w plus the gap under the offset after.
func localOffset(loc *time.Location, w int64) int {
	before := offsetAt(loc, w-86400)
	var valid []int
	for _, o := range []int{before, offsetAt(loc, w), offsetAt(loc, w+86400)} {
		if offsetAt(loc, w-int64(o)) == o && !slices.Contains(valid, o) {
			valid = append(valid, o)
		}
	}
	switch {
	case len(valid) == 0:
		return before
	case slices.Contains(valid, before):
		return before
	}
	return valid[0]
}

var offsetZone = regexp.MustCompile(`^(?:UTC|GMT)?([+-])(\d{1,2})(?::?(\d{2}))?$`)

// zoneNamed is the zone Spark's getZoneId reads the name as: a region
// (Europe/Paris), UTC, GMT or Z, an offset (+08:00, -8, GMT+05:30), or
// one of java.time's ZoneId.SHORT_IDS (PST, IST, EST, ...).
func zoneNamed(name string) (*time.Location, error) {
	switch strings.ToUpper(name) {
	case "UTC", "Z", "GMT", "UT":
		return time.UTC, nil
	}
	if m := offsetZone.FindStringSubmatch(name); m != nil {
		h, _ := strconv.Atoi(m[2])
		mi := 0
		if m[3] != "" {
			mi, _ = strconv.Atoi(m[3])
		}
		if h > 18 || mi > 59 {
			return nil, fmt.Errorf("time zone %q: offset out of range", name)
		}
		off := h*3600 + mi*60
		if m[1] == "-" {
			off = -off
		}
		return time.FixedZone(name, off), nil
	}
	if id, ok := javaShortIDs[name]; ok {
		if id[0] == '-' {
			return zoneNamed(id)
		}
		name = id
	}
	// A region of the tz database (Europe/Paris, Japan, Etc/GMT+8), as
	// java.time's ZoneId.of reads it; never the process's own zone.
	if name != "Local" && name != "" && !strings.HasPrefix(name, "/") {
		if loc, err := time.LoadLocation(name); err == nil {
			return loc, nil
		}
	}
	return nil, fmt.Errorf("unknown time zone %q (use a region such as Europe/Paris, UTC, or an offset such as +08:00)", name)
}

// javaShortIDs are java.time's ZoneId.SHORT_IDS, which Spark's getZoneId
// accepts: three-letter names of regions, and of three fixed offsets.
var javaShortIDs = map[string]string{
	"ACT": "Australia/Darwin", "AET": "Australia/Sydney", "AGT": "America/Argentina/Buenos_Aires", "ART": "Africa/Cairo",
	"AST": "America/Anchorage", "BET": "America/Sao_Paulo", "BST": "Asia/Dhaka", "CAT": "Africa/Harare",
	"CNT": "America/St_Johns", "CST": "America/Chicago", "CTT": "Asia/Shanghai", "EAT": "Africa/Addis_Ababa",
	"ECT": "Europe/Paris", "IET": "America/Indiana/Indianapolis", "IST": "Asia/Kolkata", "JST": "Asia/Tokyo",
	"MIT": "Pacific/Apia", "NET": "Asia/Yerevan", "NST": "Pacific/Auckland", "PLT": "Asia/Karachi",
	"PNT": "America/Phoenix", "PRT": "America/Puerto_Rico", "PST": "America/Los_Angeles", "SST": "Pacific/Guadalcanal",
	"VST": "Asia/Ho_Chi_Minh", "EST": "-05:00", "MST": "-07:00", "HST": "-10:00",
}
