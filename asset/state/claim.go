package state

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/filelock"
)

// ClaimsDir is the directory, under File's, of the lock files of claims.
const ClaimsDir = "claims"

// Claimer is a Store that also orders runs across the processes sharing
// it; the asset runtime takes a Claim around every run when its store is
// one.
type Claimer interface {
	Claim(ctx context.Context, asset string, keys []string, exclusive bool) (release func(), err error)
}

// Claim holds asset (the keys, or the whole asset when there are none)
// against the runs of other processes sharing the directory, by the
// runtime's rule: an exclusive claim excludes every overlapping claim, a
// shared one only exclusive ones. It waits until the locks are free or
// ctx ends.
//
// Each asset has two lock files, "whole" and "keyed", besides one per
// key: a whole-asset exclusive claim locks whole exclusively; a
// whole-asset shared claim locks whole and keyed shared; a keyed
// exclusive claim locks whole shared, keyed exclusively and its keys
// exclusively; a keyed shared claim (a materialization) locks whole and
// its keys shared. Locks are taken in that order, keys sorted, so claims
// never deadlock. Two keyed exclusive claims of different keys exclude
// each other across processes (keyed is exclusive), a caution the
// in-process claims do not need.
func (f *File) Claim(ctx context.Context, asset string, keys []string, exclusive bool) (func(), error) {
	dir := filepath.Join(f.dir, ClaimsDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, errs.Wrap(errs.Internal, dir, err, "creating the claims directory")
	}
	var held []*os.File
	release := func() {
		for _, h := range slices.Backward(held) {
			filelock.Unlock(h)
			_ = h.Close()
		}
	}
	take := func(name string, ex bool) error {
		lk, err := waitLock(ctx, filepath.Join(dir, name), ex)
		if err != nil {
			release()
			return errs.Wrap(errs.Internal, filepath.Join(dir, name), err, "claiming asset %q", asset)
		}
		held = append(held, lk)
		return nil
	}
	whole := len(keys) == 0
	if err := take(claimName(asset, "whole"), whole && exclusive); err != nil {
		return nil, err
	}
	if whole && exclusive {
		return release, nil
	}
	if whole || exclusive {
		if err := take(claimName(asset, "keyed"), exclusive); err != nil {
			return nil, err
		}
	}
	for _, k := range slices.Compact(slices.Sorted(slices.Values(keys))) {
		if err := take(claimName(asset, "key", k), exclusive); err != nil {
			return nil, err
		}
	}
	return release, nil
}

// claimName is a lock file of an asset: a hash of its parts, as names and
// keys may hold any character.
func claimName(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:12]) + ".lock"
}

// waitLock opens path and locks it, polling so that ctx can end the wait.
func waitLock(ctx context.Context, path string, exclusive bool) (*os.File, error) {
	lk, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	for wait := time.Millisecond; ; wait = min(2*wait, 100*time.Millisecond) {
		ok, err := filelock.TryLock(lk, exclusive)
		if ok {
			return lk, nil
		}
		if err == nil {
			select {
			case <-time.After(wait):
				continue
			case <-ctx.Done():
				err = ctx.Err()
			}
		}
		_ = lk.Close()
		return nil, err
	}
}
