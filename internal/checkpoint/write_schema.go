package checkpoint

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/deltalite-go/deltalite/schema"
)

// The checkpoint schema of PROTOCOL.md "Checkpoint Schema": one nullable
// struct column per action kind. Every field is nullable, as Spark writes
// them, so that any engine's checkpoint reader accepts the file.

func nullable(name string, t arrow.DataType) arrow.Field {
	return arrow.Field{Name: name, Type: t, Nullable: true}
}

var (
	stringMap   = arrow.MapOf(arrow.BinaryTypes.String, arrow.BinaryTypes.String)
	stringList  = arrow.ListOf(arrow.BinaryTypes.String)
	dvStructTyp = arrow.StructOf(
		nullable("storageType", arrow.BinaryTypes.String),
		nullable("pathOrInlineDv", arrow.BinaryTypes.String),
		nullable("offset", arrow.PrimitiveTypes.Int32),
		nullable("sizeInBytes", arrow.PrimitiveTypes.Int32),
		nullable("cardinality", arrow.PrimitiveTypes.Int64),
	)
)

// checkpointSchema builds the Arrow schema of a classic checkpoint. stats
// adds add.stats; parsed (may be nil) adds add.partitionValues_parsed and
// add.stats_parsed; v2 adds the checkpointMetadata column.
func checkpointSchema(stats bool, parsed *parsedTypes, v2 bool) *arrow.Schema {
	add := []arrow.Field{
		nullable("path", arrow.BinaryTypes.String),
		nullable("partitionValues", stringMap),
		nullable("size", arrow.PrimitiveTypes.Int64),
		nullable("modificationTime", arrow.PrimitiveTypes.Int64),
		nullable("dataChange", arrow.FixedWidthTypes.Boolean),
	}
	if stats {
		add = append(add, nullable("stats", arrow.BinaryTypes.String))
	}
	add = append(add,
		nullable("tags", stringMap),
		nullable("deletionVector", dvStructTyp),
		nullable("baseRowId", arrow.PrimitiveTypes.Int64),
		nullable("defaultRowCommitVersion", arrow.PrimitiveTypes.Int64),
		nullable("clusteringProvider", arrow.BinaryTypes.String),
	)
	if parsed != nil && parsed.partitions != nil {
		add = append(add, nullable(pvParsedCol, parsed.partitions))
	}
	if parsed != nil && parsed.stats != nil {
		add = append(add, nullable(statsParsedCol, parsed.stats))
	}
	fields := []arrow.Field{
		nullable("txn", arrow.StructOf(
			nullable("appId", arrow.BinaryTypes.String),
			nullable("version", arrow.PrimitiveTypes.Int64),
			nullable("lastUpdated", arrow.PrimitiveTypes.Int64),
		)),
		nullable("add", arrow.StructOf(add...)),
		nullable("remove", arrow.StructOf(
			nullable("path", arrow.BinaryTypes.String),
			nullable("deletionTimestamp", arrow.PrimitiveTypes.Int64),
			nullable("dataChange", arrow.FixedWidthTypes.Boolean),
			nullable("extendedFileMetadata", arrow.FixedWidthTypes.Boolean),
			nullable("partitionValues", stringMap),
			nullable("size", arrow.PrimitiveTypes.Int64),
			nullable("deletionVector", dvStructTyp),
			nullable("baseRowId", arrow.PrimitiveTypes.Int64),
			nullable("defaultRowCommitVersion", arrow.PrimitiveTypes.Int64),
		)),
		nullable("metaData", arrow.StructOf(
			nullable("id", arrow.BinaryTypes.String),
			nullable("name", arrow.BinaryTypes.String),
			nullable("description", arrow.BinaryTypes.String),
			nullable("format", arrow.StructOf(
				nullable("provider", arrow.BinaryTypes.String),
				nullable("options", stringMap),
			)),
			nullable("schemaString", arrow.BinaryTypes.String),
			nullable("partitionColumns", stringList),
			nullable("configuration", stringMap),
			nullable("createdTime", arrow.PrimitiveTypes.Int64),
		)),
		nullable("protocol", arrow.StructOf(
			nullable("minReaderVersion", arrow.PrimitiveTypes.Int32),
			nullable("minWriterVersion", arrow.PrimitiveTypes.Int32),
			nullable("readerFeatures", stringList),
			nullable("writerFeatures", stringList),
		)),
		nullable("domainMetadata", arrow.StructOf(
			nullable("domain", arrow.BinaryTypes.String),
			nullable("configuration", arrow.BinaryTypes.String),
			nullable("removed", arrow.FixedWidthTypes.Boolean),
		)),
	}
	if v2 {
		fields = append(fields, nullable("checkpointMetadata", arrow.StructOf(
			nullable("version", arrow.PrimitiveTypes.Int64),
			nullable("tags", stringMap),
		)))
	}
	return arrow.NewSchema(fields, nil)
}

// parsedTypes are the typed add columns written when statistics are
// written as structs: partitionValues_parsed (nil for an unpartitioned
// table) and stats_parsed, both keyed by physical column names.
type parsedTypes struct {
	partitions *arrow.StructType
	partCols   []partCol
	stats      *arrow.StructType
	statCols   []*statCol // the data columns, in schema order
}

// partCol is one partition column: its physical name (the key of
// partitionValues) and its type.
type partCol struct {
	name string
	typ  schema.Type
}

// statCol describes one data column in stats_parsed: its physical name, its
// type, and for a struct its children. minMax says whether min/max values
// are kept for it (or, for a struct, for some field below it).
type statCol struct {
	name     string
	typ      schema.Type
	arrow    arrow.DataType // for a leaf with minMax
	minMax   bool
	children []*statCol
}

func newStatCol(f *schema.Field, mode schema.Mode) (*statCol, error) {
	c := &statCol{name: f.PhysicalName(mode), typ: f.Type}
	switch t := f.Type.(type) {
	case *schema.Struct:
		for _, cf := range t.Fields {
			cc, err := newStatCol(cf, mode)
			if err != nil {
				return nil, err
			}
			c.children = append(c.children, cc)
			c.minMax = c.minMax || cc.minMax
		}
	default:
		if schema.MinMaxEligible(f.Type) {
			at, err := schema.ArrowType(f.Type, schema.ArrowOptions{Physical: true, Mode: mode})
			if err != nil {
				return nil, err
			}
			c.arrow, c.minMax = at, true
		}
	}
	return c, nil
}

// minMaxType is the type of minValues/maxValues over cols; nil when no
// column has min/max statistics.
func minMaxType(cols []*statCol) *arrow.StructType {
	var fields []arrow.Field
	for _, c := range cols {
		if !c.minMax {
			continue
		}
		if c.children != nil {
			fields = append(fields, nullable(c.name, minMaxType(c.children)))
		} else {
			fields = append(fields, nullable(c.name, c.arrow))
		}
	}
	if len(fields) == 0 {
		return nil
	}
	return arrow.StructOf(fields...)
}

// nullCountType is the type of nullCount: a long per column, nested for
// structs (an empty struct has no entry).
func nullCountType(cols []*statCol) *arrow.StructType {
	var fields []arrow.Field
	for _, c := range cols {
		if c.children != nil {
			if t := nullCountType(c.children); t != nil {
				fields = append(fields, nullable(c.name, t))
			}
			continue
		}
		fields = append(fields, nullable(c.name, arrow.PrimitiveTypes.Int64))
	}
	if len(fields) == 0 {
		return nil
	}
	return arrow.StructOf(fields...)
}

// newParsedTypes derives the typed add columns from the table schema.
func newParsedTypes(s *schema.Struct, partitionColumns []string, mode schema.Mode) (*parsedTypes, error) {
	p := &parsedTypes{}
	isPart := map[string]bool{}
	var pfields []arrow.Field
	for _, name := range partitionColumns {
		f := s.Field(name)
		if f == nil {
			return nil, errInvalid("partition column %q is not in the schema", name)
		}
		isPart[f.Name] = true
		at, err := schema.ArrowType(f.Type, schema.ArrowOptions{Physical: true, Mode: mode})
		if err != nil {
			return nil, errInvalid("partition column %q: %v", name, err)
		}
		pc := partCol{name: f.PhysicalName(mode), typ: f.Type}
		p.partCols = append(p.partCols, pc)
		pfields = append(pfields, nullable(pc.name, at))
	}
	if len(pfields) > 0 {
		p.partitions = arrow.StructOf(pfields...)
	}
	for _, f := range s.Fields {
		if isPart[f.Name] {
			continue
		}
		c, err := newStatCol(f, mode)
		if err != nil {
			return nil, errInvalid("column %q: %v", f.Name, err)
		}
		p.statCols = append(p.statCols, c)
	}
	fields := []arrow.Field{nullable("numRecords", arrow.PrimitiveTypes.Int64)}
	if mm := minMaxType(p.statCols); mm != nil {
		fields = append(fields, nullable("minValues", mm), nullable("maxValues", mm))
	}
	if nc := nullCountType(p.statCols); nc != nil {
		fields = append(fields, nullable("nullCount", nc))
	}
	fields = append(fields, nullable("tightBounds", arrow.FixedWidthTypes.Boolean))
	p.stats = arrow.StructOf(fields...)
	return p, nil
}
