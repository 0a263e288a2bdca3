package main

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// csvRows reads the records of a CSV file with a header line, naming the
// file and line in its errors. An empty cell is null.
type csvRows struct {
	r      *csv.Reader
	name   string
	header []string
	line   int // line of the last record read
}

func newCSVRows(f *os.File, name string) (*csvRows, error) {
	r := csv.NewReader(f)
	r.ReuseRecord = true
	c := &csvRows{r: r, name: name}
	h, err := c.next()
	if err == io.EOF {
		return nil, fmt.Errorf("%s is empty: a CSV input needs a header line naming its columns", name)
	}
	if err != nil {
		return nil, err
	}
	c.header = append([]string(nil), h...)
	c.header[0] = strings.TrimPrefix(c.header[0], "\ufeff") // a byte order mark
	seen := map[string]int{}
	for i, n := range c.header {
		if strings.TrimSpace(n) == "" {
			return nil, fmt.Errorf("%s line %d: column %d has no name in the header", name, c.line, i+1)
		}
		if j, ok := seen[strings.ToLower(n)]; ok {
			return nil, fmt.Errorf("%s line %d: columns %d and %d are both named %q (names ignore case)", name, c.line, j+1, i+1, n)
		}
		seen[strings.ToLower(n)] = i
	}
	return c, nil
}

// next returns the next record, io.EOF at the end.
func (c *csvRows) next() ([]string, error) {
	rec, err := c.r.Read()
	if err == io.EOF {
		return nil, err
	}
	if rec != nil {
		c.line, _ = c.r.FieldPos(0)
	}
	var pe *csv.ParseError
	switch {
	case errors.Is(err, csv.ErrFieldCount):
		return nil, fmt.Errorf("%s line %d: %d fields, but the header has %d", c.name, c.line, len(rec), len(c.header))
	case errors.As(err, &pe):
		return nil, fmt.Errorf("%s line %d, character %d: %v", c.name, pe.Line, pe.Column, pe.Err)
	case err != nil:
		return nil, fmt.Errorf("%s: %w", c.name, err)
	}
	return rec, nil
}

// cellError locates a value error.
func (c *csvRows) cellError(col int, err error) error {
	return fmt.Errorf("%s line %d, column %s: %v", c.name, c.line, c.header[col], err)
}

// openCSV reads the whole file once to type each column (the table's type,
// or the most specific of textTypes every value fits, else string) and to
// check the values, then streams it again as batches.
func openCSV(f *os.File, name string, like *arrow.Schema) (*input, error) {
	rows, err := newCSVRows(f, name)
	if err != nil {
		return nil, err
	}
	fields := make([]arrow.Field, len(rows.header))
	checks := make([]array.Builder, len(rows.header)) // the table's columns
	fits := make([]uint8, len(rows.header))           // the others: a bit per textTypes entry
	valued := make([]bool, len(rows.header))          // whether a column had a non-empty cell
	var sc scratch
	defer sc.release()
	for i, n := range rows.header {
		if tf, ok := tableField(like, n); ok {
			fields[i] = arrow.Field{Name: tf.Name, Type: tf.Type, Nullable: true}
			checks[i] = sc.add(tf.Type)
			continue
		}
		fields[i] = arrow.Field{Name: n, Nullable: true}
		fits[i] = 1<<len(textTypes) - 1
	}
	var n int64
	for ; ; n++ {
		rec, err := rows.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		for i, cell := range rec {
			switch {
			case checks[i] != nil:
				if err := appendText(checks[i], cell); err != nil {
					return nil, rows.cellError(i, err)
				}
			case cell != "" && fits[i] != 0:
				valued[i] = true
				for t := range textTypes {
					if fits[i]&(1<<t) != 0 && !textFits(t, cell) {
						fits[i] &^= 1 << t
					}
				}
			}
		}
		sc.endRow()
	}
	for i := range fields {
		if checks[i] != nil {
			continue
		}
		fields[i].Type = typeString
		// A column of no values (or a header-only file) stays a string.
		if valued[i] {
			for t := range textTypes {
				if fits[i]&(1<<t) != 0 {
					fields[i].Type = textTypes[t]
					break
				}
			}
		}
	}
	if err := rewind(f, name); err != nil {
		return nil, err
	}
	if rows, err = newCSVRows(f, name); err != nil {
		return nil, err
	}
	fill := func(b *array.RecordBuilder) (int, error) {
		for k := 0; k < batchRows; k++ {
			rec, err := rows.next()
			if err == io.EOF {
				return k, nil
			}
			if err != nil {
				return k, err
			}
			for i, cell := range rec {
				if err := appendText(b.Field(i), cell); err != nil {
					return k, rows.cellError(i, err)
				}
			}
		}
		return batchRows, nil
	}
	return &input{RecordReader: newBatchReader(arrow.NewSchema(fields, nil), fill), rows: n}, nil
}
