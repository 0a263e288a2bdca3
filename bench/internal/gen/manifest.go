// Package gen builds the benchmark tables: a table with a long log and
// periodic checkpoints (log only, no data files) and a wide table of real
// Parquet files. Each table gets a manifest with the counts every engine must
// report, so the harness checks results as well as timing them.
//
// It is benchmark tooling: it writes only under the directory it is given and
// is never imported by the engine.
package gen

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
)

// ManifestName is the file, next to _delta_log, that describes a generated table.
const ManifestName = "bench-manifest.json"

// Manifest records how a table was generated and what readers must see.
type Manifest struct {
	Kind    string         `json:"kind"` // "longlog" or "wide"
	Options map[string]any `json:"options"`
	// Latest is the newest version and LatestFiles its live file count.
	Latest      int64 `json:"latest"`
	LatestFiles int   `json:"latestFiles"`
	// Mid is a version in the middle of the log (time-travel target).
	Mid      int64 `json:"mid"`
	MidFiles int   `json:"midFiles"`
	// Adds and Removes count the file actions across all commits.
	Adds        int     `json:"adds"`
	Removes     int     `json:"removes"`
	Checkpoints []int64 `json:"checkpoints,omitempty"`
	// Rows is the table's row count (wide table only).
	Rows  int64 `json:"rows,omitempty"`
	Bytes int64 `json:"bytes,omitempty"`
	// Columns names the table's columns (wide table only).
	Columns []string `json:"columns,omitempty"`
}

// ReadManifest loads the manifest of a generated table.
func ReadManifest(table string) (*Manifest, error) {
	b, err := os.ReadFile(filepath.Join(table, ManifestName))
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(table, ManifestName), err)
	}
	return &m, nil
}

func writeManifest(table string, m *Manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(table, ManifestName), append(b, '\n'), 0o644)
}

// uuidLike renders 16 random bytes as a UUID-shaped string, as engines put
// in data file names.
func uuidLike(r *rand.Rand) string {
	a, b := r.Uint64(), r.Uint64()
	return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", a>>32, (a>>16)&0xffff, a&0xffff, b>>48, b&0xffffffffffff)
}

// deltaField is one field of a Delta schema string.
type deltaField struct {
	Name     string         `json:"name"`
	Type     string         `json:"type"`
	Nullable bool           `json:"nullable"`
	Metadata map[string]any `json:"metadata"`
}

func schemaString(fields []deltaField) string {
	b, err := json.Marshal(struct {
		Type   string       `json:"type"`
		Fields []deltaField `json:"fields"`
	}{"struct", fields})
	if err != nil {
		panic(err) // plain structs of strings always marshal
	}
	return string(b)
}
