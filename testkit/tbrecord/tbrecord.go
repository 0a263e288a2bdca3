// Package tbrecord is a testing.TB for testing test helpers: it records the
// first skip or failure a helper reports instead of ending the goroutine.
package tbrecord

import (
	"fmt"
	"testing"
)

// Recorder records the first Skip or Fatal message. It does not end the
// goroutine, so calls after the first are what would not have run and are
// ignored. Methods it does not override panic (the embedded TB is nil).
type Recorder struct {
	testing.TB
	SkipMsg, FatalMsg string
}

func (r *Recorder) Helper() {}

func (r *Recorder) record(to *string, msg string) {
	if r.SkipMsg == "" && r.FatalMsg == "" {
		*to = msg
	}
}

func (r *Recorder) Skip(args ...any) { r.record(&r.SkipMsg, fmt.Sprint(args...)) }
func (r *Recorder) Skipf(format string, args ...any) {
	r.record(&r.SkipMsg, fmt.Sprintf(format, args...))
}
func (r *Recorder) Fatal(args ...any) { r.record(&r.FatalMsg, fmt.Sprint(args...)) }
func (r *Recorder) Fatalf(format string, args ...any) {
	r.record(&r.FatalMsg, fmt.Sprintf(format, args...))
}
