// Package expr is the SQL predicate layer: it parses the Spark SQL
// expression subset that Delta operations take as text (replaceWhere,
// DELETE and MERGE conditions, update values), binds it against one or
// more named Delta schemas with Spark's coercion rules, evaluates it on
// Arrow record batches with SQL three-valued logic, decides from partition
// values and file statistics whether a file can hold a matching row, and
// renders a bound expression back to canonical SQL text.
//
// Every failure is an *errs.Error: InvalidArgument for a predicate that does
// not parse, bind or evaluate. No panic reaches a caller. The package never
// does I/O and keeps no global mutable state; evaluation allocates through
// the allocator carried by the context (compute.WithAllocator).
package expr
