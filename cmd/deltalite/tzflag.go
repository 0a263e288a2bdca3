package main

import (
	"fmt"
	"os"

	"github.com/spf13/pflag"

	"github.com/deltalite-go/deltalite/internal/expr"
)

// envSessionTimeZone is the default of --session-time-zone (and the IO
// handler's session_time_zone, iohandler.EnvSessionTimeZone).
const envSessionTimeZone = "DELTALITE_SESSION_TIME_ZONE"

// zoneFlag is --session-time-zone: a zone as Spark's
// spark.sql.session.timeZone reads it, checked when given.
type zoneFlag struct {
	zone string
	set  bool
}

func (z *zoneFlag) String() string { return z.zone }
func (z *zoneFlag) Type() string   { return "ZONE" }
func (z *zoneFlag) Set(v string) error {
	if _, err := expr.NewSession(v); err != nil {
		return err
	}
	z.zone, z.set = v, true
	return nil
}

// value is the zone given, else $DELTALITE_SESSION_TIME_ZONE's, else ""
// (UTC); a bad zone in the environment is refused naming the variable.
func (z *zoneFlag) value() (string, error) {
	if z.set {
		return z.zone, nil
	}
	v := os.Getenv(envSessionTimeZone)
	if _, err := expr.NewSession(v); err != nil {
		return "", fmt.Errorf("$%s: %v (or give --session-time-zone)", envSessionTimeZone, err)
	}
	return v, nil
}

// addSessionTimeZoneFlag registers --session-time-zone on a command that
// binds predicates or a table's generated columns and CHECK constraints.
func addSessionTimeZoneFlag(f *pflag.FlagSet) *zoneFlag {
	z := &zoneFlag{}
	f.Var(z, "session-time-zone", "the time zone a TIMESTAMP is read in, as Spark's spark.sql.session.timeZone: for timestamp "+
		"literals and text, and the table's generated columns and CHECK constraints (CAST(ts AS DATE), hour(ts), date_format, ...); "+
		"a region (America/New_York), UTC, Z or an offset (+05:30). Give the zone the table's Spark writers use (default $"+
		envSessionTimeZone+", else UTC)")
	return z
}
