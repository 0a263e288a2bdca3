package checkpoint

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
)

// Action columns of a checkpoint, in the order rows are decoded. commitInfo
// and cdc must not appear in a checkpoint and are never read.
var actionColumns = []string{"protocol", "metaData", "txn", "domainMetadata", "checkpointMetadata", "sidecar", "add", "remove"}

// Columns of add that are only read when the JSON forms are missing.
const (
	statsParsedCol = "stats_parsed"
	pvParsedCol    = "partitionValues_parsed"
)

// batchDecoder turns the rows of one record batch into actions. It is built
// once per batch; a row whose action columns are all null yields nothing.
type batchDecoder struct {
	key string
	n   int

	add    *addDec
	remove *removeDec
	meta   *metaDec
	proto  *protoDec
	txn    *txnDec
	dm     *domainDec
	cpm    *cpmDec
	side   *sidecarDec
}

func topStruct(key string, rec arrow.RecordBatch, name string) (*array.Struct, error) {
	idx := rec.Schema().FieldIndices(name)
	if len(idx) == 0 {
		return nil, nil
	}
	return asStruct(key, name, rec.Column(idx[0]))
}

func newBatchDecoder(key string, rec arrow.RecordBatch) (*batchDecoder, error) {
	d := &batchDecoder{key: key, n: int(rec.NumRows())}
	var err error
	get := func(name string) *array.Struct {
		if err != nil {
			return nil
		}
		var s *array.Struct
		s, err = topStruct(key, rec, name)
		return s
	}
	if s := get("add"); s != nil && err == nil {
		d.add, err = newAddDec(key, s)
	}
	if s := get("remove"); s != nil && err == nil {
		d.remove, err = newRemoveDec(key, s)
	}
	if s := get("metaData"); s != nil && err == nil {
		d.meta, err = newMetaDec(key, s)
	}
	if s := get("protocol"); s != nil && err == nil {
		d.proto, err = newProtoDec(key, s)
	}
	if s := get("txn"); s != nil && err == nil {
		d.txn, err = newTxnDec(key, s)
	}
	if s := get("domainMetadata"); s != nil && err == nil {
		d.dm, err = newDomainDec(key, s)
	}
	if s := get("checkpointMetadata"); s != nil && err == nil {
		d.cpm, err = newCpmDec(key, s)
	}
	if s := get("sidecar"); s != nil && err == nil {
		d.side, err = newSidecarDec(key, s)
	}
	if err != nil {
		return nil, err
	}
	return d, nil
}

// needsParsed reports whether some add of the batch lacks its JSON stats or
// its partition values, so that the typed *_parsed columns must be read.
func (d *batchDecoder) needsParsed(stats, partitions bool) bool {
	if d.add == nil {
		return false
	}
	for i := 0; i < d.n; i++ {
		if !valid(d.add.s, i) {
			continue
		}
		if stats && d.add.statsArr.IsNull(i) {
			return true
		}
		if partitions && d.add.pvEmpty(i) {
			return true
		}
	}
	return false
}

// setParsed attaches the batch of typed columns (add.stats_parsed,
// add.partitionValues_parsed) read for the same rows.
func (d *batchDecoder) setParsed(rec arrow.RecordBatch) error {
	if d.add == nil || rec == nil {
		return nil
	}
	s, err := topStruct(d.key, rec, "add")
	if err != nil || s == nil {
		return err
	}
	if sp := child(s, statsParsedCol); sp != nil {
		if d.add.statsParsed, err = newStatsRenderer(d.key, "add."+statsParsedCol, sp); err != nil {
			return err
		}
	}
	if pp := child(s, pvParsedCol); pp != nil {
		if d.add.pvParsed, err = newPartitionRenderer(d.key, "add."+pvParsedCol, pp); err != nil {
			return err
		}
	}
	return nil
}

// decode appends the actions of every row to out.
func (d *batchDecoder) decode(out []protocol.Action) ([]protocol.Action, error) {
	for i := 0; i < d.n; i++ {
		var err error
		if d.proto != nil && valid(d.proto.s, i) {
			var a protocol.Action
			a.Protocol, err = d.proto.row(i)
			out = append(out, a)
		}
		if d.meta != nil && valid(d.meta.s, i) && err == nil {
			out = append(out, protocol.Action{Metadata: d.meta.row(i)})
		}
		if d.txn != nil && valid(d.txn.s, i) && err == nil {
			var a protocol.Action
			a.Txn, err = d.txn.row(i)
			out = append(out, a)
		}
		if d.dm != nil && valid(d.dm.s, i) && err == nil {
			var a protocol.Action
			a.DomainMetadata, err = d.dm.row(i)
			out = append(out, a)
		}
		if d.cpm != nil && valid(d.cpm.s, i) && err == nil {
			out = append(out, protocol.Action{CheckpointMetadata: d.cpm.row(i)})
		}
		if d.side != nil && valid(d.side.s, i) && err == nil {
			var a protocol.Action
			a.Sidecar, err = d.side.row(i)
			out = append(out, a)
		}
		if d.add != nil && valid(d.add.s, i) && err == nil {
			var a protocol.Action
			a.Add, err = d.add.row(i)
			out = append(out, a)
		}
		if d.remove != nil && valid(d.remove.s, i) && err == nil {
			var a protocol.Action
			a.Remove, err = d.remove.row(i)
			out = append(out, a)
		}
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

func optInt(f intFn, i int) *int64 {
	if v, ok := f(i); ok {
		return &v
	}
	return nil
}

func optStr(f strFn, i int) *string {
	if v, ok := f(i); ok {
		return &v
	}
	return nil
}

func rowErr(key string, i int, format string, args ...any) error {
	e := errs.New(errs.CorruptTable, key, format, args...)
	e.Msg += " (batch row " + itoa(i) + ")"
	return e
}
