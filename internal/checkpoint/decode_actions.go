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
	var e [11]error
	d.path, e[0] = stringCol(key, "add.path", child(s, "path"))
	d.stats, e[1] = stringCol(key, "add.stats", child(s, "stats"))
	d.clustering, e[2] = stringCol(key, "add.clusteringProvider", child(s, "clusteringProvider"))
	pvArr := child(s, "partitionValues")
	d.pv, e[3] = mapCol(key, "add.partitionValues", pvArr)
	d.tags, e[4] = mapCol(key, "add.tags", child(s, "tags"))
	d.size, e[5] = intCol(key, "add.size", child(s, "size"))
	d.mtime, e[6] = intCol(key, "add.modificationTime", child(s, "modificationTime"))
	d.rowID, e[7] = intCol(key, "add.baseRowId", child(s, "baseRowId"))
	d.rowCV, e[8] = intCol(key, "add.defaultRowCommitVersion", child(s, "defaultRowCommitVersion"))
	d.dataChange, e[9] = boolCol(key, "add.dataChange", child(s, "dataChange"))
	d.dv, e[10] = newDVDec(key, "add", s)
	if err := firstErr(e[:]); err != nil {
		return nil, err
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
	var e [11]error
	d.path, e[0] = stringCol(key, "remove.path", child(s, "path"))
	d.stats, e[1] = stringCol(key, "remove.stats", child(s, "stats"))
	d.pv, e[2] = mapCol(key, "remove.partitionValues", child(s, "partitionValues"))
	d.tags, e[3] = mapCol(key, "remove.tags", child(s, "tags"))
	d.delTS, e[4] = intCol(key, "remove.deletionTimestamp", child(s, "deletionTimestamp"))
	d.size, e[5] = intCol(key, "remove.size", child(s, "size"))
	d.rowID, e[6] = intCol(key, "remove.baseRowId", child(s, "baseRowId"))
	d.rowCV, e[7] = intCol(key, "remove.defaultRowCommitVersion", child(s, "defaultRowCommitVersion"))
	d.dataChange, e[8] = boolCol(key, "remove.dataChange", child(s, "dataChange"))
	d.extended, e[9] = boolCol(key, "remove.extendedFileMetadata", child(s, "extendedFileMetadata"))
	d.dv, e[10] = newDVDec(key, "remove", s)
	return d, firstErr(e[:])
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
	var e [9]error
	d.id, e[0] = stringCol(key, "metaData.id", child(s, "id"))
	d.name, e[1] = stringCol(key, "metaData.name", child(s, "name"))
	d.desc, e[2] = stringCol(key, "metaData.description", child(s, "description"))
	d.provider, e[3] = stringCol(key, "metaData.format.provider", child(format, "provider"))
	d.options, e[4] = mapCol(key, "metaData.format.options", child(format, "options"))
	d.schemaString, e[5] = stringCol(key, "metaData.schemaString", child(s, "schemaString"))
	d.partCols, e[6] = listCol(key, "metaData.partitionColumns", child(s, "partitionColumns"))
	d.config, e[7] = mapCol(key, "metaData.configuration", child(s, "configuration"))
	d.created, e[8] = intCol(key, "metaData.createdTime", child(s, "createdTime"))
	return d, firstErr(e[:])
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
	var e [4]error
	d.reader, e[0] = intCol(key, "protocol.minReaderVersion", child(s, "minReaderVersion"))
	d.writer, e[1] = intCol(key, "protocol.minWriterVersion", child(s, "minWriterVersion"))
	d.readerFeats, e[2] = listCol(key, "protocol.readerFeatures", child(s, "readerFeatures"))
	d.writerFeats, e[3] = listCol(key, "protocol.writerFeatures", child(s, "writerFeatures"))
	return d, firstErr(e[:])
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
	var e [3]error
	d.appID, e[0] = stringCol(key, "txn.appId", child(s, "appId"))
	d.version, e[1] = intCol(key, "txn.version", child(s, "version"))
	d.lastU, e[2] = intCol(key, "txn.lastUpdated", child(s, "lastUpdated"))
	return d, firstErr(e[:])
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
	var e [3]error
	d.domain, e[0] = stringCol(key, "domainMetadata.domain", child(s, "domain"))
	d.config, e[1] = stringCol(key, "domainMetadata.configuration", child(s, "configuration"))
	d.removed, e[2] = boolCol(key, "domainMetadata.removed", child(s, "removed"))
	return d, firstErr(e[:])
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
	var e [2]error
	d.version, e[0] = intCol(key, "checkpointMetadata.version", child(s, "version"))
	d.tags, e[1] = mapCol(key, "checkpointMetadata.tags", child(s, "tags"))
	return d, firstErr(e[:])
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
	var e [4]error
	d.path, e[0] = stringCol(key, "sidecar.path", child(s, "path"))
	d.size, e[1] = intCol(key, "sidecar.sizeInBytes", child(s, "sizeInBytes"))
	d.mtime, e[2] = intCol(key, "sidecar.modificationTime", child(s, "modificationTime"))
	d.tags, e[3] = mapCol(key, "sidecar.tags", child(s, "tags"))
	return d, firstErr(e[:])
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
