package arrowrows

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// ParquetDir renders the rows of every Parquet file in dir (not recursive),
// sorted; _SUCCESS and dot files are skipped. It is how the expected
// contents of the conformance tables are read.
func ParquetDir(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	n := 0
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || !strings.HasSuffix(name, ".parquet") {
			continue
		}
		rows, err := ParquetFile(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		out = append(out, rows...)
		n++
	}
	if n == 0 {
		return nil, fmt.Errorf("no Parquet files in %s", dir)
	}
	sort.Strings(out)
	return out, nil
}

// ParquetFile renders the rows of one Parquet file, sorted.
func ParquetFile(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	pf, err := file.NewParquetReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer tbl.Release()
	return TableRows(tbl), nil
}
