package snapshot

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"syscall"

	"github.com/deltalite-go/deltalite/internal/checkpoint"
	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/storage"
)

// segment is the set of log files that make up one version: the newest
// complete checkpoint at or below it and the commits after that checkpoint.
type segment struct {
	version           int64
	checkpointVersion int64 // -1 when replay starts at commit 0
	checkpoint        []storage.ObjectInfo
	commits           []storage.ObjectInfo // ascending, contiguous
	hint              *checkpoint.LastCheckpoint
}

// listing is what one pass over _delta_log found.
type listing struct {
	commits     map[int64]storage.ObjectInfo
	checkpoints map[int64][]storage.ObjectInfo // complete checkpoints only
}

func listLog(ctx context.Context, st storage.Store, from int64) (*listing, error) {
	l := &listing{commits: map[int64]storage.ObjectInfo{}, checkpoints: map[int64][]storage.ObjectInfo{}}
	startAfter := ""
	if from > 0 {
		startAfter = protocol.VersionPrefix(from-1) + "~" // after every file of version from-1
	}
	multi := map[int64]map[int]map[int]storage.ObjectInfo{} // version -> parts -> part -> file
	v2 := map[int64][]storage.ObjectInfo{}
	for o, err := range st.List(ctx, protocol.LogDir, startAfter) {
		if err != nil {
			if errors.Is(err, syscall.ENOTDIR) {
				// The table path (or its _delta_log) is a file: there is no
				// table here, which is not an engine failure.
				return nil, errs.New(errs.TableNotFound, st.URL(), "the path is a file, not a table folder")
			}
			return nil, errs.Wrap(errs.Internal, st.URL(), err, "listing the transaction log")
		}
		f := protocol.ParseLogFile(o.Key)
		switch f.Kind {
		case protocol.CommitFile:
			l.commits[f.Version] = o
		case protocol.CheckpointFile:
			l.checkpoints[f.Version] = []storage.ObjectInfo{o}
		case protocol.V2Checkpoint:
			v2[f.Version] = append(v2[f.Version], o)
		case protocol.MultiPartCheckpoint:
			if multi[f.Version] == nil {
				multi[f.Version] = map[int]map[int]storage.ObjectInfo{}
			}
			if multi[f.Version][f.Parts] == nil {
				multi[f.Version][f.Parts] = map[int]storage.ObjectInfo{}
			}
			multi[f.Version][f.Parts][f.Part] = o
		}
	}
	// A v2 (UUID-named) checkpoint is preferred over a classic one of the
	// same version; any one of several is complete on its own.
	for v, files := range v2 {
		sort.Slice(files, func(i, j int) bool { return files[i].Key < files[j].Key })
		l.checkpoints[v] = files[:1]
	}
	// A multi-part checkpoint counts only when every part is present.
	for v, byCount := range multi {
		if _, ok := l.checkpoints[v]; ok {
			continue
		}
		for n, parts := range byCount {
			if len(parts) != n {
				continue
			}
			files := make([]storage.ObjectInfo, 0, n)
			for p := 1; p <= n; p++ {
				files = append(files, parts[p])
			}
			l.checkpoints[v] = files
			break
		}
	}
	return l, nil
}

// readHint reads _last_checkpoint; a missing or unreadable file is no hint.
func readHint(ctx context.Context, st storage.Store) *checkpoint.LastCheckpoint {
	data, err := storage.ReadAll(ctx, st, protocol.LastCheckpointKey)
	if err != nil {
		return nil
	}
	lc, err := checkpoint.DecodeLastCheckpoint(data)
	if err != nil || lc.Version < 0 {
		return nil
	}
	return &lc
}

// buildSegment finds the log files for version target (latest when
// target < 0). It lists from the _last_checkpoint hint when that can serve
// the target, and from the start of the log otherwise.
func buildSegment(ctx context.Context, st storage.Store, target int64) (*segment, error) {
	hint := readHint(ctx, st)
	from := int64(0)
	if hint != nil && (target < 0 || hint.Version <= target) {
		from = hint.Version
	}
	l, err := listLog(ctx, st, from)
	if err != nil {
		return nil, err
	}
	if from > 0 && len(l.checkpoints) == 0 {
		// The hint named a checkpoint that is not there: never trust it blindly.
		hint, from = nil, 0
		if l, err = listLog(ctx, st, 0); err != nil {
			return nil, err
		}
	}
	if len(l.commits) == 0 && len(l.checkpoints) == 0 {
		return nil, errs.New(errs.TableNotFound, st.URL(), "no Delta transaction log (_delta_log) found")
	}
	return segmentFrom(st, l, target, hint)
}

func segmentFrom(st storage.Store, l *listing, target int64, hint *checkpoint.LastCheckpoint) (*segment, error) {
	latest := int64(-1)
	for v := range l.commits {
		latest = max(latest, v)
	}
	for v := range l.checkpoints {
		latest = max(latest, v)
	}
	if target < 0 {
		target = latest
	}
	if target > latest {
		return nil, errs.New(errs.NotFound, st.URL(), "version %d does not exist (latest is %d)", target, latest)
	}
	// Commits must be contiguous from the oldest checkpoint listed (or the
	// first commit) on: a hole there means a lost or truncated log.
	var versions []int64
	for v := range l.commits {
		versions = append(versions, v)
	}
	sort.Slice(versions, func(i, j int) bool { return versions[i] < versions[j] })
	oldestCP := int64(-1)
	for v := range l.checkpoints {
		if oldestCP < 0 || v < oldestCP {
			oldestCP = v
		}
	}
	for i := 1; i < len(versions); i++ {
		if versions[i] != versions[i-1]+1 && versions[i] > oldestCP {
			return nil, errs.New(errs.CorruptTable, protocol.CommitKey(versions[i-1]+1),
				"commit is missing: the log jumps from version %d to %d", versions[i-1], versions[i])
		}
	}
	s := &segment{version: target, checkpointVersion: -1, hint: hint}
	for v, files := range l.checkpoints {
		if v <= target && v > s.checkpointVersion {
			s.checkpointVersion, s.checkpoint = v, files
		}
	}
	start := s.checkpointVersion + 1
	for v := start; v <= target; v++ {
		c, ok := l.commits[v]
		if !ok {
			if s.checkpointVersion < 0 {
				return nil, errs.New(errs.NotFound, st.URL(),
					"version %d cannot be reconstructed: commit %d is gone and no checkpoint precedes it", target, v)
			}
			return nil, errs.New(errs.CorruptTable, protocol.CommitKey(v), "commit is missing")
		}
		s.commits = append(s.commits, c)
	}
	return s, nil
}

func (s *segment) String() string {
	return fmt.Sprintf("version %d from checkpoint %d + %d commits", s.version, s.checkpointVersion, len(s.commits))
}
