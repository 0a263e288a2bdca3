package checkpoint

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"path"
	"strings"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/storage"
)

// Read streams the actions of one checkpoint to fn. parts are the files of
// the checkpoint, keys relative to the table root: the one file of a
// classic or v2 checkpoint, or every part of a multi-part checkpoint.
//
// Parquet files are read column-projected and batch by batch; JSON (v2)
// files line by line. For a v2 checkpoint, the sidecar files its sidecar
// actions name (in _delta_log/_sidecars) are read after the checkpoint file
// and their file actions emitted; the sidecar actions themselves are not
// passed to fn. checkpointMetadata actions are. Add actions get their stats
// from add.stats, or rendered to the same JSON from add.stats_parsed when
// the checkpoint only has the typed form; likewise for partition values.
//
// Actions reach fn in file order; fn may keep them. An error from fn stops
// the read and is returned unchanged. A damaged file gives an
// errs.CorruptTable error naming it.
func Read(ctx context.Context, st storage.Store, parts []storage.ObjectInfo, fn func(protocol.Action) error) error {
	for _, p := range parts {
		if err := readCheckpointFile(ctx, st, p.Key, fn); err != nil {
			return err
		}
	}
	return nil
}

// readCheckpointFile reads one checkpoint file and then the sidecars it
// names.
func readCheckpointFile(ctx context.Context, st storage.Store, key string, fn func(protocol.Action) error) error {
	var sidecars []*protocol.Sidecar
	emit := func(a protocol.Action) error {
		if a.Sidecar != nil {
			sidecars = append(sidecars, a.Sidecar)
			return nil
		}
		return fn(a)
	}
	var err error
	if strings.HasSuffix(key, ".json") {
		err = readJSON(ctx, st, key, emit)
	} else {
		err = readParquet(ctx, st, key, emit)
	}
	if err != nil {
		return err
	}
	for _, sc := range sidecars {
		skey, err := sidecarKey(st, key, sc.Path)
		if err != nil {
			return err
		}
		err = readParquet(ctx, st, skey, func(a protocol.Action) error {
			if a.Add == nil && a.Remove == nil {
				// A sidecar holds file actions only; anything else in it
				// is not part of the checkpoint.
				return nil
			}
			return fn(a)
		})
		if err != nil {
			if errors.Is(err, errs.ErrNotFound) {
				return &errs.Error{Kind: errs.CorruptTable, Path: key, Msg: "sidecar " + skey + " named by the checkpoint is missing", Err: err}
			}
			return err
		}
	}
	return nil
}

// sidecarKey resolves a sidecar action's path: a file name (the usual
// form) or relative path under _delta_log/_sidecars next to the checkpoint,
// or an absolute URI inside the table.
func sidecarKey(st storage.Store, checkpointKey, p string) (string, error) {
	dec, err := protocol.DecodePath(p)
	if err != nil {
		return "", errs.Wrap(errs.CorruptTable, checkpointKey, err, "invalid sidecar path")
	}
	if protocol.HasScheme(p) {
		key, err := protocol.ObjectKey(st.URL(), p)
		if errors.Is(err, protocol.ErrOutsideRoot) {
			return "", errs.Wrap(errs.UnsupportedTable, checkpointKey, err, "sidecar %s is outside the table", p)
		}
		if err != nil {
			return "", errs.Wrap(errs.CorruptTable, checkpointKey, err, "invalid sidecar path")
		}
		return key, nil
	}
	return cleanKey(checkpointKey, path.Join(path.Dir(checkpointKey), "_sidecars", dec))
}

func cleanKey(checkpointKey, k string) (string, error) {
	c, err := storage.CleanKey(k)
	if err != nil {
		return "", errs.Wrap(errs.CorruptTable, checkpointKey, err, "invalid sidecar path")
	}
	return c, nil
}

// openErr classifies a failure to open a checkpoint file.
func openErr(key string, err error) error {
	if errors.Is(err, storage.ErrNotExist) {
		return errs.Wrap(errs.NotFound, key, err, "checkpoint file not found")
	}
	return errs.Wrap(errs.Internal, key, err, "opening checkpoint file")
}

// readJSON reads a v2 checkpoint in its JSON form, one action per line.
func readJSON(ctx context.Context, st storage.Store, key string, fn func(protocol.Action) error) error {
	rc, err := st.Get(ctx, key)
	if err != nil {
		return openErr(key, err)
	}
	defer rc.Close()
	br := bufio.NewReaderSize(rc, 1<<16)
	for line := 1; ; line++ {
		l, rerr := br.ReadBytes('\n')
		if rerr != nil && rerr != io.EOF {
			return errs.Wrap(errs.Internal, key, rerr, "reading checkpoint")
		}
		if l = bytes.TrimSpace(l); len(l) > 0 {
			a, err := protocol.DecodeAction(l)
			if err != nil {
				return errs.Wrap(errs.CorruptTable, key, err, "line %d", line)
			}
			if a.CommitInfo == nil && a.CDC == nil {
				if err := fn(a); err != nil {
					return err
				}
			}
		}
		if rerr == io.EOF {
			return nil
		}
		if line%1024 == 0 && ctx.Err() != nil {
			return errs.Wrap(errs.Canceled, key, ctx.Err(), "reading checkpoint")
		}
	}
}

// recovered turns a panic raised while decoding a file into a corrupt-table
// error naming it: the Parquet decoder can panic on garbage input.
func recovered(key string, err *error) {
	if r := recover(); r != nil {
		*err = errs.New(errs.CorruptTable, key, "checkpoint file is damaged: %v", r)
	}
}
