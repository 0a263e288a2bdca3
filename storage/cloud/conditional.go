package cloud

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/storage"
)

// ErrNoConditionalWrites is matched (errors.Is) by the error a write returns
// on a store whose server ignores create-if-absent conditions, unless the
// user chose single-writer mode (AWS_S3_ALLOW_UNSAFE_RENAME=true).
var ErrNoConditionalWrites = errors.New("the store cannot create an object only if it is absent, so concurrent commits could overwrite each other")

type condMode int

const (
	condUnknown condMode = iota
	condNative           // the server enforces create-if-absent
	condUnsafe           // it does not; the user accepted check-then-write
	condRefused          // it does not; writes are refused
)

// conditional remembers whether the server enforces create-if-absent. S3
// compatible servers differ, so S3 stores probe on their first write; Azure
// and GCS always enforce it.
type conditional struct {
	probe    bool
	unsafeOK bool
	// declared is set when the user said the endpoint has no conditional
	// writes (AWS_CONDITIONAL_PUT=disabled): no probe, same outcome.
	declaredNone bool

	mu   sync.Mutex
	mode condMode
}

// CheckCommitSafety reports, probing the server if not done yet, whether
// commits to this store are safe: nil when the server enforces
// create-if-absent or the user chose single-writer mode, an error matching
// ErrNoConditionalWrites otherwise. Writers call it before writing data
// files, so that a refused table gets nothing written at all.
func (s *store) CheckCommitSafety(ctx context.Context) error {
	_, err := s.commitMode(ctx)
	return err
}

func (s *store) commitMode(ctx context.Context) (condMode, error) {
	c := s.cond
	if c == nil || !c.probe && !c.declaredNone {
		return condNative, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mode == condUnknown {
		supported := false
		if !c.declaredNone {
			var err error
			if supported, err = s.probeConditional(ctx); err != nil {
				return condUnknown, err
			}
		}
		switch {
		case supported:
			c.mode = condNative
		case c.unsafeOK:
			c.mode = condUnsafe
		default:
			c.mode = condRefused
		}
	}
	if c.mode == condRefused {
		return condRefused, &errs.Error{Kind: errs.InvalidArgument, Path: s.info.url,
			Msg: fmt.Sprintf("%s does not enforce If-None-Match: * on writes; "+
				"use an endpoint that does (AWS S3, versitygw, MinIO, ...), "+
				"or, if only one process ever writes this table, set AWS_S3_ALLOW_UNSAFE_RENAME=true", s.info.endpoint),
			Err: ErrNoConditionalWrites}
	}
	return c.mode, nil
}

// probeConditional creates a fresh object twice with the condition: the
// second attempt must be refused. The probe object is removed afterwards.
// Errors that say nothing about conditions (denied, unreachable) are
// returned and the probe runs again on the next write.
func (s *store) probeConditional(ctx context.Context) (bool, error) {
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	key := s.info.root + storage.TempPrefix + "conditional-write-probe-" + hex.EncodeToString(rnd[:])
	if err := s.b.createIfAbsent(ctx, key, []byte("1")); err != nil {
		if s.b.classify(err) == classUnsupported {
			return false, nil
		}
		return false, s.describeFailure("conditional write probe", "", err)
	}
	defer func() {
		// Clean up even if ctx has ended; the probe must not linger.
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		_ = s.b.deleteKeys(dctx, []string{key})
	}()
	err := s.b.createIfAbsent(ctx, key, []byte("2"))
	if err == nil {
		return false, nil // the condition was ignored: the object was overwritten
	}
	switch s.b.classify(err) {
	case classExists, classConflict:
		return true, nil
	case classUnsupported:
		return false, nil
	}
	return false, s.describeFailure("conditional write probe", "", err)
}
