package schema

import (
	"errors"
	"fmt"
	"strings"
)

// ParseColumnList reads a comma-separated list of column paths as Spark
// writes them (delta.dataSkippingStatsColumns, CLUSTER BY, ZORDER BY):
// dots separate nested fields, backticks quote a name that holds dots,
// commas or spaces, and a doubled backtick is a backtick.
func ParseColumnList(s string) ([][]string, error) {
	var out [][]string
	var path []string
	var cur strings.Builder
	quoted, sawName := false, false
	end := func() error {
		name := cur.String()
		if !sawName {
			name = strings.TrimSpace(name)
		}
		if name == "" && !sawName {
			return errors.New("empty column name")
		}
		path = append(path, name)
		cur.Reset()
		sawName = false
		return nil
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quoted && c == '`' && i+1 < len(s) && s[i+1] == '`':
			cur.WriteByte('`')
			i++
		case quoted && c == '`':
			quoted, sawName = false, true
		case quoted:
			cur.WriteByte(c)
		case c == '`':
			if strings.TrimSpace(cur.String()) != "" {
				return nil, errors.New("a backtick inside a column name")
			}
			cur.Reset()
			quoted = true
		case c == '.':
			if err := end(); err != nil {
				return nil, err
			}
		case c == ',':
			if err := end(); err != nil {
				return nil, err
			}
			out = append(out, path)
			path = nil
		case sawName && c != ' ' && c != '\t':
			return nil, errors.New("text after a quoted column name")
		case sawName:
		default:
			cur.WriteByte(c)
		}
	}
	if quoted {
		return nil, errors.New("unbalanced backtick")
	}
	if err := end(); err != nil {
		return nil, err
	}
	return append(out, path), nil
}

// ParseColumnPath reads one column path (a.b, `a.b`.c) as ParseColumnList
// does.
func ParseColumnPath(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, errors.New("empty column name")
	}
	list, err := ParseColumnList(s)
	if err != nil {
		return nil, err
	}
	if len(list) != 1 {
		return nil, fmt.Errorf("%q names %d columns, not one", s, len(list))
	}
	return list[0], nil
}

// QuoteColumnPath is the dotted text of a column path, each name that
// holds a dot, a comma, a space or a backtick quoted with backticks, as
// Spark shows nested columns (s.a, `a.b`.c): ParseColumnPath reads it
// back.
func QuoteColumnPath(path []string) string {
	parts := make([]string, len(path))
	for i, n := range path {
		if n == "" || strings.ContainsAny(n, ".,` \t") {
			n = "`" + strings.ReplaceAll(n, "`", "``") + "`"
		}
		parts[i] = n
	}
	return strings.Join(parts, ".")
}

// FieldPath resolves a column path to the fields along it, outermost
// first: each name but the last must be a struct's. Names match as Field
// matches them (exactly, else ignoring case).
func (s *Struct) FieldPath(path []string) ([]*Field, error) {
	if len(path) == 0 {
		return nil, errors.New("empty column path")
	}
	var out []*Field
	cur := s
	for i, n := range path {
		if cur == nil {
			return nil, fmt.Errorf("%s is not a struct, so it has no field %q", QuoteColumnPath(path[:i]), n)
		}
		f := cur.Field(n)
		if f == nil {
			if i == 0 {
				return nil, fmt.Errorf("no such column %q", n)
			}
			return nil, fmt.Errorf("struct %s has no field %q", QuoteColumnPath(path[:i]), n)
		}
		out = append(out, f)
		cur, _ = f.Type.(*Struct)
	}
	return out, nil
}

// ColumnPath resolves a column as a user names one (CLUSTER BY, ZORDER
// BY): a top-level column of exactly that name (also one that holds a
// dot), else the path ParseColumnPath reads (s.a), through FieldPath.
func (s *Struct) ColumnPath(name string) ([]*Field, error) {
	if f := s.Field(name); f != nil {
		return []*Field{f}, nil
	}
	path, err := ParseColumnPath(name)
	if err != nil {
		return nil, err
	}
	return s.FieldPath(path)
}
