// Package sparkdelta reads and writes Delta tables with Spark, through a
// Spark Connect session (github.com/apache/spark-connect-go): the path for
// jobs bigger than one machine. The data never passes through this process:
// Spark reads and writes the table's files itself, at the same URIs as
// deltalite, so both engines work on the same tables.
//
// The server needs Delta Lake: start it with the Delta jars and
//
//	spark.sql.extensions=io.delta.sql.DeltaSparkSessionExtension
//	spark.sql.catalog.spark_catalog=org.apache.spark.sql.delta.catalog.DeltaCatalog
//
// (docs/engines.md shows how). Spark Connect's Go writer has no options, so
// writes and merges go through Spark SQL over a temporary view of the
// DataFrame: CREATE TABLE ... AS SELECT, INSERT ... BY NAME, INSERT ...
// REPLACE WHERE, CREATE OR REPLACE TABLE and MERGE INTO delta.`uri`.
package sparkdelta
