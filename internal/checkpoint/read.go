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

// File is one checkpoint (or sidecar) file as the caller opened it: the
// package reads bytes it is handed and never opens anything itself.
type File interface {
	io.ReaderAt
	Size() int64
}

// Decode streams the actions of one checkpoint file, named key, to fn: the
// one file of a classic or v2 checkpoint, or one part of a multi-part
// checkpoint. Parquet files are read column-projected and batch by batch;
// JSON (v2, key ending ".json") line by line. Add actions get their stats
// from add.stats, or rendered to the same JSON from add.stats_parsed when
// the checkpoint only has the typed form; likewise for partition values.
//
// Sidecar actions are not passed to fn: Decode returns the object keys of
// the sidecar files they name (resolved against the table root rootURL),
// whose file actions the caller reads next with DecodeSidecar.
// checkpointMetadata actions are passed to fn.
//
// Actions reach fn in file order; fn may keep them. An error from fn stops
// the read and is returned unchanged. A damaged file gives an
// errs.CorruptTable error naming it; a failing reader an errs.Internal one.
func Decode(ctx context.Context, rootURL, key string, f File, fn func(protocol.Action) error) (sidecars []string, err error) {
	emit := func(a protocol.Action) error {
		if a.Sidecar != nil {
			skey, err := sidecarKey(rootURL, key, a.Sidecar.Path)
			if err != nil {
				return err
			}
			sidecars = append(sidecars, skey)
			return nil
		}
		return fn(a)
	}
	if strings.HasSuffix(key, ".json") {
		err = decodeJSON(ctx, key, f, emit)
	} else {
		err = decodeParquet(ctx, key, f, emit)
	}
	if err != nil {
		return nil, err
	}
	return sidecars, nil
}

// DecodeSidecar streams the file actions of one sidecar file to fn. A
// sidecar holds add and remove actions only; anything else in it is not
// part of the checkpoint and is skipped.
func DecodeSidecar(ctx context.Context, key string, f File, fn func(protocol.Action) error) error {
	return decodeParquet(ctx, key, f, func(a protocol.Action) error {
		if a.Add == nil && a.Remove == nil {
			return nil
		}
		return fn(a)
	})
}

// sidecarKey resolves a sidecar action's path: a file name (the usual
// form) or relative path under _delta_log/_sidecars next to the checkpoint,
// or an absolute URI inside the table.
func sidecarKey(rootURL, checkpointKey, p string) (string, error) {
	if protocol.HasScheme(p) {
		key, err := protocol.ObjectKey(rootURL, p)
		if errors.Is(err, protocol.ErrOutsideRoot) {
			return "", errs.Wrap(errs.UnsupportedTable, checkpointKey, err, "sidecar %s is outside the table", p)
		}
		if err != nil {
			return "", errs.Wrap(errs.CorruptTable, checkpointKey, err, "invalid sidecar path")
		}
		return key, nil
	}
	dec, err := protocol.DecodePath(p)
	if err == nil {
		dec, err = storage.CleanKey(path.Join(path.Dir(checkpointKey), "_sidecars", dec))
	}
	if err != nil {
		return "", errs.Wrap(errs.CorruptTable, checkpointKey, err, "invalid sidecar path")
	}
	return dec, nil
}

// decodeJSON reads a v2 checkpoint in its JSON form, one action per line.
func decodeJSON(ctx context.Context, key string, f File, fn func(protocol.Action) error) error {
	tr := &trackedReader{r: f}
	br := bufio.NewReaderSize(io.NewSectionReader(tr, 0, f.Size()), 1<<16)
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
		*err = errs.Recovered(errs.CorruptTable, key, "decoding the checkpoint file", r)
	}
}
