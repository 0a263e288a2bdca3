package main

import (
	"fmt"

	"github.com/spf13/pflag"
)

// dvFlag is --deletion-vectors: "auto" writes a row change as deletion
// vectors where the table has them on (delta.enableDeletionVectors),
// "off" rewrites the files instead.
type dvFlag string

func (d *dvFlag) String() string { return string(*d) }
func (d *dvFlag) Type() string   { return "auto|off" }
func (d *dvFlag) Set(v string) error {
	if v != "auto" && v != "off" {
		return fmt.Errorf("%q is not auto or off", v)
	}
	*d = dvFlag(v)
	return nil
}

// copyOnWrite is the operation's CopyOnWrite option.
func (d *dvFlag) copyOnWrite() bool { return *d == "off" }

// addDeletionVectorsFlag registers --deletion-vectors on a row-changing
// command.
func addDeletionVectorsFlag(f *pflag.FlagSet) *dvFlag {
	d := dvFlag("auto")
	f.Var(&d, "deletion-vectors", "auto: on a table with delta.enableDeletionVectors, mark the rows that leave a file "+
		"in its deletion vector instead of rewriting it; off: rewrite the files (copy-on-write)")
	return &d
}
