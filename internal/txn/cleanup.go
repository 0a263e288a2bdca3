package txn

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/snapshot"
	"github.com/deltalite-go/deltalite/storage"
)

// deleteBatch bounds one batch Delete call.
const deleteBatch = 500

// CleanupExpiredLogs deletes the log files that delta.logRetentionDuration
// (default 30 days) lets go, as PROTOCOL.md "Metadata Cleanup" prescribes:
// with cutoff at midnight UTC of now minus the retention, it finds the
// newest commit made at or before the cutoff and the newest checkpoint at
// or before that commit, and deletes the commits, checkpoints and checksum
// files of every older version (and log compactions ending before it).
// The commit at that checkpoint's version and everything after stay, so
// every retained version can still be loaded. Only versions up to snap's
// are considered. It returns how many files were deleted.
func CleanupExpiredLogs(ctx context.Context, snap *snapshot.Snapshot, now time.Time) (int, error) {
	st := snap.Store()
	retention, err := snap.TableProperties().LogRetention()
	if err != nil {
		return 0, fmt.Errorf("log cleanup: %w", err)
	}
	c := now.Add(-retention).UTC()
	cutoff := time.Date(c.Year(), c.Month(), c.Day(), 0, 0, 0, 0, time.UTC)

	files, err := scanLog(ctx, st, snap.Version())
	if err != nil {
		return 0, err
	}
	// Commit times are the files' times made strictly increasing, as Delta
	// does, so that a clock step back never makes a later version "older".
	versions := make([]int64, 0, len(files.commits))
	for v := range files.commits {
		versions = append(versions, v)
	}
	sort.Slice(versions, func(i, j int) bool { return versions[i] < versions[j] })
	cutoffCommit := int64(-1)
	var prev time.Time
	for _, v := range versions {
		t := files.commits[v]
		if !prev.IsZero() && !t.After(prev) {
			t = prev.Add(time.Millisecond)
		}
		prev = t
		if t.After(cutoff) {
			break
		}
		cutoffCommit = v
	}
	keep := int64(-1)
	for v := range files.checkpoints {
		if v <= cutoffCommit && v > keep {
			keep = v
		}
	}
	if keep <= 0 {
		return 0, nil
	}
	// Checkpoints first, then commits in version order: a reader listing
	// meanwhile then never finds an older checkpoint followed by a hole.
	var cps, rest []fileAt
	for _, f := range files.all {
		if f.version >= keep {
			continue
		}
		if f.checkpoint {
			cps = append(cps, f)
		} else {
			rest = append(rest, f)
		}
	}
	sort.Slice(rest, func(i, j int) bool { return rest[i].version < rest[j].version })
	deleted := 0
	for _, group := range [][]fileAt{cps, rest} {
		for lo := 0; lo < len(group); lo += deleteBatch {
			hi := min(lo+deleteBatch, len(group))
			keys := make([]string, 0, hi-lo)
			for _, f := range group[lo:hi] {
				keys = append(keys, f.key)
			}
			if err := st.Delete(ctx, keys...); err != nil {
				return deleted, errs.Wrap(errs.Internal, st.URL(), err, "log cleanup: deleting expired log files")
			}
			deleted += len(keys)
		}
	}
	return deleted, nil
}

// fileAt is a log file and the version it belongs to (for a log
// compaction, the last version it covers).
type fileAt struct {
	key        string
	version    int64
	checkpoint bool
}

type logScan struct {
	commits     map[int64]time.Time // commit version -> file time
	checkpoints map[int64]bool      // versions with a complete checkpoint
	all         []fileAt            // every versioned file
}

// scanLog lists the versioned files of _delta_log up to version max.
func scanLog(ctx context.Context, st storage.Store, max int64) (*logScan, error) {
	s := &logScan{commits: map[int64]time.Time{}, checkpoints: map[int64]bool{}}
	multi := map[int64]map[int]map[int]bool{} // version -> parts -> part seen
	for o, err := range st.List(ctx, protocol.LogDir, "") {
		if err != nil {
			return nil, errs.Wrap(errs.Internal, st.URL(), err, "log cleanup: listing the transaction log")
		}
		f := protocol.ParseLogFile(o.Key)
		isCP := false
		switch f.Kind {
		case protocol.CommitFile:
			if f.Version <= max {
				s.commits[f.Version] = o.ModTime
			}
		case protocol.CheckpointFile, protocol.V2Checkpoint:
			isCP = true
			s.checkpoints[f.Version] = true
		case protocol.MultiPartCheckpoint:
			isCP = true
			if multi[f.Version] == nil {
				multi[f.Version] = map[int]map[int]bool{}
			}
			if multi[f.Version][f.Parts] == nil {
				multi[f.Version][f.Parts] = map[int]bool{}
			}
			multi[f.Version][f.Parts][f.Part] = true
		default:
			v, ok := sideFileVersion(o.Key)
			if !ok {
				continue
			}
			f.Version = v
		}
		if f.Version <= max {
			s.all = append(s.all, fileAt{key: o.Key, version: f.Version, checkpoint: isCP})
		}
	}
	for v, byParts := range multi {
		for n, parts := range byParts {
			if len(parts) == n {
				s.checkpoints[v] = true
			}
		}
	}
	for v := range s.checkpoints {
		if v > max {
			delete(s.checkpoints, v)
		}
	}
	return s, nil
}

// sideFileVersion recognises the other per-version log files: checksums
// "N.crc", Hadoop's hidden ".N.json.crc" and ".N.checkpoint.parquet.crc",
// and log compactions "X.Y.compacted.json" (version Y).
func sideFileVersion(key string) (int64, bool) {
	dir, name := path.Split(key)
	if dir != protocol.LogDir {
		return 0, false
	}
	hidden := strings.HasPrefix(name, ".")
	name = strings.TrimPrefix(name, ".")
	if len(name) < 21 || name[20] != '.' {
		return 0, false
	}
	v, err := strconv.ParseInt(name[:20], 10, 64)
	if err != nil || v < 0 {
		return 0, false
	}
	rest := name[21:]
	switch {
	case !hidden && rest == "crc":
		return v, true
	case hidden && strings.HasSuffix(rest, ".crc") && (rest == "json.crc" || strings.HasPrefix(rest, "checkpoint.")):
		return v, true
	case !hidden && len(rest) == len("00000000000000000000.compacted.json") && strings.HasSuffix(rest, ".compacted.json"):
		y, err := strconv.ParseInt(rest[:20], 10, 64)
		if err == nil && y >= v {
			return y, true
		}
	}
	return 0, false
}
