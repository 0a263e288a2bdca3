package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// maxLine bounds one NDJSON line (one row).
const maxLine = 256 << 20

// ndjsonLines decodes an NDJSON file one object per line, key by key in
// the line's order, naming the file, line and key in its errors.
type ndjsonLines struct {
	sc   *bufio.Scanner
	name string
	line int64
	seen map[string]bool // the keys of the current line, lower-cased
}

func newNDJSONLines(f *os.File, name string) *ndjsonLines {
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), maxLine)
	return &ndjsonLines{sc: sc, name: name, seen: map[string]bool{}}
}

// next decodes the next object, calling value for each key with dec at
// the key's value, which value must read. ok is false at the end.
func (r *ndjsonLines) next(value func(key string, dec *json.Decoder) error) (ok bool, err error) {
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
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	clear(r.seen)
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return false, r.syntax(dec, err, "a line must hold one JSON object")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return false, r.syntax(dec, err, "")
		}
		key := tok.(string) // json.Decoder only yields string keys inside an object
		lower := strings.ToLower(key)
		if r.seen[lower] {
			return false, fmt.Errorf("%s line %d: key %q appears twice (keys ignore case)", r.name, r.line, key)
		}
		r.seen[lower] = true
		if err := value(key, dec); err != nil {
			var se *json.SyntaxError
			if errors.As(err, &se) || errors.Is(err, io.ErrUnexpectedEOF) {
				return false, r.syntax(dec, err, "")
			}
			return false, fmt.Errorf("%s line %d, column %s: %v", r.name, r.line, key, err)
		}
	}
	if _, err := dec.Token(); err != nil {
		return false, r.syntax(dec, err, "")
	}
	if _, err := dec.Token(); err != io.EOF {
		return false, fmt.Errorf("%s line %d: more after the JSON object, at character %d: a line must hold one JSON object", r.name, r.line, dec.InputOffset()+1)
	}
	return true, nil
}

// syntax reports a line that is not one well-formed JSON object.
func (r *ndjsonLines) syntax(dec *json.Decoder, err error, what string) error {
	if what == "" {
		what = "not valid JSON"
		if errors.Is(err, io.ErrUnexpectedEOF) || err == io.EOF {
			what = "the JSON object is cut short"
		}
	}
	return fmt.Errorf("%s line %d, character %d: %s", r.name, r.line, dec.InputOffset()+1, what)
}

// ndjsonCol is what the first pass learns of one key.
type ndjsonCol struct {
	field     arrow.Field
	check     array.Builder // the table's columns: their values are checked
	kind      jsonKind      // the other columns: the kind their values widen to
	firstLine [numKinds]int64
}

// openNDJSON reads the whole file once to learn its keys in first-seen
// order and their types (the table's, or inferred: a key whose values
// have kinds no one type holds is an error naming both lines), then
// streams it again as batches.
func openNDJSON(f *os.File, name string, like *arrow.Schema) (*input, error) {
	lines := newNDJSONLines(f, name)
	var cols []*ndjsonCol
	index := map[string]int{} // lower-cased key -> column
	var sc scratch
	defer sc.release()
	learn := func(key string, dec *json.Decoder) error {
		i, ok := index[strings.ToLower(key)]
		if !ok {
			c := &ndjsonCol{field: arrow.Field{Name: key, Nullable: true}}
			if tf, ok := tableField(like, key); ok {
				c.field = arrow.Field{Name: tf.Name, Type: tf.Type, Nullable: true}
				c.check = sc.add(tf.Type)
			}
			i = len(cols)
			index[strings.ToLower(key)] = i
			cols = append(cols, c)
		}
		c := cols[i]
		if c.check != nil {
			return appendJSON(c.check, dec)
		}
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		k, err := kindOf(tok)
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
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
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
		put := func(key string, dec *json.Decoder) error {
			return appendJSON(b.Field(index[strings.ToLower(key)]), dec)
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
