package deltalite

import (
	"encoding/json"
	"sort"
)

// Summary describes a table version at a glance.
type Summary struct {
	Version          int64             `json:"version"`
	Protocol         string            `json:"protocol"`
	MinReaderVersion int               `json:"minReaderVersion"`
	MinWriterVersion int               `json:"minWriterVersion"`
	ReaderFeatures   []string          `json:"readerFeatures"`
	WriterFeatures   []string          `json:"writerFeatures"`
	Schema           json.RawMessage   `json:"schema"`
	PartitionColumns []string          `json:"partitionColumns"`
	Properties       map[string]string `json:"properties"`
	NumFiles         int               `json:"numFiles"`
	SizeBytes        int64             `json:"sizeBytes"`
	// NumRows counts rows from file statistics, minus rows deleted by
	// deletion vectors; nil when some file has no statistics.
	NumRows *int64 `json:"numRows"`
}

// Summary computes the Summary of the version the table shows. It reads
// only the log.
func (t *Table) Summary() Summary {
	s := t.Snapshot()
	p := s.Protocol()
	files := s.Files()
	sum := Summary{
		Version:          s.Version(),
		Protocol:         p.String(),
		MinReaderVersion: p.MinReaderVersion,
		MinWriterVersion: p.MinWriterVersion,
		ReaderFeatures:   sorted(p.EffectiveReaderFeatures()),
		WriterFeatures:   sorted(p.EffectiveWriterFeatures()),
		Schema:           json.RawMessage(s.Schema().JSON()),
		PartitionColumns: s.PartitionColumns(),
		Properties:       s.Properties(),
		NumFiles:         len(files),
	}
	rows, known := int64(0), true
	for _, f := range files {
		sum.SizeBytes += f.Size
		var st struct {
			NumRecords *int64 `json:"numRecords"`
		}
		if f.Stats == "" || json.Unmarshal([]byte(f.Stats), &st) != nil || st.NumRecords == nil {
			known = false
			continue
		}
		rows += *st.NumRecords
		if f.DeletionVector != nil {
			rows -= f.DeletionVector.Cardinality
		}
	}
	if known {
		sum.NumRows = &rows
	}
	if sum.PartitionColumns == nil {
		sum.PartitionColumns = []string{}
	}
	return sum
}

func sorted(s []string) []string {
	out := append([]string{}, s...)
	sort.Strings(out)
	return out
}
