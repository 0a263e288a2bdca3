package merge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/deltalite-go/deltalite/internal/editdist"
	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/expr"
	"github.com/deltalite-go/deltalite/internal/jsonkeys"
)

// operationKinds are the keys of a spec's "operations" object in the order
// their clauses run, rivers' fixed order: matched update, update_all,
// delete; not matched insert, insert_all; not matched by source delete,
// update (so a target row both by-source conditions take is deleted).
var operationKinds = []struct {
	key    string
	when   When
	action Action
}{
	{"when_matched_update", Matched, Update},
	{"when_matched_update_all", Matched, UpdateAll},
	{"when_matched_delete", Matched, Delete},
	{"when_not_matched_insert", NotMatched, Insert},
	{"when_not_matched_insert_all", NotMatched, InsertAll},
	{"when_not_matched_by_source_delete", NotMatchedBySource, Delete},
	{"when_not_matched_by_source_update", NotMatchedBySource, Update},
}

var specKeys = []string{"merge_type", "predicate", "source_alias", "target_alias", "schema_mode",
	"error_on_type_mismatch", "operations", "clauses"}

// ParseSpec reads the CLI's JSON merge spec:
//
//	{"merge_type": "upsert|deduplicate_insert|update_only|replace_delete_unmatched|custom",
//	 "predicate": "t.id = s.id", "source_alias": "s", "target_alias": "t",
//	 "schema_mode": "merge", "error_on_type_mismatch": true,
//	 "operations": {"when_matched_update": [{"predicate": "...", "updates": {"col": "expr"}}], ...}}
//
// or, for full control of the order across actions, "clauses": [{"when":
// "matched", "action": "update", "predicate": ..., "updates": ...,
// "except_cols": [...]}, ...] instead of "operations". The operations run
// in the fixed order of their kinds (see operationKinds), each list in its
// order. A spec with clauses and no merge_type is custom. A key given
// twice in an object is refused. Errors name the JSON path of what is wrong (or the line and column of malformed JSON);
// the returned Options pass Options.Plan.
func ParseSpec(data []byte) (Options, error) {
	if err := jsonkeys.Unique(data); err != nil {
		return Options{}, errs.Wrap(errs.InvalidArgument, "", err, "merge spec")
	}
	var top map[string]json.RawMessage
	if err := decode(data, data, &top, ""); err != nil {
		return Options{}, err
	}
	if top == nil {
		return Options{}, specErr("", "the spec is null; give an object such as {\"merge_type\": \"upsert\", \"predicate\": \"t.id = s.id\"}")
	}
	if err := knownKeys(top, specKeys, ""); err != nil {
		return Options{}, err
	}
	var o Options
	var mismatch *bool
	for _, f := range []struct {
		key string
		dst any
	}{
		{"merge_type", &o.MergeType}, {"predicate", &o.Predicate}, {"source_alias", &o.SourceAlias},
		{"target_alias", &o.TargetAlias}, {"schema_mode", &o.SchemaMode}, {"error_on_type_mismatch", &mismatch},
	} {
		if raw, ok := top[f.key]; ok {
			if err := decode(data, raw, f.dst, f.key); err != nil {
				return Options{}, err
			}
		}
	}
	if mismatch != nil {
		o.AllowTypeMismatch = !*mismatch
	}
	if strings.TrimSpace(o.Predicate) == "" {
		return Options{}, specErr("predicate", "a merge needs an ON predicate, such as \"t.id = s.id\"")
	}
	if _, err := parseExpr(o.Predicate, "predicate"); err != nil {
		return Options{}, err
	}
	if m := strings.ToLower(strings.TrimSpace(o.SchemaMode)); m != "" && m != SchemaModeMerge {
		return Options{}, specErr("schema_mode", "unknown schema mode %q (want %q or leave it out)", o.SchemaMode, SchemaModeMerge)
	}
	ops, hasOps := top["operations"]
	cls, hasCls := top["clauses"]
	typ := strings.ToLower(strings.TrimSpace(o.MergeType))
	switch {
	case hasOps && hasCls:
		return Options{}, specErr("", "give either \"operations\" or \"clauses\", not both")
	case typ == "" && !hasOps && !hasCls:
		return Options{}, specErr("merge_type", "missing: give one of %s", strings.Join(quoted(mergeTypes), ", "))
	case typ == "":
		typ = TypeCustom
	case !contains(mergeTypes, typ):
		return Options{}, specErr("merge_type", "unknown merge type %q (want %s)", o.MergeType, strings.Join(quoted(mergeTypes), ", "))
	case typ != TypeCustom && (hasOps || hasCls):
		key := "operations"
		if hasCls {
			key = "clauses"
		}
		return Options{}, specErr(key, "merge type %q is a preset and takes no clauses; use %q", typ, TypeCustom)
	case typ == TypeCustom && !hasOps && !hasCls:
		return Options{}, specErr("", "merge type %q needs \"operations\" or \"clauses\"", TypeCustom)
	}
	o.MergeType = typ
	var err error
	if hasOps {
		o.Clauses, err = parseOperations(data, ops)
	} else if hasCls {
		o.Clauses, err = parseClauses(data, cls)
	}
	if err != nil {
		return Options{}, err
	}
	if typ == TypeCustom && len(o.Clauses) == 0 {
		key := "operations"
		if hasCls {
			key = "clauses"
		}
		return Options{}, specErr(key, "no clauses: a custom merge needs at least one")
	}
	if _, err := o.Plan(); err != nil {
		return Options{}, err
	}
	return o, nil
}

// clauseJSON is one clause object of either form.
type clauseJSON struct {
	Predicate *string           `json:"predicate"`
	Updates   map[string]string `json:"updates"`
	Except    []string          `json:"except_cols"`
}

// clauseKeys are the keys a clause object of an action may have, besides
// when and action in the ordered form.
func clauseKeys(a Action) []string {
	switch a {
	case Update, Insert:
		return []string{"predicate", "updates"}
	case UpdateAll, InsertAll:
		return []string{"predicate", "except_cols"}
	}
	return []string{"predicate"}
}

func parseOperations(data, raw json.RawMessage) ([]Clause, error) {
	var ops map[string]json.RawMessage
	if err := decode(data, raw, &ops, "operations"); err != nil {
		return nil, err
	}
	keys := make([]string, len(operationKinds))
	for i, k := range operationKinds {
		keys[i] = k.key
	}
	if err := knownKeys(ops, keys, "operations"); err != nil {
		return nil, err
	}
	var out []Clause
	for _, k := range operationKinds {
		list, ok := ops[k.key]
		if !ok {
			continue
		}
		path := "operations." + k.key
		var items []json.RawMessage
		if err := decode(data, list, &items, path); err != nil {
			return nil, err
		}
		for i, item := range items {
			c, err := parseClause(data, item, fmt.Sprintf("%s[%d]", path, i), k.when, k.action)
			if err != nil {
				return nil, err
			}
			out = append(out, c)
		}
	}
	return out, nil
}

func parseClauses(data, raw json.RawMessage) ([]Clause, error) {
	var items []json.RawMessage
	if err := decode(data, raw, &items, "clauses"); err != nil {
		return nil, err
	}
	out := make([]Clause, 0, len(items))
	for i, item := range items {
		path := fmt.Sprintf("clauses[%d]", i)
		var head struct {
			When   *string `json:"when"`
			Action *string `json:"action"`
		}
		if err := decode(data, item, &head, path); err != nil {
			return nil, err
		}
		if head.When == nil {
			return nil, specErr(path+".when", "missing: give one of %s", strings.Join(quoted(whenNames[1:]), ", "))
		}
		if head.Action == nil {
			return nil, specErr(path+".action", "missing: give one of %s", strings.Join(quoted(actionNames[1:]), ", "))
		}
		wi := index(whenNames[:], strings.ToLower(strings.TrimSpace(*head.When)))
		if wi <= 0 {
			return nil, specErr(path+".when", "unknown clause kind %q (want %s)", *head.When, strings.Join(quoted(whenNames[1:]), ", "))
		}
		ai := index(actionNames[:], strings.ToLower(strings.TrimSpace(*head.Action)))
		if ai <= 0 {
			return nil, specErr(path+".action", "unknown action %q (want %s)", *head.Action, strings.Join(quoted(actionNames[1:]), ", "))
		}
		w, a := When(wi), Action(ai)
		if !w.allowed(a) {
			return nil, specErr(path+".action", "action %q is not allowed for %q clauses (allowed: %s)", a, w, strings.Join(quoted(w.actionsOf()), ", "))
		}
		c, err := parseClause(data, item, path, w, a)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// parseClause reads one clause object at path, of a known kind and action.
func parseClause(data, raw json.RawMessage, path string, w When, a Action) (Clause, error) {
	var fields map[string]json.RawMessage
	if err := decode(data, raw, &fields, path); err != nil {
		return Clause{}, err
	}
	allowed := clauseKeys(a)
	if strings.HasPrefix(path, "clauses[") {
		allowed = append([]string{"when", "action"}, allowed...)
	}
	if err := knownKeys(fields, allowed, path); err != nil {
		return Clause{}, err
	}
	var j clauseJSON
	for _, k := range []struct {
		key string
		dst any
	}{{"predicate", &j.Predicate}, {"updates", &j.Updates}, {"except_cols", &j.Except}} {
		if v, ok := fields[k.key]; ok {
			if err := decode(data, v, k.dst, path+"."+k.key); err != nil {
				return Clause{}, err
			}
		}
	}
	c := Clause{When: w, Action: a, Set: j.Updates, Except: j.Except}
	if j.Predicate != nil {
		c.Predicate = strings.TrimSpace(*j.Predicate)
	}
	if c.Predicate != "" {
		if _, err := parseExpr(c.Predicate, path+".predicate"); err != nil {
			return Clause{}, err
		}
	}
	if a == Update || a == Insert {
		if len(c.Set) == 0 {
			return Clause{}, specErr(path+".updates", "missing or empty: give at least one {\"column\": \"expression\"}")
		}
		for _, col := range sortedKeys(c.Set) {
			if _, err := parseExpr(c.Set[col], fmt.Sprintf("%s.updates.%s", path, col)); err != nil {
				return Clause{}, err
			}
		}
	}
	for i, e := range c.Except {
		if strings.TrimSpace(e) == "" {
			return Clause{}, specErr(fmt.Sprintf("%s.except_cols[%d]", path, i), "empty column name")
		}
	}
	if err := c.check(path); err != nil {
		return Clause{}, err
	}
	return c, nil
}

// decode unmarshals raw (a part of data) into dst; errors name the JSON
// path, or the line and column of data where the JSON is malformed.
func decode(data, raw []byte, dst any, path string) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	err := dec.Decode(dst)
	if err == nil {
		if _, terr := dec.Token(); terr != io.EOF {
			return specErr("", "%s: unexpected data after the spec object", position(data, raw, dec.InputOffset()))
		}
		return nil
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return specErr("", "%s: malformed JSON: %v", position(data, raw, syn.Offset), syn)
	case errors.As(err, &typ):
		p := path
		if typ.Field != "" {
			p = joinPath(path, typ.Field)
		}
		return specErr(p, "%s where %s was expected", jsonKind(typ.Value), goKind(typ.Type.String()))
	case errors.Is(err, io.EOF):
		return specErr("", "the spec is empty; give a JSON object such as {\"merge_type\": \"upsert\", \"predicate\": \"t.id = s.id\"}")
	}
	return specErr(path, "%v", err)
}

// position renders offset within raw as a line and column of data.
func position(data, raw []byte, offset int64) string {
	base := 0
	if len(raw) > 0 && len(data) > 0 {
		if i := bytes.Index(data, raw); i >= 0 {
			base = i
		}
	}
	// The offset counts the offending byte.
	at := min(max(base+int(offset)-1, 0), len(data))
	line := 1 + bytes.Count(data[:at], []byte("\n"))
	col := at - bytes.LastIndexByte(data[:at], '\n')
	return fmt.Sprintf("line %d, column %d", line, col)
}

func joinPath(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}

func jsonKind(v string) string {
	switch v {
	case "string", "number", "bool", "array", "object":
		return "a JSON " + v
	}
	return v
}

func goKind(t string) string {
	switch {
	case t == "string" || t == "*string":
		return "a string"
	case t == "bool" || t == "*bool":
		return "true or false"
	case strings.HasPrefix(t, "map["):
		return "an object"
	case strings.HasPrefix(t, "[]"):
		return "an array"
	}
	return "an object"
}

// knownKeys refuses keys of m not in allowed, suggesting the closest.
func knownKeys(m map[string]json.RawMessage, allowed []string, path string) error {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if contains(allowed, k) {
			continue
		}
		best, bestD := "", max(3, len(k)/3)+1
		for _, a := range allowed {
			if d := editdist.Distance(strings.ToLower(k), a); d < bestD {
				best, bestD = a, d
			}
		}
		hint := fmt.Sprintf("known keys: %s", strings.Join(quoted(allowed), ", "))
		if best != "" {
			hint = fmt.Sprintf("did you mean %q? (%s)", best, hint)
		}
		return specErr(joinPath(path, k), "unknown key; %s", hint)
	}
	return nil
}

func specErr(path, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if path != "" {
		msg = path + ": " + msg
	}
	return errs.New(errs.InvalidArgument, "", "merge spec: %s", msg)
}

// parseExpr parses an expression of the merge; where names it in errors.
func parseExpr(src, where string) (expr.Expr, error) {
	e, err := expr.Parse(src)
	if err != nil {
		return nil, errs.Wrap(errs.InvalidArgument, "", err, "%s", where)
	}
	return e, nil
}

func contains(list []string, s string) bool {
	return index(list, s) >= 0
}

func index(list []string, s string) int {
	for i, v := range list {
		if v == s && v != "" {
			return i
		}
	}
	return -1
}
