package errs

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestWrapKeepsBothMessages(t *testing.T) {
	inner := New(NotFound, "_delta_log/00000000000000000003.json", "commit file missing")
	err := Wrap(Internal, "s3://b/t", inner, "loading version %d", 3)
	if !errors.Is(err, ErrNotFound) || errors.Is(err, ErrInternal) {
		t.Errorf("kind: %v", err)
	}
	want := "not found: s3://b/t: loading version 3: _delta_log/00000000000000000003.json: commit file missing"
	if err.Error() != want {
		t.Errorf("got  %q\nwant %q", err.Error(), want)
	}
	same := Wrap(NotFound, "k", New(NotFound, "k", "inner"), "outer")
	if same.Error() != "not found: k: outer: inner" {
		t.Errorf("shared kind and path repeated: %q", same.Error())
	}
	other := Wrap(Internal, "k", fmt.Errorf("disk: %w", New(CorruptTable, "k", "bad")), "reading")
	if !errors.Is(other, ErrCorruptTable) || !strings.Contains(other.Error(), "reading") {
		t.Errorf("wrapped through fmt: %v", other)
	}
	if c := Wrap(Internal, "", context.Canceled, "x"); !errors.Is(c, ErrCanceled) {
		t.Errorf("canceled: %v", c)
	}
	if Wrap(Internal, "", nil, "x") != nil {
		t.Error("nil wrapped")
	}
}

func TestRecoveredKeepsTheStack(t *testing.T) {
	var err error
	func() {
		defer func() {
			if v := recover(); v != nil {
				err = Recovered(Internal, "f.parquet", "rewrite", v)
			}
		}()
		panic("a bug")
	}()
	var p *Panic
	if !errors.Is(err, ErrInternal) || !errors.As(err, &p) {
		t.Fatalf("got %v", err)
	}
	if !strings.Contains(string(p.Stack), "TestRecoveredKeepsTheStack") {
		t.Errorf("stack does not show the panicking function:\n%s", p.Stack)
	}
	if got := err.Error(); got != "internal error: f.parquet: rewrite: unexpected failure: panic: a bug" {
		t.Errorf("message %q", got)
	}
}

func TestNonNegativeNamesTheFirstNegativeKnob(t *testing.T) {
	if err := NonNegative("op: ", Knob{"A", 0}, Knob{"B", 5}); err != nil {
		t.Fatalf("no negative knob: %v", err)
	}
	err := NonNegative("op: ", Knob{"A", 1}, Knob{"B", -2}, Knob{"C", -3})
	if !errors.Is(err, ErrInvalidArgument) || !strings.Contains(err.Error(), "op: B must not be negative (got -2)") {
		t.Fatalf("got %v", err)
	}
}
