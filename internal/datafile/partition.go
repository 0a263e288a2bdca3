package datafile

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/deltalite-go/deltalite/internal/errs"
	partvals "github.com/deltalite-go/deltalite/internal/partition"
	"github.com/deltalite-go/deltalite/schema"
)

// partCol is a partition column of the writer.
type partCol struct {
	field *schema.Field
	index int    // column of the logical batch
	key   string // partitionValues key: the physical name under column mapping
}

// groupRows gives each row the dense id of its partition value set and
// returns the number of sets. Values are compared as stored (float bits,
// decimal units), so two sets may still share a partition once rendered as
// text; the partition map then merges them.
func groupRows(rec arrow.RecordBatch, parts []partCol) ([]int32, int, error) {
	cols := make([]arrow.Array, len(parts))
	for i, pc := range parts {
		cols[i] = rec.Column(pc.index)
	}
	return partvals.GroupRows(cols, int(rec.NumRows()))
}

// partitionValue reads one row's value of a partition column in its log
// text form; ok is false for null, and for an empty string, which the log
// cannot tell from null.
func partitionValue(pc partCol, arr arrow.Array, row int) (string, bool, error) {
	if arr.IsNull(row) {
		return "", false, nil
	}
	v, err := partvals.Value(arr, row)
	if err != nil {
		return "", false, errs.Wrap(errs.Internal, "", err, "partition column %q", pc.field.Name)
	}
	s, err := schema.FormatPartitionValue(pc.field.Type, v)
	if err != nil {
		return "", false, errs.Wrap(errs.InvalidArgument, "", err, "partition column %q", pc.field.Name)
	}
	if !utf8.ValidString(s) {
		return "", false, errs.New(errs.InvalidArgument, "", "partition column %q has a value that is not valid UTF-8 (%q): the log stores partition values as JSON text",
			pc.field.Name, s)
	}
	if s == "" {
		if !pc.field.Nullable {
			return "", false, errs.New(errs.InvalidArgument, "", "partition column %q is not nullable, but has an empty string, which Delta stores as null", pc.field.Name)
		}
		return "", false, nil
	}
	return strings.Clone(s), true, nil
}

// partitionKey identifies a set of partition values.
func partitionKey(values []string, ok []bool) string {
	var b strings.Builder
	for i, v := range values {
		if !ok[i] {
			b.WriteString("-;")
			continue
		}
		b.WriteString(strconv.Itoa(len(v)))
		b.WriteByte(':')
		b.WriteString(v)
		b.WriteByte(';')
	}
	return b.String()
}
