package datafile

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/storage"
)

// TestMeasureWrite measures write throughput and peak RSS on a large
// generated input; it runs only when DELTALITE_WRITE_MEASURE names a
// scenario, one per process so that peak RSS is the scenario's own:
//
//	DELTALITE_WRITE_MEASURE=plain|zstd|part100|part1000|gen [DELTALITE_WRITE_GB=1] [DELTALITE_WRITE_DIR=dir]
//
// The input is id long, name string (24 bytes), value double, key integer,
// in batches of 64 Ki rows; "gen" only generates, to show its cost.
func TestMeasureWrite(t *testing.T) {
	scenario := os.Getenv("DELTALITE_WRITE_MEASURE")
	if scenario == "" {
		t.Skip("set DELTALITE_WRITE_MEASURE to measure")
	}
	gb, _ := strconv.ParseFloat(os.Getenv("DELTALITE_WRITE_GB"), 64)
	if gb == 0 {
		gb = 1
	}
	dir := os.Getenv("DELTALITE_WRITE_DIR")
	if dir == "" {
		dir = t.TempDir()
	} else {
		var err error
		if dir, err = os.MkdirTemp(dir, "measure-"); err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(dir)
	}
	sc := mustSchema(t, fields("id long not null", "name string", "value double", "key integer"))
	opt := Options{Schema: sc}
	switch scenario {
	case "zstd":
		opt.Compression = "zstd"
	case "part100":
		opt.PartitionColumns = []string{"key"}
	case "part1000":
		opt.PartitionColumns = []string{"key"}
	}
	keys := 100
	if scenario == "part1000" {
		keys = 1000
	}
	st, err := storage.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	w, err := NewWriter(context.Background(), st, opt)
	if err != nil {
		t.Fatal(err)
	}
	as, _ := schema.ToArrow(sc, schema.ArrowOptions{})
	const rows = 64 << 10
	var inBytes int64
	start := time.Now()
	for id := int64(0); float64(inBytes) < gb*(1<<30); id += rows {
		rec := measureBatch(as, id, rows, keys)
		inBytes += recordBytes(rec)
		if scenario != "gen" {
			if err := w.Write(rec); err != nil {
				t.Fatal(err)
			}
		}
		rec.Release()
	}
	adds, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	secs := time.Since(start).Seconds()
	cpu := cpuSeconds()
	var outBytes int64
	for _, a := range adds {
		outBytes += a.Size
	}
	t.Logf("%s: %.2f GiB Arrow in %.1f s wall (%.0f MB/s), %.1f s CPU (%.0f MB per CPU second); %d files, %.0f MiB Parquet; peak RSS %s",
		scenario, float64(inBytes)/(1<<30), secs, float64(inBytes)/1e6/secs, cpu, float64(inBytes)/1e6/cpu,
		len(adds), float64(outBytes)/(1<<20), peakRSS())
}

func measureBatch(as *arrow.Schema, first int64, n, keys int) arrow.RecordBatch {
	mem := memory.DefaultAllocator
	ib := array.NewInt64Builder(mem)
	nb := array.NewStringBuilder(mem)
	vb := array.NewFloat64Builder(mem)
	kb := array.NewInt32Builder(mem)
	ib.Reserve(n)
	nb.Reserve(n)
	nb.ReserveData(24 * n)
	vb.Reserve(n)
	kb.Reserve(n)
	var buf []byte
	for i := int64(0); i < int64(n); i++ {
		id := first + i
		ib.UnsafeAppend(id)
		buf = fmt.Appendf(buf[:0], "customer-%015d", id*7919%1_000_003)
		nb.BinaryBuilder.Append(buf)
		vb.UnsafeAppend(float64(id%10_000) * 0.25)
		kb.UnsafeAppend(int32(id % int64(keys)))
	}
	cols := []arrow.Array{ib.NewArray(), nb.NewArray(), vb.NewArray(), kb.NewArray()}
	rec := array.NewRecordBatch(as, cols, int64(n))
	for _, c := range cols {
		c.Release()
	}
	ib.Release()
	nb.Release()
	vb.Release()
	kb.Release()
	return rec
}

// cpuSeconds is the user and system CPU time of the process so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// peakRSS is the process's peak resident set (VmHWM), on Linux.
func peakRSS() string {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}
