// Package colrules holds the rules of the rows an operation writes as new
// values, read from a table's metadata: CHECK constraints
// (delta.constraints.*), generated columns (delta.generationExpression)
// and identity columns (delta.identity.*). Every write path hands it each
// batch of new rows (a write's rows in every mode, the upsert's source
// rows, MERGE's inserts and updates, UPDATE's new values) before the batch
// is written; rows an operation only copies are never handed to it.
//
// Its Rules number identity columns, compute or check generated columns
// and check constraints as Spark's Delta does (DeltaInvariantChecker,
// GeneratedColumn, IdentityColumn); Metadata gives the table's metaData
// with the identity high watermarks the operation's commit advances.
//
// It never does I/O and never commits.
package colrules
