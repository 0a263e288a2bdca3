package checkpoint

import (
	"fmt"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/deltalite-go/deltalite/protocol"
)

// rowBuilder appends one action per row to the checkpoint's record
// builder: the action's column gets the struct, every other column null.
type rowBuilder struct {
	cols []*array.StructBuilder // in schema order

	txnCol, addCol, removeCol, metaCol, protoCol, domainCol, cpmCol int

	txnB struct {
		appID        *array.StringBuilder
		version, upd *array.Int64Builder
	}
	addB struct {
		path, stats, clustering   *array.StringBuilder
		pv, tags                  *array.MapBuilder
		size, mtime, rowID, rowCV *array.Int64Builder
		dataChange                *array.BooleanBuilder
		dv                        dvBuilder
		pvParsed                  *array.StructBuilder
		statsParsed               *array.StructBuilder
	}
	removeB struct {
		path                      *array.StringBuilder
		delTS, size, rowID, rowCV *array.Int64Builder
		dataChange, extended      *array.BooleanBuilder
		pv                        *array.MapBuilder
		dv                        dvBuilder
	}
	metaB struct {
		id, name, desc, provider, schemaString *array.StringBuilder
		format                                 *array.StructBuilder
		options, config                        *array.MapBuilder
		partCols                               *array.ListBuilder
		created                                *array.Int64Builder
	}
	protoB struct {
		reader, writer           *array.Int32Builder
		readerFeats, writerFeats *array.ListBuilder
	}
	domainB struct {
		domain, config *array.StringBuilder
		removed        *array.BooleanBuilder
	}
	cpmB struct {
		version *array.Int64Builder
		tags    *array.MapBuilder
	}
	parsed *parsedTypes
}

type dvBuilder struct {
	s                 *array.StructBuilder
	storageType, path *array.StringBuilder
	offset, size      *array.Int32Builder
	cardinality       *array.Int64Builder
}

// fb returns the named field builder of a struct builder.
func fb(s *array.StructBuilder, name string) array.Builder {
	idx, ok := s.Type().(*arrow.StructType).FieldIdx(name)
	if !ok {
		panic(fmt.Sprintf("checkpoint schema has no field %q", name)) // the schema is built above: a bug, not input
	}
	return s.FieldBuilder(idx)
}

func newDVBuilder(parent *array.StructBuilder) dvBuilder {
	s := fb(parent, "deletionVector").(*array.StructBuilder)
	return dvBuilder{
		s:           s,
		storageType: fb(s, "storageType").(*array.StringBuilder),
		path:        fb(s, "pathOrInlineDv").(*array.StringBuilder),
		offset:      fb(s, "offset").(*array.Int32Builder),
		size:        fb(s, "sizeInBytes").(*array.Int32Builder),
		cardinality: fb(s, "cardinality").(*array.Int64Builder),
	}
}

func newRowBuilder(rb *array.RecordBuilder, parsed *parsedTypes, stats bool) (*rowBuilder, error) {
	b := &rowBuilder{parsed: parsed, cpmCol: -1}
	sc := rb.Schema()
	for i, f := range sc.Fields() {
		s := rb.Field(i).(*array.StructBuilder)
		b.cols = append(b.cols, s)
		switch f.Name {
		case "txn":
			b.txnCol = i
			b.txnB.appID = fb(s, "appId").(*array.StringBuilder)
			b.txnB.version = fb(s, "version").(*array.Int64Builder)
			b.txnB.upd = fb(s, "lastUpdated").(*array.Int64Builder)
		case "add":
			b.addCol = i
			a := &b.addB
			a.path = fb(s, "path").(*array.StringBuilder)
			a.pv = fb(s, "partitionValues").(*array.MapBuilder)
			a.size = fb(s, "size").(*array.Int64Builder)
			a.mtime = fb(s, "modificationTime").(*array.Int64Builder)
			a.dataChange = fb(s, "dataChange").(*array.BooleanBuilder)
			if stats {
				a.stats = fb(s, "stats").(*array.StringBuilder)
			}
			a.tags = fb(s, "tags").(*array.MapBuilder)
			a.dv = newDVBuilder(s)
			a.rowID = fb(s, "baseRowId").(*array.Int64Builder)
			a.rowCV = fb(s, "defaultRowCommitVersion").(*array.Int64Builder)
			a.clustering = fb(s, "clusteringProvider").(*array.StringBuilder)
			if parsed != nil && parsed.partitions != nil {
				a.pvParsed = fb(s, pvParsedCol).(*array.StructBuilder)
			}
			if parsed != nil && parsed.stats != nil {
				a.statsParsed = fb(s, statsParsedCol).(*array.StructBuilder)
			}
		case "remove":
			b.removeCol = i
			r := &b.removeB
			r.path = fb(s, "path").(*array.StringBuilder)
			r.delTS = fb(s, "deletionTimestamp").(*array.Int64Builder)
			r.dataChange = fb(s, "dataChange").(*array.BooleanBuilder)
			r.extended = fb(s, "extendedFileMetadata").(*array.BooleanBuilder)
			r.pv = fb(s, "partitionValues").(*array.MapBuilder)
			r.size = fb(s, "size").(*array.Int64Builder)
			r.dv = newDVBuilder(s)
			r.rowID = fb(s, "baseRowId").(*array.Int64Builder)
			r.rowCV = fb(s, "defaultRowCommitVersion").(*array.Int64Builder)
		case "metaData":
			b.metaCol = i
			m := &b.metaB
			m.id = fb(s, "id").(*array.StringBuilder)
			m.name = fb(s, "name").(*array.StringBuilder)
			m.desc = fb(s, "description").(*array.StringBuilder)
			m.format = fb(s, "format").(*array.StructBuilder)
			m.provider = fb(m.format, "provider").(*array.StringBuilder)
			m.options = fb(m.format, "options").(*array.MapBuilder)
			m.schemaString = fb(s, "schemaString").(*array.StringBuilder)
			m.partCols = fb(s, "partitionColumns").(*array.ListBuilder)
			m.config = fb(s, "configuration").(*array.MapBuilder)
			m.created = fb(s, "createdTime").(*array.Int64Builder)
		case "protocol":
			b.protoCol = i
			b.protoB.reader = fb(s, "minReaderVersion").(*array.Int32Builder)
			b.protoB.writer = fb(s, "minWriterVersion").(*array.Int32Builder)
			b.protoB.readerFeats = fb(s, "readerFeatures").(*array.ListBuilder)
			b.protoB.writerFeats = fb(s, "writerFeatures").(*array.ListBuilder)
		case "domainMetadata":
			b.domainCol = i
			b.domainB.domain = fb(s, "domain").(*array.StringBuilder)
			b.domainB.config = fb(s, "configuration").(*array.StringBuilder)
			b.domainB.removed = fb(s, "removed").(*array.BooleanBuilder)
		case "checkpointMetadata":
			b.cpmCol = i
			b.cpmB.version = fb(s, "version").(*array.Int64Builder)
			b.cpmB.tags = fb(s, "tags").(*array.MapBuilder)
		}
	}
	return b, nil
}

// begin starts a row whose action lives in column col.
func (b *rowBuilder) begin(col int) {
	for i, s := range b.cols {
		if i != col {
			s.AppendNull()
		}
	}
	b.cols[col].Append(true)
}

func appendStr(sb *array.StringBuilder, s *string) {
	if s == nil {
		sb.AppendNull()
		return
	}
	sb.Append(*s)
}

func appendInt(ib *array.Int64Builder, v *int64) {
	if v == nil {
		ib.AppendNull()
		return
	}
	ib.Append(*v)
}

// appendMap writes a string map with sorted keys; nullEmpty writes "" as a
// null value (partition values, where "" means null).
func appendMap(mb *array.MapBuilder, m map[string]string, nullEmpty bool) {
	if m == nil {
		mb.AppendNull()
		return
	}
	mb.Append(true)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	kb := mb.KeyBuilder().(*array.StringBuilder)
	vb := mb.ItemBuilder().(*array.StringBuilder)
	for _, k := range keys {
		kb.Append(k)
		if v := m[k]; v == "" && nullEmpty {
			vb.AppendNull()
		} else {
			vb.Append(v)
		}
	}
}

// appendList writes a string list; nil is null unless emptyNotNull.
func appendList(lb *array.ListBuilder, l []string, emptyNotNull bool) {
	if l == nil && !emptyNotNull {
		lb.AppendNull()
		return
	}
	lb.Append(true)
	vb := lb.ValueBuilder().(*array.StringBuilder)
	for _, s := range l {
		vb.Append(s)
	}
}

func (d dvBuilder) append(dv *protocol.DeletionVector) {
	if dv == nil {
		d.s.AppendNull()
		return
	}
	d.s.Append(true)
	d.storageType.Append(dv.StorageType)
	d.path.Append(dv.PathOrInlineDv)
	if dv.Offset != nil {
		d.offset.Append(*dv.Offset)
	} else {
		d.offset.AppendNull()
	}
	d.size.Append(dv.SizeInBytes)
	d.cardinality.Append(dv.Cardinality)
}

func (b *rowBuilder) txn(t *protocol.Txn) {
	b.begin(b.txnCol)
	b.txnB.appID.Append(t.AppID)
	b.txnB.version.Append(t.Version)
	appendInt(b.txnB.upd, t.LastUpdated)
}

func (b *rowBuilder) add(a *protocol.Add) error {
	b.begin(b.addCol)
	ab := &b.addB
	ab.path.Append(a.Path)
	pv := a.PartitionValues
	if pv == nil {
		pv = map[string]string{}
	}
	appendMap(ab.pv, pv, true)
	ab.size.Append(a.Size)
	ab.mtime.Append(a.ModificationTime)
	ab.dataChange.Append(a.DataChange)
	if ab.stats != nil {
		if a.Stats == "" {
			ab.stats.AppendNull()
		} else {
			ab.stats.Append(a.Stats)
		}
	}
	if a.Tags == nil {
		ab.tags.AppendNull()
	} else {
		appendMap(ab.tags, a.Tags, false)
	}
	ab.dv.append(a.DeletionVector)
	appendInt(ab.rowID, a.BaseRowID)
	appendInt(ab.rowCV, a.DefaultRowCommitVersion)
	appendStr(ab.clustering, a.ClusteringProvider)
	if ab.pvParsed != nil {
		if err := appendPartitionsParsed(ab.pvParsed, b.parsed.partCols, a); err != nil {
			return err
		}
	}
	if ab.statsParsed != nil {
		appendStatsParsed(ab.statsParsed, b.parsed.statCols, a.Stats)
	}
	return nil
}

func (b *rowBuilder) remove(r *protocol.Remove) {
	b.begin(b.removeCol)
	rb := &b.removeB
	rb.path.Append(r.Path)
	appendInt(rb.delTS, r.DeletionTimestamp)
	rb.dataChange.Append(r.DataChange)
	if r.ExtendedFileMetadata != nil {
		rb.extended.Append(*r.ExtendedFileMetadata)
	} else {
		rb.extended.AppendNull()
	}
	appendMap(rb.pv, r.PartitionValues, true)
	appendInt(rb.size, r.Size)
	rb.dv.append(r.DeletionVector)
	appendInt(rb.rowID, r.BaseRowID)
	appendInt(rb.rowCV, r.DefaultRowCommitVersion)
}

func (b *rowBuilder) metadata(m *protocol.Metadata) {
	b.begin(b.metaCol)
	mb := &b.metaB
	mb.id.Append(m.ID)
	appendStr(mb.name, m.Name)
	appendStr(mb.desc, m.Description)
	mb.format.Append(true)
	mb.provider.Append(m.Format.Provider)
	options := m.Format.Options
	if options == nil {
		options = map[string]string{}
	}
	appendMap(mb.options, options, false)
	mb.schemaString.Append(m.SchemaString)
	appendList(mb.partCols, m.PartitionColumns, true)
	config := m.Configuration
	if config == nil {
		config = map[string]string{}
	}
	appendMap(mb.config, config, false)
	appendInt(mb.created, m.CreatedTime)
}

// protocol writes the feature lists non-null exactly when the versions
// call for them (reader 3, writer 7), as PROTOCOL.md requires.
func (b *rowBuilder) protocol(p *protocol.Protocol) {
	b.begin(b.protoCol)
	b.protoB.reader.Append(int32(p.MinReaderVersion))
	b.protoB.writer.Append(int32(p.MinWriterVersion))
	if p.MinReaderVersion >= 3 {
		appendList(b.protoB.readerFeats, p.ReaderFeatures, true)
	} else {
		b.protoB.readerFeats.AppendNull()
	}
	if p.MinWriterVersion >= 7 {
		appendList(b.protoB.writerFeats, p.WriterFeatures, true)
	} else {
		b.protoB.writerFeats.AppendNull()
	}
}

func (b *rowBuilder) domain(d *protocol.DomainMetadata) {
	b.begin(b.domainCol)
	b.domainB.domain.Append(d.Domain)
	b.domainB.config.Append(d.Configuration)
	b.domainB.removed.Append(d.Removed)
}

func (b *rowBuilder) checkpointMetadata(version int64) {
	b.begin(b.cpmCol)
	b.cpmB.version.Append(version)
	b.cpmB.tags.AppendNull()
}
