// Command dlops runs one write operation of this engine through the root
// API, with its defaults, in its own process, and prints a runproc.Result as
// one JSON line. The benchmark harnesses start it and measure it from the
// outside.
//
//	dlops upsert TABLE BATCH.parquet [-pk id] [-partition-key _ph_partition_key] [-copy-on-write] [-cpuprofile F] [-metrics F]
//	dlops write TABLE INPUT.arrows [-partition-by c1,c2] [-cpuprofile F] [-metrics F]
//	dlops merge TABLE BATCH.parquet -spec SPEC.json [-copy-on-write] [-cpuprofile F] [-metrics F]
//	dlops delete TABLE PREDICATE [-copy-on-write] [-cpuprofile F] [-metrics F]
//
// merge runs Table.Merge with the options of a merge spec file (the
// deltalite command's --spec JSON, merge.ParseSpec); delete runs
// Table.Delete with PREDICATE as its WHERE condition.
// upsert opens the table, streams the Parquet batch into Table.Upsert and
// reports its stats. -copy-on-write sets the operation's CopyOnWrite (the
// deltalite command's --deletion-vectors=off): on a table with deletion
// vectors on, rewrite the changed files instead of writing DVs. write streams an Arrow IPC stream file into
// deltalite.Write with mode error (a new table). The timed operation
// includes opening the input and the table. -metrics writes the JSON object
// the upsert benchmark's Python programs write too (bench/py/upsert_args.py):
// the bytes the process read and wrote through system calls during the
// operation and, for upsert, its files probed, carried over and removed.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"runtime/trace"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/bench/internal/procstat"
	"github.com/deltalite-go/deltalite/bench/internal/runproc"
	"github.com/deltalite-go/deltalite/limits"
	"github.com/deltalite-go/deltalite/merge"
	"github.com/deltalite-go/deltalite/storage"
)

func main() {
	if len(os.Args) < 4 {
		fmt.Fprintln(os.Stderr, "usage: dlops upsert|merge TABLE BATCH.parquet [flags] | dlops write TABLE INPUT.arrows [flags] | dlops delete TABLE PREDICATE [flags]")
		os.Exit(2)
	}
	op, table, input := os.Args[1], os.Args[2], os.Args[3]
	fs := flag.NewFlagSet(op, flag.ExitOnError)
	pk := fs.String("pk", "id", "primary key columns, comma-separated")
	partKey := fs.String("partition-key", "_ph_partition_key", "the upsert's PartitionKey")
	partBy := fs.String("partition-by", "", "partition columns of the new table, comma-separated")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the operation here")
	maxBuffered := fs.Int64("max-buffered-bytes", 0, "the upsert's MaxBufferedBytes (0: its default)")
	memProfile := fs.String("memprofile", "", "write an allocation profile of the operation here")
	traceOut := fs.String("trace", "", "write an execution trace of the operation here")
	manageHeap := fs.Bool("manage-heap", true, "let the engine set Go's soft memory limit, as the deltalite command does (limits.ManageGoMemoryLimit)")
	metricsOut := fs.String("metrics", "", "write the operation's I/O and file counts here as JSON")
	spec := fs.String("spec", "", "merge: the merge spec JSON file (as the deltalite command's --spec)")
	cow := fs.Bool("copy-on-write", false, "upsert, merge, delete: rewrite changed files even where the table has deletion vectors on")
	fsync := fs.String("fsync", "all", `what the local store syncs: "all" (data files before the commit) or "log" (only the log, as delta-rs)`)
	if err := fs.Parse(os.Args[4:]); err != nil {
		os.Exit(2)
	}
	if *manageHeap {
		defer limits.ManageGoMemoryLimit()()
	}
	startRecording(*cpuProfile, pprof.StartCPUProfile)
	defer pprof.StopCPUProfile()
	startRecording(*traceOut, trace.Start)
	defer trace.Stop()
	so := map[string]string{storage.LocalSyncOption: *fsync}
	ctx := context.Background()
	res := runproc.Result{Engine: "deltalite", Op: op}
	// The -metrics file's object, keyed as upsertbench's EngineMetrics.
	m := map[string]int64{}
	readBefore, writtenBefore := ioBytes()
	start := time.Now()
	var err error
	switch op {
	case "upsert":
		var parts []string
		if *partKey != "" {
			parts = strings.Split(*partKey, ",")
		}
		err = upsert(ctx, table, input, deltalite.UpsertOptions{PrimaryKeys: strings.Split(*pk, ","), PartitionBy: parts, MaxBufferedBytes: *maxBuffered, CopyOnWrite: *cow}, so, &res, m)
	case "merge":
		err = mergeOp(ctx, table, input, *spec, *cow, so, &res, m)
	case "delete":
		err = deleteOp(ctx, table, input, *cow, so, &res, m)
	case "write":
		err = write(ctx, table, input, split(*partBy), so, &res)
	default:
		err = fmt.Errorf("unknown operation %q", op)
	}
	res.Seconds = time.Since(start).Seconds()
	if err != nil {
		fmt.Fprintln(os.Stderr, "dlops:", err)
		pprof.StopCPUProfile()
		trace.Stop()
		os.Exit(1)
	}
	res.PeakRSSKiB = procstat.PeakRSSKiB()
	if *metricsOut != "" {
		r, w := ioBytes()
		m["read_bytes"], m["written_bytes"] = r-readBefore, w-writtenBefore
		b, _ := json.Marshal(m)
		if err := os.WriteFile(*metricsOut, b, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "dlops:", err)
			os.Exit(1)
		}
	}
	if *memProfile != "" {
		if f, err := os.Create(*memProfile); err == nil {
			_ = pprof.Lookup("allocs").WriteTo(f, 0)
			f.Close()
		}
	}
	if err := json.NewEncoder(os.Stdout).Encode(res); err != nil {
		os.Exit(1)
	}
}

// startRecording starts a profile or trace into path, if one is asked for.
func startRecording(path string, start func(io.Writer) error) {
	if path == "" {
		return
	}
	f, err := os.Create(path)
	if err == nil {
		err = start(f)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "dlops:", err)
		os.Exit(1)
	}
}

func split(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// ioBytes is /proc/self/io's rchar and wchar: bytes passed through read
// and write system calls by every thread, page-cache hits included; zeros
// where /proc does not have them.
func ioBytes() (read, written int64) {
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return 0, 0
	}
	for line := range strings.Lines(string(b)) {
		k, v, _ := strings.Cut(line, ":")
		n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		switch k {
		case "rchar":
			read = n
		case "wchar":
			written = n
		}
	}
	return read, written
}

// onBatch opens the table and streams the Parquet batch file into op.
func onBatch(ctx context.Context, table, batch string, so map[string]string, op func(*deltalite.Table, array.RecordReader) error) error {
	pf, err := file.OpenParquetFile(batch, false)
	if err != nil {
		return err
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 8192}, memory.DefaultAllocator)
	if err != nil {
		return err
	}
	rr, err := fr.GetRecordReader(ctx, nil, nil)
	if err != nil {
		return err
	}
	defer rr.Release()
	t, err := deltalite.Open(ctx, table, deltalite.WithStorageOptions(so))
	if err != nil {
		return err
	}
	return op(t, rr)
}

func upsert(ctx context.Context, table, batch string, opt deltalite.UpsertOptions, so map[string]string, res *runproc.Result, m map[string]int64) error {
	return onBatch(ctx, table, batch, so, func(t *deltalite.Table, rr array.RecordReader) error {
		st, err := t.Upsert(ctx, rr, opt)
		if err != nil {
			return err
		}
		*res = runproc.Result{Engine: res.Engine, Op: res.Op, Version: st.Version, Rows: st.SourceRows,
			RowsUpdated: st.RowsUpdated, RowsInserted: st.RowsInserted, RowsCopied: st.RowsCopied,
			FilesAdded: int64(st.FilesAdded), FilesRemoved: int64(st.FilesRemoved), Detail: st.String()}
		m["files_probed"], m["files_carried_over"], m["files_removed"] = int64(st.FilesProbed), int64(st.FilesCarriedOver), int64(st.FilesRemoved)
		return nil
	})
}

// readSpec reads a merge spec file; its errors name the file.
func readSpec(path string) (deltalite.MergeOptions, error) {
	if path == "" {
		return deltalite.MergeOptions{}, fmt.Errorf("merge needs -spec SPEC.json (the deltalite command's merge spec)")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return deltalite.MergeOptions{}, err
	}
	opt, err := merge.ParseSpec(b)
	if err != nil {
		return deltalite.MergeOptions{}, fmt.Errorf("%s: %w", path, err)
	}
	return opt, nil
}

func mergeOp(ctx context.Context, table, batch, specPath string, cow bool, so map[string]string, res *runproc.Result, m map[string]int64) error {
	opt, err := readSpec(specPath)
	if err != nil {
		return err
	}
	opt.CopyOnWrite = cow
	return onBatch(ctx, table, batch, so, func(t *deltalite.Table, rr array.RecordReader) error {
		st, err := t.Merge(ctx, rr, opt)
		if err != nil {
			return err
		}
		*res = runproc.Result{Engine: res.Engine, Op: res.Op, Version: st.Version, Rows: st.SourceRows,
			RowsUpdated: st.TargetRowsUpdated, RowsInserted: st.TargetRowsInserted, RowsCopied: st.TargetRowsCopied,
			FilesAdded: int64(st.TargetFilesAdded), FilesRemoved: int64(st.TargetFilesRemoved), Detail: st.String()}
		m["files_scanned"], m["files_skipped"], m["files_removed"] = int64(st.TargetFilesScanned), int64(st.TargetFilesSkipped), int64(st.TargetFilesRemoved)
		return nil
	})
}

func deleteOp(ctx context.Context, table, predicate string, cow bool, so map[string]string, res *runproc.Result, m map[string]int64) error {
	t, err := deltalite.Open(ctx, table, deltalite.WithStorageOptions(so))
	if err != nil {
		return err
	}
	st, err := t.Delete(ctx, deltalite.DeleteOptions{Predicate: predicate, CopyOnWrite: cow})
	if err != nil {
		return err
	}
	res.Version = st.Version
	res.Rows = st.RowsDeleted
	res.RowsCopied = st.RowsCopied
	res.FilesAdded = int64(st.FilesAdded)
	res.FilesRemoved = int64(st.FilesRemoved)
	res.Detail = fmt.Sprintf("rows_deleted=%d files_scanned=%d files_removed=%d files_added=%d deletion_vectors_added=%d",
		st.RowsDeleted, st.FilesScanned, st.FilesRemoved, st.FilesAdded, st.DeletionVectorsAdded)
	m["files_scanned"], m["files_removed"] = int64(st.FilesScanned), int64(st.FilesRemoved)
	return nil
}

func write(ctx context.Context, table, input string, partBy []string, so map[string]string, res *runproc.Result) error {
	f, err := os.Open(input)
	if err != nil {
		return err
	}
	defer f.Close()
	rr, err := ipc.NewReader(f)
	if err != nil {
		return err
	}
	defer rr.Release()
	wr, err := deltalite.Write(ctx, table, rr, deltalite.WriteOptions{Mode: deltalite.ModeError, PartitionBy: partBy, StorageOptions: so})
	if err != nil {
		return err
	}
	res.Version = wr.Version
	res.Rows = wr.RowsWritten
	res.FilesAdded = int64(wr.FilesAdded)
	res.Detail = fmt.Sprintf("files_added=%d rows_written=%d bytes_written=%d", wr.FilesAdded, wr.RowsWritten, wr.BytesWritten)
	return nil
}
