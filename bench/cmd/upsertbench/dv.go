package main

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/bench/internal/report"
	"github.com/deltalite-go/deltalite/bench/internal/runproc"
	"github.com/deltalite-go/deltalite/protocol"
)

// suiteDV is the -suite value of the deletion vector benchmark.
const suiteDV = "dv"

// The dv suite's cases.
const (
	// caseDVUpsert: this engine's upsert with DVs and copy-on-write, the
	// Rust deltalite's upsert and delta-rs MERGE, per batch fraction.
	caseDVUpsert = "dv-upsert"
	// caseDVDelete: DELETE WHERE id < a key prefix (the fraction of the
	// keys, spread over every file) with DVs, copy-on-write and delta-rs.
	caseDVDelete = "dv-delete"
	// caseScanAfter: a full scan after -scan-upserts DV upserts against one
	// after as many copy-on-write upserts of the same batches.
	caseScanAfter = "scan-after"
)

// dvCases is every case of the dv suite in the order they run.
var dvCases = []string{caseDVUpsert, caseDVDelete, caseScanAfter}

// dvEngines is the engines that run on a copy with deletion vectors on
// (copy-on-write by option there, so that only the option differs).
var dvEngines = []string{engineUpsertDV, engineUpsertCoW, engineGoDeleteDV, engineGoDeleteCoW}

// writesDVs is the engines that must have written deletion vectors.
var writesDVs = []string{engineUpsertDV, engineGoDeleteDV}

// checkDV is the problem with a run's deletion vectors, "" when none: a DV
// engine's batch is spread over the partition's files, so it must have
// put DVs on some; every other engine on none.
func checkDV(engine string, v runproc.Volume) string {
	switch want := slices.Contains(writesDVs, engine); {
	case want && v.DVsAdded == 0:
		return "no deletion vector in the commits on a table with deletion vectors on"
	case !want && v.DVsAdded+v.DVFiles+v.InlineDVs > 0:
		return fmt.Sprintf("%d files given deletion vectors by an engine that should rewrite them", v.DVsAdded)
	}
	return ""
}

// parseFractions reads -fractions: each in (0, 1], in the order given.
func parseFractions(list string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(list, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || v <= 0 || v > 1 {
			return nil, fmt.Errorf("-fractions %q: %q is not a fraction in (0, 1] (0.001 is 0.1%% of a partition)", list, f)
		}
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out, nil
}

// caseFractions is the batch fractions a case runs at: the dv suite's
// -fractions, the scan-after case's -scan-fraction, and one size without a
// fraction for the other suites' cases.
func caseFractions(c config, cs string) []float64 {
	switch cs {
	case caseDVUpsert, caseDVDelete:
		return c.fractions
	case caseScanAfter:
		return []float64{c.scanFraction}
	}
	return []float64{0}
}

// fractionBatch is the updated and inserted keys per touched partition of
// a batch of fraction f of n rows, nine updates to one insert as the
// upsert benchmark's default batch.
func fractionBatch(n int64, f float64) (updates, inserts int) {
	total := max(int(math.Round(f*float64(n))), 1)
	inserts = total / 10
	return total - inserts, inserts
}

func fractionLabel(f float64) string {
	return strconv.FormatFloat(f*100, 'g', -1, 64) + "%"
}

// deletePrefix is the key prefix below which fraction f of the generator's
// random hex keys sort: f of the 65536 four-digit prefixes.
func deletePrefix(f float64) string {
	return fmt.Sprintf("%04x", min(int(math.Round(f*65536)), 0xffff))
}

// dvDelete sets the DELETE of s's fraction: its predicate (in c, for the
// engines' command lines) and the content it leaves, from the generator's
// count of the keys it deletes.
func dvDelete(c *config, s *Size) error {
	prefix := deletePrefix(s.Fraction)
	c.deleteWhere = "id < '" + prefix + "'"
	s.DeleteWhere = c.deleteWhere
	var below struct {
		Rows int64 `json:"rows"`
	}
	if err := runproc.OutputJSON([]string{c.Python, c.gen, "below", "--rows", strconv.FormatInt(s.RowsPerPartition, 10),
		"--partitions", strconv.Itoa(c.partitions), "--prefix", prefix}, os.Stderr, &below); err != nil {
		return err
	}
	// Every base row has counter 1.
	s.WantRows = int64(c.partitions)*s.RowsPerPartition - below.Rows
	s.WantSumCounter = s.WantRows
	return nil
}

// measureScan runs the scan-after case: it makes two copies of the base
// table and upserts the same -scan-upserts batches (rounds 0, 1, ...) into
// each, one with deletion vectors on and one copy-on-write (a plain copy),
// then scans each copy reps times, the two alternating. The copies are
// kept with the tables (-keep or not) while their batches are unchanged.
func measureScan(c config, s *Size, r *Report, base, tag string, man *Manifest) error {
	n := s.RowsPerPartition
	var batches []string
	var rows, sum int64 = int64(c.partitions) * n, int64(c.partitions) * n
	for round := range c.scanUpserts {
		cc := c
		cc.round = round
		name := fmt.Sprintf("batch-%s-u%d-i%d", tag, c.updates, c.inserts)
		if round > 0 {
			name += fmt.Sprintf("-r%d", round)
		}
		path := filepath.Join(c.Work, name+".parquet")
		b, err := batch(cc, path, n, "", man)
		if err != nil {
			return err
		}
		if round == 0 {
			s.Batch = *b
		}
		batches = append(batches, path)
		rows += b.Inserts
		sum += 2*b.Rows - b.Updates
	}
	s.WantRows, s.WantSumCounter, s.ScanUpserts = rows, sum, c.scanUpserts
	tables := map[string]string{}
	volumes := map[string]runproc.Volume{}
	checksums := map[string]*Checksum{}
	for _, engine := range []string{engineScanCoW, engineScanDV} {
		dir := fmt.Sprintf("%s-run-%s-u%d-i%d-x%d", base, runDir[engine], c.updates, c.inserts, c.scanUpserts)
		v, err := upsertedCopy(c, base, dir, engine == engineScanDV, batches, man.Version)
		if err != nil {
			return fmt.Errorf("%s: %w", engine, err)
		}
		if !c.keep {
			defer os.Remove(dir + ".done")
			defer os.RemoveAll(dir)
		}
		ck, err := fingerprint(c, dir, engine == engineScanDV)
		if err != nil {
			return fmt.Errorf("%s: checksum: %w", engine, err)
		}
		tables[engine], volumes[engine], checksums[engine] = dir, v, ck
	}
	return runReps(c, s, r, func(engine string) Run {
		run := scanRun(c, engine, tables[engine], s.WantRows)
		run.Volume, run.Checksum = volumes[engine], checksums[engine]
		return run
	})
}

// upsertedCopy makes dir a copy of base with the batches upserted into it
// one by one (not measured), with deletion vectors on or copy-on-write,
// and returns the volume of those upserts' commits. A copy whose last
// upsert finished is reused.
func upsertedCopy(c config, base, dir string, dvs bool, batches []string, baseVersion int64) (runproc.Volume, error) {
	done := dir + ".done"
	if _, err := os.Stat(filepath.Join(dir, "_delta_log")); err != nil {
		_ = os.Remove(done)
	}
	if b, err := os.ReadFile(done); err == nil {
		if v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil {
			return runproc.LogVolume(dir, v)
		}
	}
	if err := os.RemoveAll(dir); err != nil {
		return runproc.Volume{}, err
	}
	if err := runproc.LinkCopy(base, dir); err != nil {
		return runproc.Volume{}, err
	}
	if dvs {
		v, err := enableProperty(dir, protocol.PropEnableDeletionVectors)
		if err != nil {
			return runproc.Volume{}, fmt.Errorf("enabling deletion vectors: %w", err)
		}
		baseVersion = v
	}
	for i, b := range batches {
		logf("upsert %d of %d into %s", i+1, len(batches), dir)
		if _, err := runproc.Run([]string{c.dlops, "upsert", dir, b, "-pk", "id", "-partition-key", partitionColumn}, nil, os.Stderr); err != nil {
			return runproc.Volume{}, fmt.Errorf("upsert %d of %d: %s", i+1, len(batches), runproc.ErrorSummary(err))
		}
		if !dvs {
			if err := dropRemoved(dir); err != nil {
				return runproc.Volume{}, fmt.Errorf("vacuum after upsert %d of %d: %w", i+1, len(batches), err)
			}
		}
	}
	v, err := runproc.LogVolume(dir, baseVersion)
	if err != nil {
		return v, err
	}
	if (v.DVsAdded > 0) != dvs {
		return v, fmt.Errorf("%d files given deletion vectors by %d upserts (deletion vectors on: %v)", v.DVsAdded, len(batches), dvs)
	}
	return v, os.WriteFile(done, []byte(strconv.FormatInt(baseVersion, 10)), 0o644)
}

// dropRemoved vacuums the table at dir with no retention. Each
// copy-on-write upsert of a batch that touches every file leaves a whole
// table of removed files behind: ten of them at 4M rows per partition
// would need ten times the table's disk. The scan reads live files only,
// so this changes nothing it measures. Deletion-vector copies keep their
// removed files: LogVolume sizes their DV files on disk.
func dropRemoved(dir string) error {
	ctx := context.Background()
	t, err := deltalite.Open(ctx, dir)
	if err != nil {
		return err
	}
	zero := 0
	_, err = t.Vacuum(ctx, deltalite.VacuumOptions{RetentionHours: &zero, NoEnforceRetention: true})
	return err
}

// scanRun scans the table at dir once with dlbench scan (every column, to
// Arrow), from the page cache as -drop-caches and -warm leave it, and
// checks it read want rows.
func scanRun(c config, engine, dir string, want int64) Run {
	run := Run{Engine: engine}
	if err := prepareCache(c, dir); err != nil {
		run.Error = err.Error()
		return run
	}
	logf("%s on %s", engine, dir)
	s, err := runproc.Run([]string{c.dlbench, "scan", dir}, nil, os.Stderr)
	run.Measured, run.Result = s.Measured(), s.Result
	if err != nil {
		run.Error = runproc.ErrorSummary(err)
		return run
	}
	logf("%s: op %.1fs wall %.1fs cpu %.1fs rss %d MiB", engine, run.OpS, run.WallS, run.UserS+run.SysS, run.MaxRSSKiB/1024)
	if run.Result.Rows != want {
		run.Error = fmt.Sprintf("scanned %d rows, want %d", run.Result.Rows, want)
	}
	return run
}

var dvCaseTitle = map[string]string{
	caseDVUpsert:  "Upsert (`Table.Upsert`, keys `id`, partition key `" + partitionColumn + "`)",
	caseDVDelete:  "DELETE of the keys below a prefix (`WHERE id < '<prefix>'`, spread over every file)",
	caseScanAfter: "Full scan after the upserts (`dlbench scan`: every column of every row to Arrow)",
}

// dvOpposites is, per case, this engine with deletion vectors, the same
// copy-on-write, and the other engines.
func dvOpposites(c config, cs string) (dv, cow string, others []string) {
	engines := caseEngines(c, cs)
	dv, cow = engines[len(engines)-1], engines[len(engines)-2]
	return dv, cow, engines[:len(engines)-2]
}

// written is the bytes a run's commits wrote: new data files and new DV
// files (the log itself not counted).
func written(a agg) float64 { return a.bytesAdded + a.dvBytes }

// renderDV is the dv suite's report: per case and fraction the engines'
// medians with the deletion vectors written, the ratios of DV mode to
// copy-on-write and to the other engines, then issue 26's targets and
// every run.
func renderDV(all *Report) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("# Deletion vectors: upsert, DELETE and scan with deletion vectors against copy-on-write, the Rust deltalite and delta-rs\n\n")
	b.WriteString(all.markdownHeader())
	p("Tables are the upsert benchmark's (bench/UPSERT.md): %d partitions of the given rows, payload ~%d characters, appends of "+
		"%d rows, written by delta-rs. A batch of fraction f of a partition updates 9/10 x f x rows and inserts 1/10 x f x rows "+
		"keys in each of the first two partitions, the updated keys spread evenly over the partition (so over every file). "+
		"Every engine runs on its own copy of the table; on the copies of this engine this engine first set "+
		"`delta.enableDeletionVectors=true` (`Table.SetProperties`, one metadata commit, not measured), and the copy-on-write "+
		"runs pass `-copy-on-write` (the option `CopyOnWrite`, as `--deletion-vectors=off`); the Rust deltalite and delta-rs run "+
		"on plain copies. Each engine runs %d time(s) per size, case and fraction, in its own process, the engines' order "+
		"rotating per rep. Before every run the page cache was %s. deltalite runs `dlops upsert` / `dlops delete`, delta-rs "+
		"`bench/py/merge_bench.py`, the Rust deltalite `bench/py/rust_deltalite_bench.py`.\n\n",
		all.Partitions, all.Payload, all.FileRows, all.Reps, cmp.Or(all.PageCache, "not recorded"))
	p("Bytes written: the data files the commits added (a file re-added with a new DV is not counted: no data file was " +
		"written) plus the DV files they point at (`deletion_vector_<uuid>.bin`, sized on disk); bytes removed likewise " +
		"leaves out the files that stay with a DV. Batch bytes: the batch's Parquet file and, in parentheses, each touched " +
		"partition's rows in a Parquet file of its own, summed, as the engines write them (the generator gives both " +
		"partitions the same payloads, which the one file stores once); the bytes-written target is held against the " +
		"latter where known.\n\n")
	c := config{rustPython: "x"}
	for _, cs := range dvCases {
		r := all.only(cs)
		r.Sizes = slices.DeleteFunc(r.Sizes, func(s *Size) bool { return len(s.Runs) == 0 }) // not run
		if len(r.Sizes) == 0 {
			continue
		}
		dv, cow, others := dvOpposites(c, cs)
		p("## %s\n\n", dvCaseTitle[cs])
		if cs == caseScanAfter && len(r.Sizes) > 0 {
			s := r.Sizes[0]
			p("Each table had %d upserts of a %s batch (rounds 0.., each changing other keys) before the scans, not measured; "+
				"bytes and files are those upserts' totals.\n\n", s.ScanUpserts, fractionLabel(s.Fraction))
		}
		p("| rows / partition | fraction | engine | op (s) | process wall (s) | CPU user+sys (s) | peak RSS (MiB) | files removed / added | DVs added | bytes written (DV files) | bytes removed | batch bytes |\n")
		p("|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
		for _, s := range r.Sizes {
			for _, e := range r.engines() {
				a := aggregate(s, e)
				if a.n == 0 {
					p("| %s | %s | %s | failed | | | | | | | | |\n", rowsLabel(s.RowsPerPartition), fractionLabel(s.Fraction), e)
					continue
				}
				p("| %s | %s | %s | %.1f | %.1f | %.1f | %.0f | %.0f / %.0f | %.0f | %s (%s) | %s | %s |\n", rowsLabel(s.RowsPerPartition),
					fractionLabel(s.Fraction), e, a.op, a.wall, a.cpu, a.rss, a.filesRemoved, a.filesAdded, a.dvsAdded,
					bytesLabel(written(a)), bytesLabel(a.dvBytes), bytesLabel(a.bytesRemoved), batchLabel(s))
			}
		}
		p("\n")
		for _, s := range r.Sizes {
			if s.DeleteWhere != "" {
				p("- %s: `WHERE %s` deletes %d rows.\n", fractionLabel(s.Fraction), s.DeleteWhere, int64(all.Partitions)*s.RowsPerPartition-s.WantRows)
			}
		}
		if cs == caseDVDelete {
			p("\n")
		}
		p("**Ratios deltalite with deletion vectors / each engine** (below 1: DVs use less)\n\n")
		p("| rows / partition | fraction | against | peak RSS | process wall | CPU | bytes written | same content |\n|---:|---:|---|---:|---:|---:|---:|---|\n")
		for _, s := range r.Sizes {
			u := aggregate(s, dv)
			for _, e := range append([]string{cow}, others...) {
				o := aggregate(s, e)
				if o.n == 0 && !slices.ContainsFunc(s.Runs, func(run Run) bool { return run.Engine == e }) {
					continue
				}
				p("| %s | %s | %s | %s | %s | %s | %s | %s |\n", rowsLabel(s.RowsPerPartition), fractionLabel(s.Fraction), e,
					report.Ratio(u.rss, o.rss), report.Ratio(u.wall, o.wall), report.Ratio(u.cpu, o.cpu), report.Ratio(written(u), written(o)), sameContent(s, o, u))
			}
		}
		p("\n")
	}
	dvTargets(&b, all)
	everyRun(&b, all)
	p("\nExpected content: upserts as the upsert benchmark's (rows = partitions x rows per partition + inserts; sum(counter) = " +
		"rows before - updates + 2 x batch rows; after n upserts, n times the batch's change); DELETE: the rows whose key " +
		"is not below the prefix (counted by `upsert_gen.py below`), each with counter 1. A DV run that put no deletion " +
		"vector on a file fails, as does any other run that put one.\n")
	details(&b, all)
	return b.String()
}

// dvTargets judges issue 26's targets on the dv suite's results: with
// deletion vectors against copy-on-write, process wall at most 0.1x at a
// 0.1% batch and 0.25x at 1%, peak RSS at most 1.0x; bytes written at most
// 1.2x the batch's bytes plus the DV bytes; the scan after the DV upserts
// at most 1.2x the scan after the copy-on-write ones.
func dvTargets(b *strings.Builder, all *Report) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p("## Targets (issue 26)\n\n")
	c := config{rustPython: "x"}
	for _, cs := range dvCases {
		dv, cow, _ := dvOpposites(c, cs)
		for _, s := range all.only(cs).Sizes {
			u, o := aggregate(s, dv), aggregate(s, cow)
			at := fmt.Sprintf("%s, %s, %s", cs, rowsLabel(s.RowsPerPartition), fractionLabel(s.Fraction))
			if len(s.Runs) == 0 {
				p("- %s: not run (the invocation ended before it).\n", at)
				continue
			}
			if u.n == 0 || o.n == 0 {
				p("- %s: not judged, no run of DV mode or of copy-on-write succeeded.\n", at)
				continue
			}
			if cs == caseScanAfter {
				p("- %s: scan wall after the DV upserts at most 1.2x the scan after the copy-on-write ones: %s — %s.\n", at,
					report.Ratio(u.wall, o.wall), report.Verdict(u.wall <= 1.2*o.wall))
				continue
			}
			switch s.Fraction {
			case 0.001:
				p("- %s: process wall at most 0.1x copy-on-write's: %s — %s.\n", at, report.Ratio(u.wall, o.wall), report.Verdict(u.wall <= 0.1*o.wall))
			case 0.01:
				p("- %s: process wall at most 0.25x copy-on-write's: %s — %s.\n", at, report.Ratio(u.wall, o.wall), report.Verdict(u.wall <= 0.25*o.wall))
			default:
				p("- %s: process wall %s of copy-on-write's (no target at this fraction).\n", at, report.Ratio(u.wall, o.wall))
			}
			p("- %s: peak RSS at most copy-on-write's: %.0f vs %.0f MiB, %s — %s.\n", at, u.rss, o.rss, report.Ratio(u.rss, o.rss), report.Verdict(u.rss <= o.rss))
			// The batch split by partition, as the engines write it, where
			// the generator measured that.
			batch, of := float64(s.Batch.Bytes), "the batch's bytes"
			if s.Batch.PartitionBytes > 0 {
				batch, of = float64(s.Batch.PartitionBytes), "the batch's bytes per partition"
			}
			p("- %s: bytes written at most 1.2x %s plus the DV bytes: %s written, %s + %s allowed — %s.\n", at, of,
				bytesLabel(written(u)), bytesLabel(1.2*batch), bytesLabel(u.dvBytes), report.Verdict(written(u) <= 1.2*batch+u.dvBytes))
		}
	}
	p("\n")
}

// batchLabel is a size's batch bytes, with the bytes per partition where
// known; "—" for a DELETE (no batch).
func batchLabel(s *Size) string {
	switch {
	case s.Batch.Bytes == 0:
		return "—"
	case s.Batch.PartitionBytes > 0:
		return bytesLabel(float64(s.Batch.Bytes)) + " (" + bytesLabel(float64(s.Batch.PartitionBytes)) + " per partition)"
	}
	return bytesLabel(float64(s.Batch.Bytes))
}
