// Package txn commits to a Delta table with optimistic concurrency: a
// transaction records what it read (the whole table, a predicate over files,
// exact files, application transaction ids) and what it writes, commits the
// next version with the store's atomic PutIfAbsent, and on a lost race reads
// the winners' commits, runs the conflict rules of Delta (as Spark and
// delta-rs apply them) and either retries at the next version or fails with
// errs.CommitConflict. After a commit it writes a checkpoint at the table's
// checkpoint interval and cleans up expired log files.
//
// Contracts callers rely on:
//   - commitInfo is the first action of every commit and is generated here;
//     Options.Metadata adds fields to it but may not set the engine's own.
//   - isBlindAppend is derived (no declared reads, no removes) unless
//     SetBlindAppend(false) says otherwise; a false claim of true is refused.
//   - With delta.enableInCommitTimestamps, every attempt recomputes
//     inCommitTimestamp as max(now, previous commit's + 1 ms); a commit that
//     turns the property on gets delta.inCommitTimestampEnablementVersion
//     and ...Timestamp set here, since only the committer knows its version.
//   - A txn action in the commit makes a concurrent commit for the same
//     appId a conflict, so a redelivered idempotent write never lands twice.
//
// It must never write a commit file other than through PutIfAbsent, never
// overwrite or delete a commit newer than the newest checkpoint the cleanup
// keeps, and never read or write table data files: data files are written
// by the caller before Commit, and only their actions pass through here.
package txn
