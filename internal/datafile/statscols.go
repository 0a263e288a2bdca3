package datafile

import (
	"slices"
	"strings"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/schema"
)

// statsConfig is which columns get statistics and how strings are cut.
type statsConfig struct {
	numIndexed int64      // -1: every leaf
	columns    [][]string // delta.dataSkippingStatsColumns, parsed; nil when unset
	prefixLen  int        // runes kept of string bounds; 0: no string bounds
}

func readStatsConfig(p protocol.Properties) (statsConfig, error) {
	bad := func(err error) error { return errs.Wrap(errs.InvalidArgument, "", err, "table properties") }
	var c statsConfig
	n, err := p.Int(protocol.PropDataSkippingNumIndexedCols, 32)
	if err != nil {
		return c, bad(err)
	}
	if n < -1 {
		return c, errs.New(errs.InvalidArgument, "", "table property %s = %d must be -1 (all columns) or more",
			protocol.PropDataSkippingNumIndexedCols, n)
	}
	c.numIndexed = n
	l, err := p.Int(protocol.PropStringPrefixLength, 32)
	if err != nil {
		return c, bad(err)
	}
	if l < 0 || l > 1<<20 {
		return c, errs.New(errs.InvalidArgument, "", "table property %s = %d is out of range", protocol.PropStringPrefixLength, l)
	}
	c.prefixLen = int(l)
	if raw := strings.TrimSpace(p[protocol.PropDataSkippingStatsColumns]); raw != "" {
		cols, err := schema.ParseColumnList(raw)
		if err != nil {
			return c, errs.New(errs.InvalidArgument, "", "table property %s = %q: %v", protocol.PropDataSkippingStatsColumns, raw, err)
		}
		c.columns = cols
	}
	return c, nil
}

// leafKind says which bounds a statistics leaf keeps.
type leafKind uint8

const (
	kindNullsOnly leafKind = iota // binary, arrays, maps, variant: null count only
	kindInt
	kindDate
	kindTimestamp
	kindTimestampNTZ
	kindFloat
	kindDouble
	kindDecimal
	kindBool
	kindString
)

func kindOf(t schema.Type) leafKind {
	switch t := t.(type) {
	case *schema.Decimal:
		return kindDecimal
	case *schema.Primitive:
		switch t.Name {
		case schema.Long, schema.Integer, schema.Short, schema.Byte:
			return kindInt
		case schema.Date:
			return kindDate
		case schema.Timestamp:
			return kindTimestamp
		case schema.TimestampNTZ:
			return kindTimestampNTZ
		case schema.Float:
			return kindFloat
		case schema.Double:
			return kindDouble
		case schema.Boolean:
			return kindBool
		case schema.String:
			return kindString
		}
	}
	return kindNullsOnly
}

// statLeaf is one column with statistics: where its values are in a file
// batch, and what bounds it keeps.
type statLeaf struct {
	path  []int // column of the file batch, then struct child indices
	kind  leafKind
	scale int32 // decimals
}

// statNode mirrors the statistics JSON: a struct of physical names down to
// the leaves, in schema order.
type statNode struct {
	name     string
	leaf     int // index into statsPlan.leaves; -1 for a struct
	children []*statNode
}

// statsPlan is the statistics layout of a table's data files.
type statsPlan struct {
	leaves    []statLeaf
	root      []*statNode
	prefixLen int
}

// newStatsPlan selects the leaves that get statistics among the data
// columns (partition and void columns excluded, as they are not in the
// files): delta.dataSkippingStatsColumns when set, else the first
// numIndexed leaves in schema order, where an array, a map or a variant
// counts as one leaf.
func newStatsPlan(data []*schema.Field, mode schema.Mode, c statsConfig) *statsPlan {
	p := &statsPlan{prefixLen: c.prefixLen}
	counted := int64(0)
	var walk func(fields []*schema.Field, logical []string, idx []int) []*statNode
	walk = func(fields []*schema.Field, logical []string, idx []int) []*statNode {
		var nodes []*statNode
		pos := 0
		for _, f := range fields {
			if isVoid(f.Type) {
				continue
			}
			lp := append(logical[:len(logical):len(logical)], f.Name)
			ip := append(idx[:len(idx):len(idx)], pos)
			pos++
			if st, ok := f.Type.(*schema.Struct); ok {
				if kids := walk(st.Fields, lp, ip); len(kids) > 0 {
					nodes = append(nodes, &statNode{name: f.PhysicalName(mode), leaf: -1, children: kids})
				}
				continue
			}
			var take bool
			if c.columns != nil {
				take = selected(c.columns, lp)
			} else {
				take = c.numIndexed < 0 || counted < c.numIndexed
				counted++
			}
			if !take {
				continue
			}
			leaf := statLeaf{path: ip, kind: kindOf(f.Type)}
			if d, ok := f.Type.(*schema.Decimal); ok {
				leaf.scale = int32(d.Scale)
			}
			nodes = append(nodes, &statNode{name: f.PhysicalName(mode), leaf: len(p.leaves)})
			p.leaves = append(p.leaves, leaf)
		}
		return nodes
	}
	p.root = walk(data, nil, nil)
	return p
}

// selected reports whether a leaf's logical path is named by the list, or
// lies below a named struct. Names match case-insensitively, as Spark
// resolves them.
func selected(cols [][]string, leaf []string) bool {
	for _, c := range cols {
		if len(c) > len(leaf) {
			continue
		}
		match := true
		for i := range c {
			if !strings.EqualFold(c[i], leaf[i]) {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}

func isVoid(t schema.Type) bool {
	p, ok := t.(*schema.Primitive)
	return ok && p.Name == schema.Void
}

// HasMinMax reports whether the data files of a table get minimum and
// maximum statistics for the column at path (logical names; a nested
// field's struct names first), by the same selection as the files'
// statistics (delta.dataSkippingStatsColumns, else
// delta.dataSkippingNumIndexedCols; partition columns are not in files).
// Operations that rely on data skipping by a column (z-order, clustering)
// check it.
func HasMinMax(sc *schema.Struct, partitionColumns []string, mode schema.Mode, props protocol.Properties, path []string) (bool, error) {
	c, err := readStatsConfig(props)
	if err != nil {
		return false, err
	}
	fields, err := sc.FieldPath(path)
	if err != nil {
		return false, nil
	}
	var data []*schema.Field
	for _, f := range sc.Fields {
		if !slices.ContainsFunc(partitionColumns, func(p string) bool { return strings.EqualFold(p, f.Name) }) {
			data = append(data, f)
		}
	}
	p := newStatsPlan(data, mode, c)
	nodes := p.root
	for i, f := range fields {
		phys := f.PhysicalName(mode)
		var next *statNode
		for _, n := range nodes {
			if n.name == phys {
				next = n
				break
			}
		}
		if next == nil {
			return false, nil
		}
		if i < len(fields)-1 {
			nodes = next.children
			continue
		}
		if next.leaf < 0 {
			return false, nil
		}
		l := p.leaves[next.leaf]
		return l.kind != kindNullsOnly && (l.kind != kindString || p.prefixLen > 0), nil
	}
	return false, nil
}
