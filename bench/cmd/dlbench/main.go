// Command dlbench runs one benchmark operation with this engine in its own
// process and prints a procstat.Result as JSON:
//
//	dlbench open TABLE [-version N]      open a snapshot and count its files
//	dlbench scan TABLE [-columns a,b,c] [-parallelism N]  read every row to Arrow and count rows
//	dlbench noop                         start and exit (the RSS floor)
//
// -cpuprofile FILE and -memprofile FILE write a CPU profile of the operation
// and a profile of its allocations (for go tool pprof).
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

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/bench/internal/procstat"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: dlbench open|scan|noop [TABLE] [flags]")
		os.Exit(2)
	}
	op := os.Args[1]
	fs := flag.NewFlagSet(op, flag.ExitOnError)
	version := fs.Int64("version", -1, "open this version (latest when negative)")
	columns := fs.String("columns", "", "comma-separated columns to read (all when empty)")
	parallelism := fs.Int("parallelism", 0, "files read at once (the scan's default when 0)")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the operation to this file")
	memprofile := fs.String("memprofile", "", "write a profile of the operation's allocations to this file")
	var table string
	args := os.Args[2:]
	if op != "noop" {
		if len(args) < 1 {
			fmt.Fprintln(os.Stderr, "dlbench: missing TABLE")
			os.Exit(2)
		}
		table, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		os.Exit(2)
	}
	if *cpuprofile != "" {
		stop, err := startCPUProfile(*cpuprofile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "dlbench:", err)
			os.Exit(1)
		}
		defer stop()
	}
	ctx := context.Background()
	res := procstat.Result{Engine: "deltalite", Op: op}
	start := time.Now()
	var err error
	switch op {
	case "noop":
	case "open":
		err = open(ctx, table, *version, &res)
	case "scan":
		var cols []string
		if *columns != "" {
			cols = strings.Split(*columns, ",")
		}
		err = scanTable(ctx, table, *version, cols, *parallelism, &res)
	default:
		err = fmt.Errorf("unknown operation %q", op)
	}
	res.Seconds = time.Since(start).Seconds()
	if err != nil {
		fmt.Fprintln(os.Stderr, "dlbench:", err)
		os.Exit(1)
	}
	res.PeakRSSKiB = procstat.PeakRSSKiB()
	if *memprofile != "" {
		if err := writeAllocs(*memprofile); err != nil {
			fmt.Fprintln(os.Stderr, "dlbench:", err)
			os.Exit(1)
		}
	}
	if err := json.NewEncoder(os.Stdout).Encode(res); err != nil {
		os.Exit(1)
	}
}

// startCPUProfile profiles the process until the returned stop is called.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "dlbench: writing the CPU profile:", err)
		}
	}, nil
}

func openTable(ctx context.Context, table string, version int64) (*deltalite.Table, error) {
	var opts []deltalite.Option
	if version >= 0 {
		opts = append(opts, deltalite.WithVersion(version))
	}
	return deltalite.Open(ctx, table, opts...)
}

func open(ctx context.Context, table string, version int64, res *procstat.Result) error {
	t, err := openTable(ctx, table, version)
	if err != nil {
		return err
	}
	res.Version = t.Version()
	res.Files = int64(len(t.FileURIs()))
	return nil
}

// writeAllocs writes the allocations profile (every allocation since start).
func writeAllocs(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
