package snapshot

import (
	"context"
	"errors"

	"github.com/deltalite-go/deltalite/internal/checkpoint"
	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/storage"
)

// readCheckpoint streams the actions of the checkpoint made of parts (one
// file, or every part of a multi-part checkpoint) to fn: each file, then the
// sidecar files it names. The checkpoint package decodes; the opening is
// done here, so that a missing sidecar is a corrupt table and a failing
// store is not a damaged file.
func readCheckpoint(ctx context.Context, st storage.Store, parts []storage.ObjectInfo, fn func(protocol.Action) error) error {
	for _, p := range parts {
		var sidecars []string
		err := withFile(ctx, st, p.Key, func(f storage.Reader) (err error) {
			sidecars, err = checkpoint.Decode(ctx, st.URL(), p.Key, f, fn)
			return err
		})
		if err != nil {
			return err
		}
		for _, key := range sidecars {
			err := withFile(ctx, st, key, func(f storage.Reader) error {
				return checkpoint.DecodeSidecar(ctx, key, f, fn)
			})
			if errors.Is(err, errs.ErrNotFound) {
				// errs.Wrap would keep the inner kind: this one is not a
				// missing table but a damaged one.
				return &errs.Error{Kind: errs.CorruptTable, Path: p.Key, Msg: "sidecar " + key + " named by the checkpoint is missing", Err: err}
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// withFile opens key for the duration of fn.
func withFile(ctx context.Context, st storage.Store, key string, fn func(storage.Reader) error) error {
	r, err := st.Open(ctx, key)
	if errors.Is(err, storage.ErrNotExist) {
		return errs.Wrap(errs.NotFound, key, err, "checkpoint file not found")
	}
	if err != nil {
		return errs.Wrap(errs.Internal, key, err, "opening checkpoint file")
	}
	defer r.Close()
	return fn(r)
}
