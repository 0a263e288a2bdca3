package main

import (
	"fmt"
	"time"
)

// asOfLayouts are the timestamp forms time travel accepts: RFC 3339, and
// SQL's date and timestamp literals (in UTC), as Spark's TIMESTAMP AS OF
// takes them. Fractional seconds may follow the seconds in each.
var asOfLayouts = []string{time.RFC3339Nano, "2006-01-02 15:04:05", "2006-01-02T15:04:05", "2006-01-02"}

// parseAsOf reads the value of a --timestamp flag.
func parseAsOf(flag, s string) (time.Time, error) {
	for _, l := range asOfLayouts {
		if ts, err := time.Parse(l, s); err == nil {
			return ts, nil
		}
	}
	return time.Time{}, fmt.Errorf("%s %q is not a timestamp: use RFC 3339 (2026-01-02T15:04:05Z) or a UTC date or timestamp (2026-01-02, 2026-01-02 15:04:05)", flag, s)
}
