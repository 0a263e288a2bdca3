package runproc

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Volume is what a range of commits wrote and removed, read from the
// table's own _delta_log.
type Volume struct {
	Commits      int
	FilesAdded   int64
	FilesRemoved int64
	BytesAdded   int64
	BytesRemoved int64
	// CDCFiles and CDCBytes are the change data files (cdc actions) the
	// commits wrote, on a table with the change data feed on.
	CDCFiles int64 `json:",omitempty"`
	CDCBytes int64 `json:",omitempty"`
}

// LogVolume sums the add, remove and cdc actions of every JSON commit of the
// table at dir whose version is above after. A remove without a size is
// sized from the add of the same path in an earlier commit.
func LogVolume(dir string, after int64) (Volume, error) {
	logDir := filepath.Join(dir, "_delta_log")
	entries, err := os.ReadDir(logDir)
	if err != nil {
		return Volume{}, err
	}
	sizes := map[string]int64{}
	var v Volume
	for _, e := range entries { // ReadDir sorts by name: versions in order
		name := e.Name()
		num, ok := strings.CutSuffix(name, ".json")
		if !ok || len(num) != 20 {
			continue
		}
		ver, err := strconv.ParseInt(num, 10, 64)
		if err != nil {
			continue
		}
		if ver > after {
			v.Commits++
		}
		if err := eachAction(filepath.Join(logDir, name), func(a action) error {
			switch {
			case a.Add != nil:
				sizes[a.Add.Path] = a.Add.Size
				if ver > after {
					v.FilesAdded++
					v.BytesAdded += a.Add.Size
				}
			case a.Remove != nil && ver > after:
				size := a.Remove.Size
				if size == nil {
					s, ok := sizes[a.Remove.Path]
					if !ok {
						return fmt.Errorf("remove of %s has no size and no add before it", a.Remove.Path)
					}
					size = &s
				}
				v.FilesRemoved++
				v.BytesRemoved += *size
			case a.CDC != nil && ver > after:
				v.CDCFiles++
				v.CDCBytes += a.CDC.Size
			}
			return nil
		}); err != nil {
			return Volume{}, fmt.Errorf("%s: %w", name, err)
		}
	}
	return v, nil
}

type action struct {
	Add *struct {
		Path string `json:"path"`
		Size int64  `json:"size"`
	} `json:"add"`
	Remove *struct {
		Path string `json:"path"`
		Size *int64 `json:"size"`
	} `json:"remove"`
	CDC *struct {
		Size int64 `json:"size"`
	} `json:"cdc"`
}

func eachAction(path string, fn func(action) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	for sc.Scan() {
		line := sc.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var a action
		if err := json.Unmarshal(line, &a); err != nil {
			return err
		}
		if err := fn(a); err != nil {
			return err
		}
	}
	return sc.Err()
}
