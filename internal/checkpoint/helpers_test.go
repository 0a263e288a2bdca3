package checkpoint

import (
	"context"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/storage"
)

// readStore decodes the checkpoint made of parts from st, sidecars included, as
// the log replay does, for tests that start from files on a store.
func readStore(ctx context.Context, st storage.Store, parts []storage.ObjectInfo, fn func(protocol.Action) error) error {
	open := func(key string, decode func(File) error) error {
		r, err := st.Open(ctx, key)
		if err != nil {
			return errs.Wrap(errs.NotFound, key, err, "opening")
		}
		defer r.Close()
		return decode(r)
	}
	for _, p := range parts {
		var sidecars []string
		err := open(p.Key, func(f File) (err error) {
			sidecars, err = Decode(ctx, st.URL(), p.Key, f, fn)
			return err
		})
		for _, key := range sidecars {
			if err == nil {
				err = open(key, func(f File) error { return DecodeSidecar(ctx, key, f, fn) })
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// writeStore encodes the checkpoint of version into st, for tests.
func writeStore(ctx context.Context, st storage.Store, version int64, actions []protocol.Action, opt WriteOptions) (LastCheckpoint, error) {
	obj, err := storage.Create(ctx, st, protocol.CheckpointKey(version))
	if err != nil {
		return LastCheckpoint{}, err
	}
	lc, err := Encode(ctx, obj, version, actions, opt)
	if err != nil {
		obj.Abort()
		return LastCheckpoint{}, err
	}
	return lc, obj.Commit()
}
