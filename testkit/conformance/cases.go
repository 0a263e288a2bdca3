// Package conformance runs this engine against the real Delta tables of
// testdata/conformance (written by Spark, delta-rs and Databricks) and
// says, per table and version, whether it reads them as expected.
//
// It is test support and the source of docs/compatibility.md; it never
// writes to the tables it reads.
package conformance

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/deltalite-go/deltalite/testkit/corpus"
)

// Expect is what a case must do.
type Expect int

const (
	// MatchExpected: read the version and equal the expected Parquet rows.
	MatchExpected Expect = iota
	// MustFail: opening or reading must fail with a clear error.
	MustFail
	// ReadOrUnsupported: read fully, or fail with ErrUnsupportedTable
	// naming the feature.
	ReadOrUnsupported
	// MatchValues: read and match values known from the upstream tests.
	MatchValues
	// OpensLog: the log replays (data files may be placeholders); Check
	// may inspect the snapshot's live files.
	OpensLog
	// HistoryOnly: the log is not a complete table, but its commit
	// history reads.
	HistoryOnly
)

// Case is one table (at one version) to check.
type Case struct {
	Group    string // dat, golden, delta-rs, delta-rs-err-logs, kernel-rs, kernel-java-spark
	Name     string // table folder name, with "@vN" for a DAT version
	Table    string // path of the table root
	Version  int64  // -1: latest
	Expected string // directory of expected Parquet files (MatchExpected)
	Expect   Expect
	// Check validates the rows (MatchValues: column -> value as text) or
	// the live file paths (OpensLog, in "path" of each row); "" means right.
	Check func(rows []map[string]string) string
	// Why explains a MustFail case.
	Why string
	// FixExpected corrects expected rows where the corpus documents that
	// the expected Parquet disagrees with the Delta reading of the table.
	FixExpected func(rows []string) []string
}

// Root is where the corpus lives; see package corpus.
func Root() string { return corpus.Root() }

// mustFail lists the tables that must not open, with why.
var mustFail = map[string]string{
	"golden/deltalog-invalid-protocol-version":                              "reader version 99",
	"golden/deltalog-state-reconstruction-from-checkpoint-missing-protocol": "checkpoint without protocol",
	"golden/deltalog-state-reconstruction-without-metadata":                 "no metaData",
	"golden/no-delta-log-folder":                                            "not a Delta table",
	"golden/data-reader-absolute-paths-escaped-chars":                       "the log has no metaData action",
	"golden/update-deleted-directory":                                       "metaData has no schemaString",
	"delta-rs-err-logs/table_c":                                             "commit 12 missing after the checkpoint",
	"delta-rs-err-logs/table_d":                                             "reader feature catalogOwned",
	"delta-rs-err-logs/table_e":                                             "reader feature catalogOwned",
	"delta-rs-err-logs/table_f":                                             "reader feature catalogOwned",
	"delta-rs-err-logs/table_g":                                             "version 9999 does not follow the log",
	"delta-rs-err-logs/table_h":                                             "version 9999 does not follow the log",
	"delta-rs-err-logs/table_i":                                             "version 9999 does not follow the log",
	"delta-rs/checkpoints_tombstones":                                       "an empty folder, not a table",
	"kernel-rs/crc-malformed":                                               "the log holds only a malformed .crc file, no commit",
	// These fixtures name their DV files with a "test%dv%prefix-" the
	// descriptors do not encode (the upstream tests map it); as shipped,
	// the right outcome is an error naming the missing DV file.
	"kernel-java-spark/table-with-dv-small":             "DV file names carry a test-only prefix",
	"kernel-java-spark/table-with-dv-large":             "DV file names carry a test-only prefix",
	"kernel-java-spark/partitioned-table-with-dv-large": "DV file names carry a test-only prefix",
	"kernel-java-spark/table-with-dv-special-char":      "the DV path is a template ({{FOLDER_WITH_SPECIAL_CHAR}}) the upstream test fills in",
}

// logOnly lists fixtures shipped without their data files: their logs
// must replay, and there is nothing to read.
var logOnly = map[string]bool{
	"delta-rs/checkpoint_with_partitions":          true,
	"delta-rs/checkpoints":                         true,
	"delta-rs/checkpoints_vacuumed":                true,
	"delta-rs/latest_not_checkpointed":             true,
	"delta-rs/table-with-domain-metadata":          true,
	"delta-rs/with_checkpoint_no_last_checkpoint":  true,
	"delta-rs-err-logs/table_a":                    true,
	"delta-rs-err-logs/table_b":                    true,
	"kernel-rs/app-txn-with-last-updated":          true,
	"kernel-rs/with_checkpoint_no_last_checkpoint": true,
}

// Cases enumerates every case under root, in a stable order.
func Cases(root string) []Case {
	var out []Case
	out = append(out, datCases(root)...)
	out = append(out, goldenCases(root)...)
	out = append(out, deltaRSCases(root)...)
	for _, g := range []string{"delta-rs-err-logs", "kernel-rs", "kernel-java-spark"} {
		for _, name := range dirs(filepath.Join(root, g)) {
			out = append(out, plainCases(root, g, name)...)
		}
	}
	return out
}

// plainCases makes the cases of a fixture folder with no expected content:
// the folder itself, its delta/ subfolder, or each subfolder holding a
// table (kernel-rs's partition_cm/{id,name,none}).
func plainCases(root, group, name string) []Case {
	dir := filepath.Join(root, group, name)
	mk := func(n, table string) Case {
		c := Case{Group: group, Name: n, Table: table, Version: -1, Expect: ReadOrUnsupported}
		if why, ok := mustFail[group+"/"+n]; ok {
			c.Expect, c.Why = MustFail, why
		} else if logOnly[group+"/"+n] {
			c.Expect = OpensLog
		}
		return c
	}
	if exists(filepath.Join(dir, "_delta_log")) {
		return []Case{mk(name, dir)}
	}
	if exists(filepath.Join(dir, "delta", "_delta_log")) {
		return []Case{mk(name, filepath.Join(dir, "delta"))}
	}
	var out []Case
	for _, sub := range dirs(dir) {
		if exists(filepath.Join(dir, sub, "_delta_log")) {
			out = append(out, mk(name+"/"+sub, filepath.Join(dir, sub)))
		}
	}
	if len(out) == 0 {
		out = append(out, mk(name, dir))
	}
	return out
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func dirs(p string) []string {
	ents, _ := os.ReadDir(p)
	var out []string
	for _, e := range ents {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}

func replaceAll(old, new string) func([]string) []string {
	return func(rows []string) []string {
		out := make([]string, len(rows))
		for i, r := range rows {
			out[i] = strings.ReplaceAll(r, old, new)
		}
		sort.Strings(out)
		return out
	}
}

func datCases(root string) []Case {
	var out []Case
	for _, name := range dirs(filepath.Join(root, "dat")) {
		base := filepath.Join(root, "dat", name)
		for _, exp := range dirs(filepath.Join(base, "expected")) {
			v := int64(-1)
			if exp != "latest" {
				n, err := strconv.ParseInt(strings.TrimPrefix(exp, "v"), 10, 64)
				if err != nil {
					continue
				}
				v = n
			} else if meta, err := os.ReadFile(filepath.Join(base, "expected", exp, "table_version_metadata.json")); err == nil {
				var m struct {
					Version int64 `json:"version"`
				}
				if json.Unmarshal(meta, &m) == nil {
					v = m.Version
				}
			}
			out = append(out, Case{Group: "dat", Name: name + "@" + exp, Table: filepath.Join(base, "delta"), Version: v,
				Expected: filepath.Join(base, "expected", exp, "table_content"), Expect: MatchExpected})
		}
	}
	return out
}

func goldenCases(root string) []Case {
	var out []Case
	for _, name := range dirs(filepath.Join(root, "golden")) {
		base := filepath.Join(root, "golden", name)
		c := Case{Group: "golden", Name: name, Table: filepath.Join(base, "delta"), Version: -1, Expect: ReadOrUnsupported}
		if name == "checkpoint" {
			c.Version = 14
		}
		if _, err := os.Stat(filepath.Join(base, "expected")); err == nil {
			c.Expected, c.Expect = filepath.Join(base, "expected"), MatchExpected
		}
		if why, ok := mustFail["golden/"+name]; ok {
			c.Expect, c.Why = MustFail, why
		}
		switch name {
		case "hive":
			// A folder of Hive-metastore test tables, each its own case.
			for _, sub := range dirs(filepath.Join(base, "delta")) {
				out = append(out, Case{Group: "golden", Name: name + "/" + sub, Table: filepath.Join(base, "delta", sub),
					Version: -1, Expect: ReadOrUnsupported})
			}
			continue
		case "canonicalized-paths-normal-a", "canonicalized-paths-normal-b", "canonicalized-paths-special-a", "canonicalized-paths-special-b":
			// The file is added and removed under two spellings of one path.
			c.Expect, c.Check = OpensLog, wantFiles()
		case "checkpoint", "delete-re-add-same-file-different-transactions", "log-replay-special-characters-b":
			c.Expect = OpensLog
		case "deltalog-commit-info":
			c.Expect = HistoryOnly
		case "data-reader-partition-values":
			// The partition value "2021-09-08 11:11:11" is read as UTC, as
			// delta-rs and delta-kernel-rs do and the corpus README states;
			// the expected Parquet was written by Spark in UTC-7.
			c.FixExpected = replaceAll("as_timestamp=2021-09-08T18:11:11.000000Z", "as_timestamp=2021-09-08T11:11:11.000000Z")
		}
		out = append(out, c)
	}
	return out
}
