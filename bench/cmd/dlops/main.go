// Command dlops runs one write operation of this engine through the root
// API, with its defaults, in its own process, and prints a runproc.Result as
// one JSON line. The benchmark harnesses start it and measure it from the
// outside.
//
//	dlops upsert TABLE BATCH.parquet [-pk id] [-partition-key _ph_partition_key] [-cpuprofile F]
//	dlops write TABLE INPUT.arrows [-partition-by c1,c2] [-cpuprofile F]
//
// upsert opens the table, streams the Parquet batch into Table.Upsert and
// reports its stats. write streams an Arrow IPC stream file into
// deltalite.Write with mode error (a new table). The timed operation
// includes opening the input and the table.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/bench/internal/procstat"
	"github.com/deltalite-go/deltalite/bench/internal/runproc"
)

func main() {
	if len(os.Args) < 4 {
		fmt.Fprintln(os.Stderr, "usage: dlops upsert TABLE BATCH.parquet [flags] | dlops write TABLE INPUT.arrows [flags]")
		os.Exit(2)
	}
	op, table, input := os.Args[1], os.Args[2], os.Args[3]
	fs := flag.NewFlagSet(op, flag.ExitOnError)
	pk := fs.String("pk", "id", "primary key columns, comma-separated")
	partKey := fs.String("partition-key", "_ph_partition_key", "the upsert's PartitionKey")
	partBy := fs.String("partition-by", "", "partition columns of the new table, comma-separated")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the operation here")
	if err := fs.Parse(os.Args[4:]); err != nil {
		os.Exit(2)
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "dlops:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	ctx := context.Background()
	res := runproc.Result{Engine: "deltalite", Op: op}
	start := time.Now()
	var err error
	switch op {
	case "upsert":
		err = upsert(ctx, table, input, strings.Split(*pk, ","), *partKey, &res)
	case "write":
		err = write(ctx, table, input, split(*partBy), &res)
	default:
		err = fmt.Errorf("unknown operation %q", op)
	}
	res.Seconds = time.Since(start).Seconds()
	if err != nil {
		fmt.Fprintln(os.Stderr, "dlops:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
	res.PeakRSSKiB = procstat.PeakRSSKiB()
	if err := json.NewEncoder(os.Stdout).Encode(res); err != nil {
		os.Exit(1)
	}
}

func split(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

func upsert(ctx context.Context, table, batch string, pk []string, partKey string, res *runproc.Result) error {
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
	t, err := deltalite.Open(ctx, table)
	if err != nil {
		return err
	}
	st, err := t.Upsert(ctx, rr, deltalite.UpsertOptions{PrimaryKeys: pk, PartitionKey: partKey})
	if err != nil {
		return err
	}
	res.Version = st.Version
	res.Rows = st.SourceRows
	res.RowsUpdated = st.RowsUpdated
	res.RowsInserted = st.RowsInserted
	res.RowsCopied = st.RowsCopied
	res.FilesAdded = int64(st.FilesAdded)
	res.FilesRemoved = int64(st.FilesRemoved)
	res.Detail = st.String()
	return nil
}

func write(ctx context.Context, table, input string, partBy []string, res *runproc.Result) error {
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
	wr, err := deltalite.Write(ctx, table, rr, deltalite.WriteOptions{Mode: deltalite.ModeError, PartitionBy: partBy})
	if err != nil {
		return err
	}
	res.Version = wr.Version
	res.Rows = wr.RowsWritten
	res.FilesAdded = int64(wr.FilesAdded)
	res.Detail = fmt.Sprintf("files_added=%d rows_written=%d bytes_written=%d", wr.FilesAdded, wr.RowsWritten, wr.BytesWritten)
	return nil
}
