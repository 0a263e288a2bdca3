package protocol

import (
	"fmt"
	"path"
	"strconv"
	"strings"
)

// LogDir is the log directory key prefix under a table root.
const LogDir = "_delta_log/"

// LogFileKind classifies a file in _delta_log.
type LogFileKind int

const (
	OtherFile           LogFileKind = iota // side files: .crc, _last_checkpoint, temp files, compactions
	CommitFile                             // N.json
	CheckpointFile                         // N.checkpoint.parquet (classic, maybe v2 content)
	MultiPartCheckpoint                    // N.checkpoint.P.T.parquet
	V2Checkpoint                           // N.checkpoint.<uuid>.{json,parquet}
)

// LogFile is a parsed _delta_log file name.
type LogFile struct {
	Kind    LogFileKind
	Version int64
	Part    int // 1-based, multi-part only
	Parts   int // multi-part only
}

// CommitKey is the key of commit v.
func CommitKey(v int64) string { return fmt.Sprintf("%s%020d.json", LogDir, v) }

// CheckpointKey is the key of the classic checkpoint of version v.
func CheckpointKey(v int64) string { return fmt.Sprintf("%s%020d.checkpoint.parquet", LogDir, v) }

// LastCheckpointKey is the key of the _last_checkpoint hint.
const LastCheckpointKey = LogDir + "_last_checkpoint"

// VersionPrefix is the key prefix shared by all files of version v; listing
// after it (exclusive) starts at version v.
func VersionPrefix(v int64) string { return fmt.Sprintf("%s%020d", LogDir, v) }

// ParseLogFile classifies a key under _delta_log. Hidden files (Hadoop
// ".N.json.crc" side files, temp files) and files in subdirectories are Other.
func ParseLogFile(key string) LogFile {
	dir, name := path.Split(key)
	if dir != LogDir || strings.HasPrefix(name, ".") || len(name) < 21 || name[20] != '.' {
		return LogFile{}
	}
	v, err := strconv.ParseInt(name[:20], 10, 64)
	if err != nil || v < 0 {
		return LogFile{}
	}
	rest := name[21:]
	switch {
	case rest == "json":
		return LogFile{Kind: CommitFile, Version: v}
	case rest == "checkpoint.parquet":
		return LogFile{Kind: CheckpointFile, Version: v}
	case strings.HasPrefix(rest, "checkpoint."):
		mid := strings.TrimPrefix(rest, "checkpoint.")
		parts := strings.Split(mid, ".")
		if len(parts) == 3 && parts[2] == "parquet" && len(parts[0]) == 10 && len(parts[1]) == 10 {
			p, err1 := strconv.Atoi(parts[0])
			n, err2 := strconv.Atoi(parts[1])
			if err1 == nil && err2 == nil && p >= 1 && p <= n {
				return LogFile{Kind: MultiPartCheckpoint, Version: v, Part: p, Parts: n}
			}
			return LogFile{}
		}
		if len(parts) == 2 && (parts[1] == "json" || parts[1] == "parquet") && parts[0] != "" {
			return LogFile{Kind: V2Checkpoint, Version: v}
		}
	}
	return LogFile{}
}
