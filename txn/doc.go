// Package txn commits to a Delta table with optimistic concurrency: a
// transaction records what it read (the whole table, a predicate over files,
// exact files, application transaction ids) and what it writes, commits the
// next version with the store's atomic PutIfAbsent, and on a lost race reads
// the winners' commits, runs the conflict rules of Delta (as Spark and
// delta-rs apply them) and either retries at the next version or fails with
// errs.CommitConflict. After a commit it writes a checkpoint at the table's
// checkpoint interval and cleans up expired log files.
//
// It must never write a commit file other than through PutIfAbsent, never
// overwrite or delete a commit newer than the newest checkpoint the cleanup
// keeps, and never read or write table data files: data files are written
// by the caller before Commit, and only their actions pass through here.
package txn
