package conformance

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// deltaRSCases are the delta-rs test tables; where delta-rs's own tests
// know the values, they are checked.
func deltaRSCases(root string) []Case {
	known := map[string]Case{
		"simple_table":            {Expect: MatchValues, Check: wantSorted("id", "5", "7", "9")},
		"delta-0.2.0":             {Expect: MatchValues, Version: 2, Check: wantSorted("value", "1", "2", "3")},
		"table-with-dv-small":     {Expect: MatchValues, Check: wantCount(8)},
		"table-without-dv-small":  {Expect: MatchValues, Check: wantCount(10)},
		"delta-0.8.0-partitioned": {Expect: MatchValues, Check: wantPartitioned},
		"delta-0.8-empty":         {Expect: MatchValues, Check: wantCount(0)},
	}
	var out []Case
	for _, name := range dirs(filepath.Join(root, "delta-rs")) {
		c, ok := known[name]
		if !ok {
			out = append(out, plainCases(root, "delta-rs", name)...)
			continue
		}
		if c.Version == 0 {
			c.Version = -1
		}
		c.Group, c.Name, c.Table = "delta-rs", name, filepath.Join(root, "delta-rs", name)
		out = append(out, c)
	}
	return out
}

// column returns one column's values, strings unquoted.
func column(rows []map[string]string, col string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = unquote(r[col])
	}
	return out
}

func unquote(s string) string {
	if u, err := strconv.Unquote(s); err == nil {
		return u
	}
	return s
}

func wantSorted(col string, want ...string) func([]map[string]string) string {
	return func(rows []map[string]string) string {
		got := column(rows, col)
		sort.Strings(got)
		if !slices.Equal(got, want) {
			return fmt.Sprintf("%s = %v, want %v", col, got, want)
		}
		return ""
	}
}

func wantCount(n int) func([]map[string]string) string {
	return func(rows []map[string]string) string {
		if len(rows) != n {
			return fmt.Sprintf("%d rows, want %d", len(rows), n)
		}
		return ""
	}
}

// wantFiles checks the live file set of an OpensLog case.
func wantFiles(paths ...string) func([]map[string]string) string {
	return func(rows []map[string]string) string {
		got := column(rows, "path")
		sort.Strings(got)
		if !slices.Equal(got, paths) && !(len(got) == 0 && len(paths) == 0) {
			return fmt.Sprintf("live files %v, want %v", got, paths)
		}
		return ""
	}
}

// wantPartitioned holds the values delta-rs's Python tests expect of
// delta-0.8.0-partitioned, as (value, year, month, day) tuples.
func wantPartitioned(rows []map[string]string) string {
	want := []string{"1/2020/1/1", "2/2020/2/3", "3/2020/2/5", "4/2021/4/5", "5/2021/12/4", "6/2021/12/20", "7/2021/12/20"}
	var got []string
	for _, r := range rows {
		got = append(got, strings.Join([]string{unquote(r["value"]), unquote(r["year"]), unquote(r["month"]), unquote(r["day"])}, "/"))
	}
	sort.Strings(got)
	if !slices.Equal(got, want) {
		return fmt.Sprintf("rows %v, want %v", got, want)
	}
	return ""
}
