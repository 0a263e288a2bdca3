// Package storetest is the conformance suite every storage.Store must pass:
// reads, ranged reads, listings with a start key, create-if-absent under
// races between goroutines and between OS processes, large multipart
// uploads, cancelled uploads, batch deletes, and (for remote stores) bounded,
// credential-free failures.
//
// It is imported by tests only. It must never weaken an assertion to let a
// store pass: a store that cannot meet the contract is a store to fix.
//
// A test package that runs the process race must route TestMain through
// Main, because the race re-executes the test binary as its writers.
package storetest
