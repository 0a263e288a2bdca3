package iohandler

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/partitions"
	"github.com/deltalite-go/deltalite/protocol"
)

// Per-asset metadata keys the handler reads; every value is a string.
const (
	KeyMode               = "delta/mode"                // write mode, over Config.Mode
	KeySchemaMode         = "delta/schema_mode"         // schema mode, over Config.SchemaMode
	KeyPartitionExpr      = "delta/partition_expr"      // a column, or a JSON object dimension -> column
	KeyClusterBy          = "delta/cluster_by"          // clustering columns of a new table, comma-separated
	KeyRootName           = "delta/root_name"           // the table's leaf under TableURI (default: the asset name)
	KeyTableConfiguration = "delta/table_configuration" // JSON object laid over Config.TableConfig
	KeyWriterProperties   = "delta/writer_properties"   // JSON object replacing Config.WriterProperties
	KeyCommitProperties   = "delta/commit_properties"   // JSON object replacing Config.CommitProperties
	KeyMergePredicate     = "delta/merge_predicate"     // replaces the merge spec's predicate
	KeyColumns            = "delta/columns"             // JSON list of columns to read
	KeyVersion            = "delta/version"             // the table version to read
	KeyRead               = "delta/read"                // what a load reads: ReadTable or ReadChanges
)

// Values of KeyRead.
const (
	// ReadTable loads the table's rows (the default).
	ReadTable = "table"
	// ReadChanges loads the change rows since the consumer's last read
	// (InputContext.LastVersion): the table's columns and _change_type,
	// _commit_version, _commit_timestamp.
	ReadChanges = "changes"
)

// metadataKeys are the delta/ keys an asset's metadata may hold; any other
// key under delta/ is refused as a likely typo (keys outside delta/ belong
// to others and are left alone).
var metadataKeys = []string{KeyMode, KeySchemaMode, KeyPartitionExpr, KeyClusterBy, KeyRootName, KeyTableConfiguration,
	KeyWriterProperties, KeyCommitProperties, KeyMergePredicate, KeyColumns, KeyVersion, KeyRead}

// settings are the handler's settings resolved for one asset.
type settings struct {
	asset       string
	tableURI    string
	mode        string
	schemaMode  string
	expr        *partitions.Expr // nil without delta/partition_expr
	clusterBy   []string         // nil without delta/cluster_by
	tableConfig map[string]string
	writer      WriterProperties
	commit      CommitProperties
	mergePred   string
	columns     []string // nil: every column
	version     *int64
	read        string // ReadTable or ReadChanges
}

// resolve lays the asset's metadata over the handler's settings, checking
// every key it reads. Errors name the asset and the key.
func (h *Handler) resolve(asset string, md map[string]string) (*settings, error) {
	bad := func(key string, format string, args ...any) error {
		return errs.New(errs.InvalidArgument, "", "asset %q: metadata %s: %s", asset, key, fmt.Sprintf(format, args...))
	}
	for _, k := range sortedKeys(md) {
		if strings.HasPrefix(k, "delta/") && !slices.Contains(metadataKeys, k) {
			hint := ""
			if best := closest(k, metadataKeys); best != "" {
				hint = fmt.Sprintf("did you mean %q? ", best)
			}
			return nil, bad(k, "unknown key; %s(known: %s)", hint, strings.Join(metadataKeys, ", "))
		}
	}
	uri, err := h.ResolveTableURI(asset, md)
	if err != nil {
		return nil, err
	}
	s := &settings{asset: asset, tableURI: uri, mode: h.cfg.Mode, schemaMode: h.cfg.SchemaMode,
		tableConfig: maps.Clone(h.cfg.TableConfig), read: ReadTable}
	if h.cfg.WriterProperties != nil {
		s.writer = *h.cfg.WriterProperties
	}
	if h.cfg.CommitProperties != nil {
		s.commit = *h.cfg.CommitProperties
	}
	if v, ok := md[KeyMode]; ok {
		if err := checkMode(v, "value"); err != nil {
			return nil, bad(KeyMode, "%v", err)
		}
		s.mode = v
	}
	if v, ok := md[KeySchemaMode]; ok {
		if err := checkSchemaMode(v, "value"); err != nil {
			return nil, bad(KeySchemaMode, "%v", err)
		}
		s.schemaMode = v
	}
	if v, ok := md[KeyPartitionExpr]; ok {
		e, err := partitions.ParseExpr(v)
		if err != nil {
			return nil, bad(KeyPartitionExpr, "%v", err)
		}
		if !e.IsZero() {
			s.expr = &e
		}
	}
	if v, ok := md[KeyClusterBy]; ok {
		for _, c := range strings.Split(v, ",") {
			if c = strings.TrimSpace(c); c == "" {
				return nil, bad(KeyClusterBy, "an empty column name in %q (give columns as c1,c2)", v)
			}
			s.clusterBy = append(s.clusterBy, c)
		}
		if s.expr != nil {
			return nil, bad(KeyClusterBy, "a clustered table cannot be partitioned too; drop %s or %s", KeyPartitionExpr, KeyClusterBy)
		}
	}
	if v, ok := md[KeyTableConfiguration]; ok {
		var over map[string]string
		if err := decodeJSON([]byte(v), &over, "value"); err != nil {
			return nil, bad(KeyTableConfiguration, "%v (want a JSON object of strings, such as {\"delta.enableChangeDataFeed\": \"true\"})", err)
		}
		if s.tableConfig == nil {
			s.tableConfig = map[string]string{}
		}
		maps.Copy(s.tableConfig, over)
	}
	if v, ok := md[KeyWriterProperties]; ok {
		var w WriterProperties
		if err := decodeStrict([]byte(v), &w, "value"); err != nil {
			return nil, bad(KeyWriterProperties, "%v", err)
		}
		if err := w.check("value"); err != nil {
			return nil, bad(KeyWriterProperties, "%v", err)
		}
		s.writer = w
	}
	if v, ok := md[KeyCommitProperties]; ok {
		var c CommitProperties
		if err := decodeStrict([]byte(v), &c, "value"); err != nil {
			return nil, bad(KeyCommitProperties, "%v", err)
		}
		if err := c.check("value"); err != nil {
			return nil, bad(KeyCommitProperties, "%v", err)
		}
		s.commit = c
	}
	if v, ok := md[KeyMergePredicate]; ok {
		if strings.TrimSpace(v) == "" {
			return nil, bad(KeyMergePredicate, "empty; give the ON condition, such as \"s.id = t.id\"")
		}
		s.mergePred = v
	}
	if v, ok := md[KeyColumns]; ok {
		var cols []string
		if err := decodeJSON([]byte(v), &cols, "value"); err != nil {
			return nil, bad(KeyColumns, "%v (want a JSON list of column names, such as [\"id\", \"name\"])", err)
		}
		if cols == nil {
			cols = []string{}
		}
		for i, c := range cols {
			if c == "" {
				return nil, bad(KeyColumns, "item %d is an empty name", i)
			}
		}
		s.columns = cols
	}
	if v, ok := md[KeyVersion]; ok {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || n < 0 {
			return nil, bad(KeyVersion, "%q is not a table version (want a whole number ≥ 0)", v)
		}
		s.version = &n
	}
	if v, ok := md[KeyRead]; ok {
		if v != ReadTable && v != ReadChanges {
			return nil, bad(KeyRead, "%q: want %q (the table's rows) or %q (the changes since the last read)", v, ReadTable, ReadChanges)
		}
		s.read = v
	}
	if len(s.writer.StatisticsColumns) > 0 {
		// Statistics follow the table property, so the columns are table
		// configuration: set at creation, or by a metadata commit.
		if s.tableConfig == nil {
			s.tableConfig = map[string]string{}
		}
		s.tableConfig[protocol.PropDataSkippingStatsColumns] = strings.Join(s.writer.StatisticsColumns, ",")
	}
	return s, nil
}

// ResolveTableURI is AssetTableURI with the reason a leaf is refused.
func (h *Handler) ResolveTableURI(asset string, md map[string]string) (string, error) {
	leaf, key := asset, "the asset name"
	if v, ok := md[KeyRootName]; ok {
		leaf, key = v, "metadata "+KeyRootName
	}
	if err := checkLeaf(leaf); err != nil {
		return "", errs.New(errs.InvalidArgument, "", "asset %q: %s %q %v", asset, key, leaf, err)
	}
	return strings.TrimRight(h.cfg.TableURI, "/") + "/" + leaf, nil
}

// AssetTableURI is the table of an asset: {TableURI}/{leaf}, the leaf
// being delta/root_name or the asset name. It is "" when the leaf is
// refused (empty, "." or "..", or holding "..", a path separator, or a
// character a URL would read as more than a name: ? # %);
// ResolveTableURI says why.
func (h *Handler) AssetTableURI(asset string, md map[string]string) string {
	uri, err := h.ResolveTableURI(asset, md)
	if err != nil {
		return ""
	}
	return uri
}

// checkLeaf refuses a leaf that would escape TableURI or change the URL's
// meaning.
func checkLeaf(leaf string) error {
	switch {
	case strings.TrimSpace(leaf) == "":
		return fmt.Errorf("is empty; a table needs a directory name")
	case strings.Contains(leaf, ".."):
		return fmt.Errorf("holds \"..\"; a table's directory must be a plain name under table_uri")
	case leaf == ".":
		return fmt.Errorf("is \".\"; a table's directory must be a plain name under table_uri")
	case strings.ContainsAny(leaf, "/\\"):
		return fmt.Errorf("holds a path separator; a table's directory must be a plain name under table_uri")
	case strings.ContainsAny(leaf, "?#%"):
		return fmt.Errorf("holds one of ? # %%, which a URL reads as more than a name; rename it")
	case strings.ContainsFunc(leaf, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return fmt.Errorf("holds a control character")
	}
	return nil
}

// partitionExpr is the asset's partition expression, required with a
// partitions definition.
func (s *settings) partitionExpr(def partitions.Definition) (partitions.Expr, error) {
	if s.expr == nil {
		return partitions.Expr{}, errs.New(errs.InvalidArgument, "", "asset %q is partitioned (%s) but its metadata has no %s; set it to the partition column, or a JSON object mapping each dimension to its column",
			s.asset, def.Kind(), KeyPartitionExpr)
	}
	return *s.expr, nil
}

// jsonString renders v as compact JSON text.
func jsonString(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
