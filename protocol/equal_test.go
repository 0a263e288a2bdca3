package protocol

import "testing"

func TestSameMetadata(t *testing.T) {
	name, empty, created, later := "t", "", int64(1), int64(2)
	base := func() *Metadata {
		return &Metadata{ID: "id", Name: &name, Format: Format{Provider: "parquet"},
			SchemaString:     `{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{"delta.columnMapping.id":9007199254740993}}]}`,
			PartitionColumns: []string{"p"}, Configuration: map[string]string{"k": "v"}, CreatedTime: &created}
	}
	same := []func(m *Metadata){
		func(m *Metadata) { // the schema's keys in another order, other spacing
			m.SchemaString = `{ "fields": [{"metadata":{"delta.columnMapping.id":9007199254740993},"nullable":true,"type":"long","name":"id"}], "type": "struct" }`
		},
		func(m *Metadata) { m.Format.Options = map[string]string{} },
		func(m *Metadata) { m.Description = &empty },
	}
	for i, change := range same {
		m := base()
		change(m)
		if !SameMetadata(base(), m) || !SameMetadata(m, base()) {
			t.Errorf("same %d: %+v differs", i, m)
		}
	}
	differ := []func(m *Metadata){
		func(m *Metadata) { m.ID = "other" },
		func(m *Metadata) { m.Name = nil },
		func(m *Metadata) { // a large number one apart: no float rounding
			m.SchemaString = `{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{"delta.columnMapping.id":9007199254740992}}]}`
		},
		func(m *Metadata) { m.SchemaString = `{"type":"struct","fields":[]}` },
		func(m *Metadata) { m.PartitionColumns = nil },
		func(m *Metadata) { m.Configuration = nil },
		func(m *Metadata) { m.Configuration["k"] = "w" },
		func(m *Metadata) { m.CreatedTime = &later },
		func(m *Metadata) { m.CreatedTime = nil },
	}
	for i, change := range differ {
		m := base()
		change(m)
		if SameMetadata(base(), m) || SameMetadata(m, base()) {
			t.Errorf("differ %d: %+v the same", i, m)
		}
	}
}

func TestSameProtocol(t *testing.T) {
	for _, c := range []struct {
		a, b Protocol
		same bool
	}{
		{Protocol{MinReaderVersion: 3, MinWriterVersion: 7, ReaderFeatures: []string{"deletionVectors", "columnMapping"}, WriterFeatures: []string{"deletionVectors", "appendOnly"}},
			Protocol{MinReaderVersion: 3, MinWriterVersion: 7, ReaderFeatures: []string{"columnMapping", "deletionVectors"}, WriterFeatures: []string{"appendOnly", "deletionVectors"}}, true},
		{Protocol{MinReaderVersion: 1, MinWriterVersion: 2}, Protocol{MinReaderVersion: 1, MinWriterVersion: 2, WriterFeatures: []string{}}, true},
		{Protocol{MinReaderVersion: 1, MinWriterVersion: 2}, Protocol{MinReaderVersion: 1, MinWriterVersion: 3}, false},
		{Protocol{MinReaderVersion: 1, MinWriterVersion: 7, WriterFeatures: []string{"appendOnly"}},
			Protocol{MinReaderVersion: 1, MinWriterVersion: 7, WriterFeatures: []string{"appendOnly", "invariants"}}, false},
	} {
		if SameProtocol(&c.a, &c.b) != c.same || SameProtocol(&c.b, &c.a) != c.same {
			t.Errorf("%v and %v: same = %v", c.a, c.b, !c.same)
		}
	}
}
