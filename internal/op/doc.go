// Package op is the spine every operation that changes a table runs on:
// DELETE, UPDATE, MERGE, OPTIMIZE and the upsert (write shares its new
// table and its commit rules).
//
//   - Operate runs an operation's attempts: a check of the table's
//     features before each (ChangesRows, Writes), the replan loop (Replan:
//     plan again on the newer table after a conflict planning again
//     resolves, or after another writer created the table first with the
//     same shape), panics turned into errors.
//   - An attempt plans against the snapshot it is handed: which files a
//     predicate touches (PlanFiles, Decide, Predicate), the knobs of its
//     reads and writes (Knobs; their defaults are limits').
//   - It describes its effect as a Change (files dropped whole; per batch
//     of each touched file, the rows that leave and the new values of the
//     rows it updates; the rows it inserts), and Write decides how that is
//     written: copy-on-write through internal/rewrite, the row stream.
//   - Commit is its one commit: what it read, for the conflict checker,
//     and what it changes.
//   - NewTable and Empty are a new table's protocol and metaData, which an
//     operation commits with its first rows.
package op
