// Package limits holds the budgets that bound how much work and memory the engine
// uses, per call and per process.
//
// A Limits value is the process-wide layer: semaphores for parallel partitions,
// parallel file readers and buffered bytes, plus the source guard, read from the
// environment (the cloud stores read the multipart sizes themselves). Process
// returns the one shared by the whole process. Each operation takes a Budget from it with its own per-call
// knobs; every acquisition goes through the call's local semaphore first and the
// process semaphore second, so many concurrent operations in one process cannot
// multiply the budgets: N upserts with 64 MiB each still share the process's
// 256 MiB.
//
// # Deadlock freedom
//
// Permits are ordered partition < file < bytes, and at each level local <
// process. Every acquisition in this package takes them in that order and only
// ever waits for a permit higher in the order than any it holds. A Reservation
// never waits while holding bytes: growing it takes free bytes at once, ahead of
// requests queued in FIFO order (its work is under way, theirs has not
// started), and otherwise returns what it holds, then waits for the new total
// (holding bytes while waiting for more bytes is the hold-and-wait that can
// wedge a full budget). A request larger than a capacity
// is capped to that capacity, so it waits until it can run alone instead of
// waiting forever.
//
// Callers keep the same discipline: a goroutine that holds a Reservation must
// not wait for another one unless the holder of the first can release it
// without waiting on the budget (a reader may reserve the next batch while a
// writer, which never waits on budgets, still holds the previous one). A
// long-lived reservation sized to the whole budget starves every other
// acquisition of the same budget until it is released.
//
// This package, with metrics, is the only place allowed process-wide mutable
// state. It must never import engine packages or metrics, never log, and never
// let a panic reach a caller.
package limits
