// Package merge is MERGE INTO: Spark SQL's merge of a source into a Delta
// table, with ordered WHEN MATCHED, WHEN NOT MATCHED and WHEN NOT MATCHED
// BY SOURCE clauses, in one commit.
//
// Options describe a merge: the ON predicate, the source and target
// aliases, a merge type preset (upsert, deduplicate_insert, update_only,
// replace_delete_unmatched) or custom clauses, schema evolution and the
// budget knobs of upsert. ParseSpec reads the same from the CLI's JSON
// spec; Options.Plan expands a preset into its clauses.
//
// Semantics are Spark's: within a kind the first clause whose condition
// holds takes the row, rows no clause takes are kept (target) or dropped
// (source), conditions use three-valued logic (a NULL condition is not
// true) and NULL never equals NULL in the ON predicate. A target row that
// more than one source row matches is an error when a MATCHED clause would
// act on it.
package merge
