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

	"github.com/deltalite-go/deltalite/internal/dv"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/storage"
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
	// DVsAdded is the data files the commits re-added with a new deletion
	// vector (a remove and an add of the same path in one commit); they
	// count in neither FilesAdded nor FilesRemoved, as no data file was
	// written or dropped. DVFiles and DVBytes are the deletion vector files
	// the commits' adds point at that no add up to version after did: the
	// DV bytes the commits wrote (inline DVs live in the log and count
	// in InlineDVs alone).
	DVsAdded  int64 `json:",omitempty"`
	DVFiles   int64 `json:",omitempty"`
	DVBytes   int64 `json:",omitempty"`
	InlineDVs int64 `json:",omitempty"`
}

// LogVolume sums the add, remove and cdc actions of every JSON commit of the
// table at dir whose version is above after. A remove without a size is
// sized from the add of the same path in an earlier commit. A path removed
// and added again in one commit is a deletion vector change (DVsAdded), and
// the DV files new to those commits are sized on disk (DVFiles, DVBytes).
func LogVolume(dir string, after int64) (Volume, error) {
	logDir := filepath.Join(dir, "_delta_log")
	entries, err := os.ReadDir(logDir)
	if err != nil {
		return Volume{}, err
	}
	st, err := storage.NewLocal(dir)
	if err != nil {
		return Volume{}, err
	}
	sizes := map[string]int64{}
	oldDVs, newDVs := map[string]bool{}, map[string]bool{}
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
		var acts []action
		if err := eachAction(filepath.Join(logDir, name), func(a action) error { acts = append(acts, a); return nil }); err != nil {
			return Volume{}, fmt.Errorf("%s: %w", name, err)
		}
		in := ver > after
		if in {
			v.Commits++
		}
		if err := v.commit(st, acts, in, sizes, oldDVs, newDVs); err != nil {
			return Volume{}, fmt.Errorf("%s: %w", name, err)
		}
	}
	for key := range newDVs {
		fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(key)))
		if err != nil {
			return Volume{}, fmt.Errorf("deletion vector file of a commit after version %d: %w", after, err)
		}
		v.DVFiles++
		v.DVBytes += fi.Size()
	}
	return v, nil
}

// commit adds one commit's actions to v when in (its version is in the
// range), and records its adds' sizes and DV files for the commits after.
func (v *Volume) commit(st storage.Store, acts []action, in bool, sizes map[string]int64, oldDVs, newDVs map[string]bool) error {
	readded := map[string]bool{}
	removed := map[string]bool{}
	for _, a := range acts {
		if a.Remove != nil {
			removed[a.Remove.Path] = true
		}
	}
	for _, a := range acts {
		if a.Add == nil {
			continue
		}
		if removed[a.Add.Path] {
			readded[a.Add.Path] = true
		}
		if d := a.Add.DeletionVector; d != nil {
			key, err := dv.FileKey(st, d)
			if err != nil {
				return err
			}
			switch {
			case key == "":
				if in {
					v.InlineDVs++
				}
			case !in:
				oldDVs[key] = true
			case !oldDVs[key]:
				newDVs[key] = true
			}
		}
	}
	for _, a := range acts {
		switch {
		case a.Add != nil:
			if in && readded[a.Add.Path] {
				v.DVsAdded++
			} else if in {
				v.FilesAdded++
				v.BytesAdded += a.Add.Size
			}
		case a.Remove != nil && in && !readded[a.Remove.Path]:
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
		case a.CDC != nil && in:
			v.CDCFiles++
			v.CDCBytes += a.CDC.Size
		}
	}
	for _, a := range acts {
		if a.Add != nil {
			sizes[a.Add.Path] = a.Add.Size
		}
	}
	return nil
}

type action struct {
	Add *struct {
		Path           string                   `json:"path"`
		Size           int64                    `json:"size"`
		DeletionVector *protocol.DeletionVector `json:"deletionVector"`
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
