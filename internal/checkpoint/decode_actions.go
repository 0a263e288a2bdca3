package checkpoint

import (
	"strconv"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/deltalite-go/deltalite/protocol"
)

func itoa(i int) string { return strconv.Itoa(i) }

type addDec struct {
	key                       string
	s                         *array.Struct
	path, stats, clustering   strFn
	pv, tags                  mapFn
	pvList                    interface{ ValueOffsets(int) (int64, int64) }
	size, mtime, rowID, rowCV intFn
	dataChange                boolFn
	dv                        *dvDec
	// stats is also kept as an array so that needsParsed can test nulls
	// without materialising strings.
	statsArr nullTester

	statsParsed *statsRenderer
	pvParsed    *partitionRenderer
}

type nullTester interface{ IsNull(int) bool }

type alwaysNull struct{}

func (alwaysNull) IsNull(int) bool { return true }

func newAddDec(key string, s *array.Struct) (*addDec, error) {
	d := &addDec{key: key, s: s}
	f := &fields{key: key, col: "add", s: s}
	d.path = field(f, "path", stringCol)
	d.stats = field(f, "stats", stringCol)
	d.clustering = field(f, "clusteringProvider", stringCol)
	pvArr := child(s, "partitionValues")
	d.pv = field(f, "partitionValues", mapCol)
	d.tags = field(f, "tags", mapCol)
	d.size = field(f, "size", intCol)
	d.mtime = field(f, "modificationTime", intCol)
	d.rowID = field(f, "baseRowId", intCol)
	d.rowCV = field(f, "defaultRowCommitVersion", intCol)
	d.dataChange = field(f, "dataChange", boolCol)
	d.dv = f.deletionVector()
	if f.err != nil {
		return nil, f.err
	}
	if l, ok := pvArr.(interface{ ValueOffsets(int) (int64, int64) }); ok {
		d.pvList = l
	}
	d.statsArr = alwaysNull{}
	if a := child(s, "stats"); a != nil {
		d.statsArr = a
	}
	return d, nil
}

// pvEmpty reports whether row i has no partition values in map form.
func (d *addDec) pvEmpty(i int) bool {
	if d.pvList == nil {
		return true
	}
	if d.pvList.(nullTester).IsNull(i) {
		return true
	}
	start, end := d.pvList.ValueOffsets(i)
	return start == end
}

func (d *addDec) row(i int) (*protocol.Add, error) {
	a := &protocol.Add{}
	a.Path, _ = d.path(i)
	if a.Path == "" {
		return nil, rowErr(d.key, i, "add action without a path")
	}
	a.PartitionValues = d.pv(i)
	if len(a.PartitionValues) == 0 && d.pvParsed != nil {
		pv, err := d.pvParsed.row(i)
		if err != nil {
			return nil, err
		}
		a.PartitionValues = pv
	}
	if a.PartitionValues == nil {
		a.PartitionValues = map[string]string{}
	}
	a.Size, _ = d.size(i)
	if a.Size < 0 {
		return nil, rowErr(d.key, i, "add action %q with negative size", a.Path)
	}
	a.ModificationTime, _ = d.mtime(i)
	a.DataChange, _ = d.dataChange(i)
	a.Stats, _ = d.stats(i)
	if a.Stats == "" && d.statsParsed != nil {
		a.Stats = d.statsParsed.row(i)
	}
	a.Tags = d.tags(i)
	a.DeletionVector = d.dv.row(i)
	a.BaseRowID = optInt(d.rowID, i)
	a.DefaultRowCommitVersion = optInt(d.rowCV, i)
	a.ClusteringProvider = optStr(d.clustering, i)
	return a, nil
}

type removeDec struct {
	key                       string
	s                         *array.Struct
	path, stats               strFn
	pv, tags                  mapFn
	delTS, size, rowID, rowCV intFn
	dataChange, extended      boolFn
	dv                        *dvDec
}

func newRemoveDec(key string, s *array.Struct) (*removeDec, error) {
	d := &removeDec{key: key, s: s}
	f := &fields{key: key, col: "remove", s: s}
	d.path = field(f, "path", stringCol)
	d.stats = field(f, "stats", stringCol)
	d.pv = field(f, "partitionValues", mapCol)
	d.tags = field(f, "tags", mapCol)
	d.delTS = field(f, "deletionTimestamp", intCol)
	d.size = field(f, "size", intCol)
	d.rowID = field(f, "baseRowId", intCol)
	d.rowCV = field(f, "defaultRowCommitVersion", intCol)
	d.dataChange = field(f, "dataChange", boolCol)
	d.extended = field(f, "extendedFileMetadata", boolCol)
	d.dv = f.deletionVector()
	return d, f.err
}

func (d *removeDec) row(i int) (*protocol.Remove, error) {
	r := &protocol.Remove{}
	r.Path, _ = d.path(i)
	if r.Path == "" {
		return nil, rowErr(d.key, i, "remove action without a path")
	}
	r.DeletionTimestamp = optInt(d.delTS, i)
	r.DataChange, _ = d.dataChange(i)
	if v, ok := d.extended(i); ok {
		r.ExtendedFileMetadata = &v
	}
	r.PartitionValues = d.pv(i)
	r.Size = optInt(d.size, i)
	r.Stats, _ = d.stats(i)
	r.Tags = d.tags(i)
	r.DeletionVector = d.dv.row(i)
	r.BaseRowID = optInt(d.rowID, i)
	r.DefaultRowCommitVersion = optInt(d.rowCV, i)
	return r, nil
}

type metaDec struct {
	s                                      *array.Struct
	id, name, desc, provider, schemaString strFn
	options, config                        mapFn
	partCols                               listFn
	created                                intFn
}

func newMetaDec(key string, s *array.Struct) (*metaDec, error) {
	d := &metaDec{s: s}
	format, err := structChild(key, "metaData", s, "format")
	if err != nil {
		return nil, err
	}
	f := &fields{key: key, col: "metaData", s: s}
	fm := f.nested("format", format)
	d.id = field(f, "id", stringCol)
	d.name = field(f, "name", stringCol)
	d.desc = field(f, "description", stringCol)
	d.provider = field(fm, "provider", stringCol)
	d.options = field(fm, "options", mapCol)
	d.schemaString = field(f, "schemaString", stringCol)
	d.partCols = field(f, "partitionColumns", listCol)
	d.config = field(f, "configuration", mapCol)
	d.created = field(f, "createdTime", intCol)
	return d, f.err
}

func (d *metaDec) row(i int) *protocol.Metadata {
	m := &protocol.Metadata{}
	m.ID, _ = d.id(i)
	m.Name = optStr(d.name, i)
	m.Description = optStr(d.desc, i)
	m.Format.Provider, _ = d.provider(i)
	m.Format.Options = d.options(i)
	if m.Format.Options == nil {
		m.Format.Options = map[string]string{}
	}
	m.SchemaString, _ = d.schemaString(i)
	m.PartitionColumns = d.partCols(i)
	if m.PartitionColumns == nil {
		m.PartitionColumns = []string{}
	}
	m.Configuration = d.config(i)
	if m.Configuration == nil {
		m.Configuration = map[string]string{}
	}
	m.CreatedTime = optInt(d.created, i)
	return m
}

type protoDec struct {
	key                      string
	s                        *array.Struct
	reader, writer           intFn
	readerFeats, writerFeats listFn
}

func newProtoDec(key string, s *array.Struct) (*protoDec, error) {
	d := &protoDec{key: key, s: s}
	f := &fields{key: key, col: "protocol", s: s}
	d.reader = field(f, "minReaderVersion", intCol)
	d.writer = field(f, "minWriterVersion", intCol)
	d.readerFeats = field(f, "readerFeatures", listCol)
	d.writerFeats = field(f, "writerFeatures", listCol)
	return d, f.err
}

func (d *protoDec) row(i int) (*protocol.Protocol, error) {
	r, ok1 := d.reader(i)
	w, ok2 := d.writer(i)
	if !ok1 || !ok2 {
		return nil, rowErr(d.key, i, "protocol action without minReaderVersion or minWriterVersion")
	}
	return &protocol.Protocol{
		MinReaderVersion: int(r),
		MinWriterVersion: int(w),
		ReaderFeatures:   d.readerFeats(i),
		WriterFeatures:   d.writerFeats(i),
	}, nil
}

type txnDec struct {
	key            string
	s              *array.Struct
	appID          strFn
	version, lastU intFn
}

func newTxnDec(key string, s *array.Struct) (*txnDec, error) {
	d := &txnDec{key: key, s: s}
	f := &fields{key: key, col: "txn", s: s}
	d.appID = field(f, "appId", stringCol)
	d.version = field(f, "version", intCol)
	d.lastU = field(f, "lastUpdated", intCol)
	return d, f.err
}

func (d *txnDec) row(i int) (*protocol.Txn, error) {
	t := &protocol.Txn{}
	t.AppID, _ = d.appID(i)
	if t.AppID == "" {
		return nil, rowErr(d.key, i, "txn action without an appId")
	}
	t.Version, _ = d.version(i)
	t.LastUpdated = optInt(d.lastU, i)
	return t, nil
}

type domainDec struct {
	key            string
	s              *array.Struct
	domain, config strFn
	removed        boolFn
}

func newDomainDec(key string, s *array.Struct) (*domainDec, error) {
	d := &domainDec{key: key, s: s}
	f := &fields{key: key, col: "domainMetadata", s: s}
	d.domain = field(f, "domain", stringCol)
	d.config = field(f, "configuration", stringCol)
	d.removed = field(f, "removed", boolCol)
	return d, f.err
}

func (d *domainDec) row(i int) (*protocol.DomainMetadata, error) {
	m := &protocol.DomainMetadata{}
	m.Domain, _ = d.domain(i)
	if m.Domain == "" {
		return nil, rowErr(d.key, i, "domainMetadata action without a domain")
	}
	m.Configuration, _ = d.config(i)
	m.Removed, _ = d.removed(i)
	return m, nil
}

type cpmDec struct {
	s       *array.Struct
	version intFn
	tags    mapFn
}

func newCpmDec(key string, s *array.Struct) (*cpmDec, error) {
	d := &cpmDec{s: s}
	f := &fields{key: key, col: "checkpointMetadata", s: s}
	d.version = field(f, "version", intCol)
	d.tags = field(f, "tags", mapCol)
	return d, f.err
}

func (d *cpmDec) row(i int) *protocol.CheckpointMetadata {
	m := &protocol.CheckpointMetadata{}
	m.Version, _ = d.version(i)
	m.Tags = d.tags(i)
	return m
}

type sidecarDec struct {
	key         string
	s           *array.Struct
	path        strFn
	size, mtime intFn
	tags        mapFn
}

func newSidecarDec(key string, s *array.Struct) (*sidecarDec, error) {
	d := &sidecarDec{key: key, s: s}
	f := &fields{key: key, col: "sidecar", s: s}
	d.path = field(f, "path", stringCol)
	d.size = field(f, "sizeInBytes", intCol)
	d.mtime = field(f, "modificationTime", intCol)
	d.tags = field(f, "tags", mapCol)
	return d, f.err
}

func (d *sidecarDec) row(i int) (*protocol.Sidecar, error) {
	sc := &protocol.Sidecar{}
	sc.Path, _ = d.path(i)
	if sc.Path == "" {
		return nil, rowErr(d.key, i, "sidecar action without a path")
	}
	sc.SizeInBytes, _ = d.size(i)
	sc.ModificationTime, _ = d.mtime(i)
	sc.Tags = d.tags(i)
	return sc, nil
}

// dvDec decodes a deletionVector struct.
type dvDec struct {
	s                       *array.Struct
	storageType, pathOrDv   strFn
	offset, size, cardinals intFn
}

func newDVDec(key, col string, parent *array.Struct) (*dvDec, error) {
	s, err := structChild(key, col, parent, "deletionVector")
	if err != nil || s == nil {
		return nil, err
	}
	f := &fields{key: key, col: col + ".deletionVector", s: s}
	d := &dvDec{s: s}
	d.storageType = field(f, "storageType", stringCol)
	d.pathOrDv = field(f, "pathOrInlineDv", stringCol)
	d.offset = field(f, "offset", intCol)
	d.size = field(f, "sizeInBytes", intCol)
	d.cardinals = field(f, "cardinality", intCol)
	return d, f.err
}

func (d *dvDec) row(i int) *protocol.DeletionVector {
	if d == nil || !valid(d.s, i) {
		return nil
	}
	dv := &protocol.DeletionVector{}
	dv.StorageType, _ = d.storageType(i)
	dv.PathOrInlineDv, _ = d.pathOrDv(i)
	if off, ok := d.offset(i); ok {
		o := int32(off)
		dv.Offset = &o
	}
	size, _ := d.size(i)
	dv.SizeInBytes = int32(size)
	dv.Cardinality, _ = d.cardinals(i)
	return dv
}
