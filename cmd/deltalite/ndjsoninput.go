package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// maxLine bounds one NDJSON line (one row).
const maxLine = 256 << 20

// ndjsonLines lexes an NDJSON file one object per line, key by key in
// the line's order, naming the file, line and key in its errors.
type ndjsonLines struct {
	sc   *bufio.Scanner
	name string
	line int64
}

func newNDJSONLines(f *os.File, name string) *ndjsonLines {
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), maxLine)
	return &ndjsonLines{sc: sc, name: name}
}

// keyError is a value error of one key.
type keyError struct {
	key string
	err error
}

func (e *keyError) Error() string { return fmt.Sprintf("column %s: %v", e.key, e.err) }

// next lexes the next object, calling value for each key; ok is false at
// the end.
func (r *ndjsonLines) next(value func(key []byte, v jsonValue) error) (ok bool, err error) {
	var text []byte
	for len(text) == 0 {
		if !r.sc.Scan() {
			if err := r.sc.Err(); errors.Is(err, bufio.ErrTooLong) {
				return false, fmt.Errorf("%s line %d is longer than %d MiB", r.name, r.line+1, maxLine>>20)
			} else if err != nil {
				return false, fmt.Errorf("%s: %w", r.name, err)
			}
			return false, nil
		}
		r.line++
		text = bytes.TrimSpace(r.sc.Bytes())
	}
	lex := jsonLexer{b: text}
	err = lex.object(func(key []byte, v jsonValue) error {
		if err := value(key, v); err != nil {
			return &keyError{key: string(key), err: err}
		}
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("%s line %d, %v", r.name, r.line, err)
	}
	return true, nil
}

// ndjsonCol is what the first pass learns of one key.
type ndjsonCol struct {
	field     arrow.Field
	check     array.Builder // the table's columns: their values are checked
	kind      jsonKind      // the other columns: the kind their values widen to
	firstLine [numKinds]int64
	lastLine  int64 // to find a key twice in one object
}

// ndjsonCols are the columns in first-seen order. Keys ignore case, as
// Delta column names do.
type ndjsonCols struct {
	cols  []*ndjsonCol
	exact map[string]int // every spelling seen
	lower map[string]int
}

func (c *ndjsonCols) find(key []byte) (int, bool) {
	if i, ok := c.exact[string(key)]; ok {
		return i, true
	}
	i, ok := c.lower[strings.ToLower(string(key))]
	if ok {
		c.exact[string(key)] = i
	}
	return i, ok
}

// openNDJSON reads the whole file once to learn its keys in first-seen
// order and their types (the table's, or inferred: a key whose values
// have kinds no one type holds is an error naming both lines), then
// streams it again as batches.
func openNDJSON(f *os.File, name string, like *arrow.Schema) (*input, error) {
	lines := newNDJSONLines(f, name)
	cols := &ndjsonCols{exact: map[string]int{}, lower: map[string]int{}}
	var sc scratch
	defer sc.release()
	learn := func(key []byte, v jsonValue) error {
		i, ok := cols.find(key)
		if !ok {
			c := &ndjsonCol{field: arrow.Field{Name: string(key), Nullable: true}}
			if tf, ok := tableField(like, c.field.Name); ok {
				c.field = arrow.Field{Name: tf.Name, Type: tf.Type, Nullable: true}
				c.check = sc.add(tf.Type)
			}
			i = len(cols.cols)
			cols.exact[c.field.Name] = i
			cols.exact[string(key)] = i
			cols.lower[strings.ToLower(c.field.Name)] = i
			cols.cols = append(cols.cols, c)
		}
		c := cols.cols[i]
		if c.lastLine == lines.line {
			return fmt.Errorf("the key appears twice in the object (keys ignore case)")
		}
		c.lastLine = lines.line
		if c.check != nil {
			return appendJSON(c.check, v)
		}
		k, err := kindOf(v)
		if err != nil {
			return err
		}
		if c.firstLine[k] == 0 {
			c.firstLine[k] = lines.line
		}
		w, ok := widenKind(c.kind, k)
		if !ok {
			return fmt.Errorf("%s, but line %d has %s: make the values one type, or create the table first with the type you want",
				kindNames[k], c.firstLine[c.kind], kindNames[c.kind])
		}
		c.kind = w
		return nil
	}
	var n int64
	for ; ; n++ {
		ok, err := lines.next(learn)
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		sc.endRow()
	}
	fields := make([]arrow.Field, len(cols.cols))
	for i, c := range cols.cols {
		fields[i] = c.field
		if c.check == nil {
			fields[i].Type = c.kind.arrowType()
		}
	}
	if err := rewind(f, name); err != nil {
		return nil, err
	}
	lines = newNDJSONLines(f, name)
	fill := func(b *array.RecordBuilder) (int, error) {
		put := func(key []byte, v jsonValue) error {
			i, _ := cols.find(key) // the first pass saw every key
			return appendJSON(b.Field(i), v)
		}
		for k := 0; k < batchRows; k++ {
			ok, err := lines.next(put)
			if err != nil || !ok {
				return k, err
			}
			for _, fb := range b.Fields() {
				if fb.Len() == k { // the key is not on this line
					fb.AppendNull()
				}
			}
		}
		return batchRows, nil
	}
	return &input{RecordReader: newBatchReader(arrow.NewSchema(fields, nil), fill), rows: n}, nil
}
