package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/deltalite-go/deltalite/bench/internal/gen"
	"github.com/deltalite-go/deltalite/bench/internal/report"
	"github.com/deltalite-go/deltalite/bench/internal/runproc"
)

// manifestCopyName is the generator's manifest, which the runs' copies
// leave out: a full VACUUM would take it for an unreferenced file.
const manifestCopyName = gen.ManifestName

// Table describes a case's base table, as every run starts from it.
type Table struct {
	Name    string                `json:"name"`
	Options gen.SmallFilesOptions `json:"options"`
	// From is the table this one was made from by a delta-rs compaction
	// (the vacuum case's), else empty.
	From       string `json:"from,omitempty"`
	Files      int64  `json:"files"` // live files
	Bytes      int64  `json:"bytes"` // of the live files
	Rows       int64  `json:"rows"`
	Version    int64  `json:"version"`
	Hash       string `json:"hash"`
	Tombstones int64  `json:"tombstones,omitempty"` // files removed from the log, still on disk
}

func gibBytes(g float64) int64 { return int64(g * (1 << 30)) }

// prepare makes (or keeps, while its shape is unchanged) the base table
// of case cs under WORK/tables.
func prepare(c config, cs string) (*Table, error) {
	switch cs {
	case caseCompact:
		return smallTable(c, "spread", gen.SmallFilesOptions{Files: c.files, Partitions: c.partitions, Bytes: gibBytes(c.gib), Seed: 1})
	case caseCompactOne, caseZOrder:
		return smallTable(c, "one", gen.SmallFilesOptions{Files: c.oneFiles, Partitions: 1, Bytes: gibBytes(c.oneGiB), Seed: 2})
	case caseZOrderBig:
		return smallTable(c, "big", gen.SmallFilesOptions{Files: c.bigFiles, Partitions: 1, Bytes: c.bigFactor * c.budgetMiB << 20, Seed: 3})
	case caseVacuum:
		return vacuumTable(c)
	}
	return nil, fmt.Errorf("unknown case %q", cs)
}

func tablePaths(c config, name string) (dir, info string) {
	dir = filepath.Join(c.Work, "tables", name)
	return dir, dir + ".json"
}

// keep returns the saved description of the table name when it was made
// with the same options (and from the same table), else nil.
func keep(c config, name string, o gen.SmallFilesOptions, from string) *Table {
	dir, info := tablePaths(c, name)
	var t Table
	if runproc.ReadJSON(info, &t) != nil || t.Options != o || t.From != from {
		return nil
	}
	if _, err := os.Stat(filepath.Join(dir, "_delta_log")); err != nil {
		return nil
	}
	logf("reusing %s", dir)
	return &t
}

func saveTable(c config, t *Table) error {
	_, info := tablePaths(c, t.Name)
	b, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(info, b, 0o644)
}

// smallTable generates a table of many small files.
func smallTable(c config, name string, o gen.SmallFilesOptions) (*Table, error) {
	if t := keep(c, name, o, ""); t != nil {
		return t, nil
	}
	dir, info := tablePaths(c, name)
	_ = os.Remove(info)
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	logf("generating %s: %d files in %d partitions, %.2f GiB", dir, o.Files, o.Partitions, float64(o.Bytes)/(1<<30))
	m, err := gen.SmallFiles(context.Background(), dir, o)
	if err != nil {
		return nil, err
	}
	t := &Table{Name: name, Options: o, Files: int64(m.LatestFiles), Bytes: m.Bytes, Rows: m.Rows, Version: m.Latest}
	if err := fingerprint(c, dir, t); err != nil {
		return nil, err
	}
	return t, saveTable(c, t)
}

// vacuumTable is the compaction case's table after a delta-rs compaction:
// every original file removed from the log and still on disk.
func vacuumTable(c config) (*Table, error) {
	src, err := prepare(c, caseCompact)
	if err != nil {
		return nil, err
	}
	const name = "vacuum"
	if t := keep(c, name, src.Options, src.Name); t != nil {
		return t, nil
	}
	srcDir, _ := tablePaths(c, src.Name)
	dir, info := tablePaths(c, name)
	_ = os.Remove(info)
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	if err := runproc.LinkCopy(srcDir, dir); err != nil {
		return nil, err
	}
	_ = os.Remove(filepath.Join(dir, manifestCopyName))
	logf("compacting %s with delta-rs for the vacuum case", dir)
	s, err := runproc.Run([]string{c.Python, c.script, "compact", dir}, nil, os.Stderr)
	if err != nil {
		return nil, err
	}
	v, err := runproc.LogVolume(dir, src.Version)
	if err != nil {
		return nil, err
	}
	if v.FilesRemoved == 0 {
		return nil, fmt.Errorf("the compaction of %s removed no file; nothing to vacuum", dir)
	}
	t := &Table{Name: name, Options: src.Options, From: src.Name, Files: src.Files - v.FilesRemoved + v.FilesAdded,
		Bytes: src.Bytes - v.BytesRemoved + v.BytesAdded, Version: s.Result.Version, Tombstones: v.FilesRemoved}
	if err := fingerprint(c, dir, t); err != nil {
		return nil, err
	}
	if t.Rows != src.Rows || t.Hash != src.Hash {
		return nil, fmt.Errorf("delta-rs's compaction of %s changed its content: %d rows, hash %s; was %d rows, hash %s", dir, t.Rows, t.Hash, src.Rows, src.Hash)
	}
	return t, saveTable(c, t)
}

// fingerprint sets t's rows and content hash from checksum.py.
func fingerprint(c config, dir string, t *Table) error {
	var ck report.Checksum
	if err := runproc.OutputJSON([]string{c.Python, c.Checksum, dir}, os.Stderr, &ck); err != nil {
		return fmt.Errorf("checksum of %s: %w", dir, err)
	}
	if t.Rows != 0 && ck.Rows != t.Rows {
		return fmt.Errorf("%s: delta-rs reads %d rows, the generator wrote %d", dir, ck.Rows, t.Rows)
	}
	t.Rows, t.Hash = ck.Rows, ck.Hash
	return nil
}
