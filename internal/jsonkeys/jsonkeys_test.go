package jsonkeys

import (
	"errors"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/internal/errs"
)

func TestUnique(t *testing.T) {
	for _, ok := range []string{
		`{}`, `[]`, `1`, `"s"`, `null`, ``, `  `,
		`{"a": 1, "b": {"a": 2}, "c": [{"a": 3}, {"a": 4}]}`,
		`{"a": 1, "A": 2}`,            // keys are case-sensitive
		`[{"a": 1}, {"a": 1}]`,        // the same key in sibling objects
		`{"a": "\"b\": 1, \"a\": 2"}`, // keys inside a string are text
		`{"a": 1, "a"`,                // malformed: left to the decoder
	} {
		if err := Unique([]byte(ok)); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for doc, path := range map[string]string{
		`{"merge_type": "upsert", "merge_type": "custom"}`:                             `merge_type`,
		`{"when_matched": [{"condition": "a"}, {"condition": "a", "condition": "b"}]}`: `when_matched[1].condition`,
		`[[{}], [{"x": {"y": 1, "y": 2}}]]`:                                            `[1][0].x.y`,
		`{"a\u0062": 1, "ab": 2}`:                                                      `ab`, // the same key, escaped
		`{"o": {"p": [1, {"q": null}], "p": 3}}`:                                       `o.p`,
	} {
		err := Unique([]byte(doc))
		if !errors.Is(err, errs.ErrInvalidArgument) || !strings.Contains(err.Error(), `duplicate key "`+path+`"`) {
			t.Errorf("%s: %v, want duplicate key %q", doc, err, path)
		}
	}
}
