// Package bench is the benchmark of the engine against delta-rs. The
// comparison is bench/run.sh (see bench/README.md); this package holds only
// the in-process Go benchmarks, for profiling one side:
//
//	go test ./bench -run '^$' -bench . -benchmem -cpuprofile cpu.prof
//
// Nothing imports it.
package bench
