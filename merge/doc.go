// Package merge is MERGE INTO: Spark SQL's merge of a source into a Delta
// table, with ordered WHEN MATCHED, WHEN NOT MATCHED and WHEN NOT MATCHED
// BY SOURCE clauses, in one commit.
//
// Options describe a merge: the ON predicate, the source and target
// aliases, a merge type preset (upsert, deduplicate_insert, update_only,
// replace_delete_unmatched) or custom clauses, schema evolution and the
// budget knobs of upsert. ParseSpec reads the same from the CLI's JSON
// spec (the IO handler's merge_config): its "operations" form runs the
// clause kinds in the rivers handler's fixed order (matched update,
// update_all, delete; not matched insert, insert_all; not matched by
// source delete, update), its "clauses" form in the order given.
// Options.Plan expands a preset into its clauses.
//
// Semantics are Spark's: within a kind the first clause whose condition
// holds takes the row, rows no clause takes are kept (target) or dropped
// (source), conditions use three-valued logic (a NULL condition is not
// true) and NULL never equals NULL in the ON predicate. A target row that
// more than one source row matches is an error, as in Spark with Delta 4
// (checked against it: whatever the clause conditions say), unless the
// merge only inserts or its only MATCHED clause is an unconditional DELETE.
//
// Resolution (resolve) binds every clause against the target schema (under
// the target alias) and the source schema (under the source alias): UPDATE
// SET * and INSERT * map columns by name, case-insensitively; a source
// column the table lacks is an error unless schema evolution adds it, and a
// table column the source lacks is an error unless schema evolution lets
// UPDATE keep it and INSERT write null (Spark's rules). Values are cast to
// the column types; a cast Spark's store assignment refuses (a string into
// a number) is an error unless type mismatches are allowed. The ON
// predicate splits into equi-join keys, target-only and source-only
// conjuncts, and what is checked on each candidate pair.
//
// The join core (joiner) is pure over Arrow batches: it hashes the source
// on the equi-join keys in a compact key set (internal/keyset), then takes
// the target a batch at a time: candidate source rows per target row, the
// pair check, the multiple-match rule, the MATCHED clauses on matched rows
// and the NOT MATCHED BY SOURCE clauses on the others, giving the rows to
// keep and the rows that replace updated ones. After the whole target
// scope, the NOT MATCHED clauses run over the source rows nothing matched.
// A predicate without an equi-join conjunct runs as a nested loop over the
// (bounded) source, its pairs checked in chunks.
//
// Run ties it together on a table: the source read once (MaxSourceBytes
// guards it and its hash table), the target files chosen by partition
// values and statistics against the source's key values and the ON
// predicate's target-only conjuncts (plus those a NOT MATCHED BY SOURCE
// clause may act on), a first pass over only the columns that decide which
// rows change, then internal/rewrite streams just the files with a changed
// row through the join core, under the budgets of limits, and writes the
// inserted rows after them. One MERGE commit carries Spark's
// operationParameters and operationMetrics, the schema change of schema
// evolution, and the files and filter read for the conflict checker; a
// conflict plans again on the newer table.
//
// # Memory
//
// What grows with the source is held once: the source batch, its key set
// and row chains, one bit per source row. What grows with the target never
// is: the first pass holds a few projected batches per file being read,
// the rewrite streams as internal/rewrite does. A nested loop checks at
// most pairChunk candidate pairs at a time.
package merge
