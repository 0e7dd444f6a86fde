//go:build linux

package main

import "testing"

// TestSpark runs the command on the Spark standalone cluster of
// scripts/spark-cluster.sh (a Master, two Workers of one core each, Beam's
// Spark job server), as TestFlink does on Flink: the dev corpus in 4
// shards and as one file, byte-identical to the direct runner's outputs,
// both executors' Go workers signing at least a quarter of the documents.
// NEARDUP_SPARK_DIR names a running cluster's directory (endpoints.env).
func TestSpark(t *testing.T) { testEngine(t, "spark") }
