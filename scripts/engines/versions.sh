# Versions of the engines neardup is tested on, in one place. Sourced by
# scripts/flink-cluster.sh and scripts/spark-cluster.sh.
#
# Beam's Java artifacts: the newest release whose Flink and Spark runners
# resolve with all their dependencies from Maven Central here (2.62.0; the
# job-server shaded jars are not served, so the runner jar and its
# dependencies are resolved by Maven into a classpath instead). The Go SDK
# (go.mod) is newer; the portable protocol between them is versioned and
# the tests run the two together.
BEAM_JAVA_VERSION=2.62.0
FLINK_MINOR=1.19          # beam-runners-flink-$FLINK_MINOR
FLINK_VERSION=1.19.0      # what beam-runners-flink-1.19:2.62.0 depends on
SPARK_VERSION=3.5.0       # Spark is a provided dependency of beam-runners-spark-3
SPARK_SCALA=2.12          # spark-core_$SPARK_SCALA
SPARK_SLF4J_VERSION=2.0.7 # Spark 3.5.0's logging (Beam's slf4j 1.7 would not bind log4j2)
SPARK_LOG4J_VERSION=2.20.0 # Spark 3.5.0's log4j 2
LOG4J_VERSION=2.17.1      # Flink 1.19's logging, for the JVMs' logs
# Where downloads and classpaths are cached between runs, and where a
# running cluster keeps its logs, PIDs and endpoints.
ENGINES_CACHE=${NEARDUP_ENGINES_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/neardup-engines}
