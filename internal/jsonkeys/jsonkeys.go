// Package jsonkeys refuses JSON documents that give a key twice in one
// object. encoding/json keeps the last value of a repeated key without a
// word, so a merge spec with "merge_type" twice would run whichever came
// last; every decoder of user JSON (specs, handler configs, metadata
// values, partition definitions, schemas) checks the document here first.
//
// It must never import another package of this module but internal/errs.
package jsonkeys

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/deltalite-go/deltalite/internal/errs"
)

// Unique returns an errs.InvalidArgument error naming the first key an
// object of data gives twice, with its path from the top
// ("when_matched[0].condition"), or nil. Keys compare as decoded text
// (escapes resolved), case-sensitively, as JSON defines them. Malformed
// JSON is left to the decoder that follows (nil), whose message says where.
func Unique(data []byte) error {
	if !json.Valid(data) {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	w := walker{dec: dec}
	tok, err := dec.Token()
	if err != nil {
		return nil // empty or malformed: the decoder's to report
	}
	return w.value(tok)
}

// walker walks the decoder's tokens, keeping the path for messages.
type walker struct {
	dec  *json.Decoder
	path []string
}

// value walks the value that starts with tok.
func (w *walker) value(tok json.Token) error {
	d, ok := tok.(json.Delim)
	if !ok {
		return nil // a scalar
	}
	if d == '[' {
		for i := 0; ; i++ {
			t, err := w.dec.Token()
			if err != nil {
				return nil
			}
			if t == json.Delim(']') {
				return nil
			}
			w.path = append(w.path, fmt.Sprintf("[%d]", i))
			err = w.value(t)
			w.path = w.path[:len(w.path)-1]
			if err != nil {
				return err
			}
		}
	}
	seen := map[string]bool{}
	for {
		t, err := w.dec.Token()
		if err != nil {
			return nil
		}
		if t == json.Delim('}') {
			return nil
		}
		key, _ := t.(string)
		w.path = append(w.path, key)
		if seen[key] {
			return errs.New(errs.InvalidArgument, "", "duplicate key %q: give each key of an object once (a JSON decoder would keep the last one silently)",
				w.render())
		}
		seen[key] = true
		v, err := w.dec.Token()
		if err != nil {
			return nil
		}
		if err := w.value(v); err != nil {
			return err
		}
		w.path = w.path[:len(w.path)-1]
	}
}

// render is the path as a.b[0].c.
func (w *walker) render() string {
	var b strings.Builder
	for i, p := range w.path {
		if i > 0 && !strings.HasPrefix(p, "[") {
			b.WriteByte('.')
		}
		b.WriteString(p)
	}
	return b.String()
}
