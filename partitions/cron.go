package partitions

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// cronSpec is a parsed 5-field cron expression: minute hour day-of-month
// month day-of-week, each field a set of allowed values.
type cronSpec struct {
	src                    string
	minute, hour, dom, mon uint64 // bit i set: value i allowed
	dow                    uint64 // 0 = Sunday .. 6 (7 is read as Sunday)
	domStar, dowStar       bool
}

var cronFields = [5]struct {
	name     string
	min, max int
}{{"minute", 0, 59}, {"hour", 0, 23}, {"day of month", 1, 31}, {"month", 1, 12}, {"day of week", 0, 7}}

// parseCron reads "minute hour dom month dow" with *, lists (1,15),
// ranges (1-5) and steps (*/15, 0-30/10).
func parseCron(src string) (*cronSpec, error) {
	fs := strings.Fields(src)
	if len(fs) != 5 {
		return nil, fmt.Errorf("cron schedule %q has %d fields; it needs 5: minute hour day-of-month month day-of-week", src, len(fs))
	}
	var sets [5]uint64
	for i, f := range fs {
		set, err := parseCronField(f, cronFields[i].min, cronFields[i].max)
		if err != nil {
			return nil, fmt.Errorf("cron schedule %q, %s field %q: %v", src, cronFields[i].name, f, err)
		}
		sets[i] = set
	}
	dow := sets[4]
	if dow&(1<<7) != 0 {
		dow = dow&^(1<<7) | 1
	}
	return &cronSpec{src: src, minute: sets[0], hour: sets[1], dom: sets[2], mon: sets[3], dow: dow,
		domStar: fs[2] == "*", dowStar: fs[4] == "*"}, nil
}

func parseCronField(f string, lo, hi int) (uint64, error) {
	var set uint64
	for _, item := range strings.Split(f, ",") {
		rng, stepText, hasStep := strings.Cut(item, "/")
		step := 1
		if hasStep {
			n, err := strconv.Atoi(stepText)
			if err != nil || n < 1 {
				return 0, fmt.Errorf("step %q is not a positive number", stepText)
			}
			step = n
		}
		a, b := lo, hi
		if rng != "*" {
			first, last, isRange := strings.Cut(rng, "-")
			var err error
			if a, err = cronNumber(first, lo, hi); err != nil {
				return 0, err
			}
			b = a
			if isRange {
				if b, err = cronNumber(last, lo, hi); err != nil {
					return 0, err
				}
				if b < a {
					return 0, fmt.Errorf("range %q runs backwards", rng)
				}
			} else if hasStep {
				b = hi // "5/15" is 5, 20, 35, 50
			}
		}
		for v := a; v <= b; v += step {
			set |= 1 << uint(v)
		}
	}
	return set, nil
}

func cronNumber(s string, lo, hi int) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	if n < lo || n > hi {
		return 0, fmt.Errorf("%d is outside %d-%d", n, lo, hi)
	}
	return n, nil
}

func (c *cronSpec) dayMatches(t time.Time) bool {
	if c.mon&(1<<uint(t.Month())) == 0 {
		return false
	}
	domOK := c.dom&(1<<uint(t.Day())) != 0
	dowOK := c.dow&(1<<uint(t.Weekday())) != 0
	// As in every cron: when both day fields are restricted, either may match.
	if !c.domStar && !c.dowStar {
		return domOK || dowOK
	}
	return domOK && dowOK
}

// matches reports whether the wall clock of t (in its location) is a tick.
func (c *cronSpec) matches(t time.Time) bool {
	return t.Second() == 0 && t.Nanosecond() == 0 && c.minute&(1<<uint(t.Minute())) != 0 &&
		c.hour&(1<<uint(t.Hour())) != 0 && c.dayMatches(t)
}

// maxCronDays bounds the search for the next tick: a schedule such as
// "0 0 30 2 *" never fires, and must not loop for ever.
const maxCronDays = 366 * 8

// next returns the first tick strictly after t, in t's location. A wall
// clock skipped by a daylight saving change does not fire; one repeated
// by it fires once, at its first occurrence.
func (c *cronSpec) next(t time.Time) (time.Time, error) {
	loc := t.Location()
	y, m, d := t.Date()
	for i := 0; i <= maxCronDays; i++ {
		day := time.Date(y, m, d+i, 12, 0, 0, 0, loc)
		if !c.dayMatches(day) {
			continue
		}
		for h := 0; h < 24; h++ {
			if c.hour&(1<<uint(h)) == 0 {
				continue
			}
			for mi := 0; mi < 60; mi++ {
				if c.minute&(1<<uint(mi)) == 0 {
					continue
				}
				cand := time.Date(day.Year(), day.Month(), day.Day(), h, mi, 0, 0, loc)
				if !cand.After(t) || cand.Hour() != h || cand.Minute() != mi || cand.Day() != day.Day() {
					continue // not later, or a wall clock the zone skips
				}
				// A repeated wall clock (fall back) fires at its first instant.
				if earlier := cand.Add(-time.Hour); earlier.Hour() == h && earlier.Minute() == mi && earlier.Day() == day.Day() {
					if !earlier.After(t) {
						continue
					}
					cand = earlier
				}
				return cand, nil
			}
		}
	}
	return time.Time{}, fmt.Errorf("cron schedule %q has no tick within %d days after %s", c.src, maxCronDays, t.Format(time.RFC3339))
}
