#!/usr/bin/env bash
# Start or stop a Spark standalone cluster on this machine, with Beam's
# Spark job server in front of it, to run neardup on Spark as on a real
# cluster:
#
#   scripts/spark-cluster.sh start [DIR]   # prints the endpoint lines below
#   scripts/spark-cluster.sh stop [DIR]
#   scripts/spark-cluster.sh status [DIR]
#
# Processes, each a JVM of its own, logging into DIR (default
# $ENGINES_CACHE/run/spark) and stopped by the PIDs recorded there:
#   master     Spark's standalone Master (web UI, /json/)
#   worker-1   Spark's standalone Worker, 1 core; its executors are JVMs it
#              starts and stops itself (logs in DIR/work/APP/N/)
#   worker-2   the same
#   jobserver  Beam's SparkJobServerDriver, --spark-master-url=the master;
#              the Spark driver of every job runs in it
# Each is waited for: the master's UI, both workers registered, the job
# port. `start` writes DIR/endpoints.env and prints it:
#   SPARK_REST=localhost:PORT (master UI)  SPARK_JOB_ENDPOINT=localhost:PORT
#   SPARK_GO_WORKER=the PROCESS environment's command  SPARK_DIR=DIR
#
# Everything comes from Maven Central by name (versions in
# scripts/engines/versions.sh) and is cached in $ENGINES_CACHE; Spark's
# jars/ directory, from which a Worker builds its executors' classpath, is
# a directory of links to that classpath (Beam included, so an executor
# loads Beam from its own classpath). Then submit:
#   neardup run --runner spark --endpoint $SPARK_JOB_ENDPOINT \
#     --environment_type PROCESS --environment_config '{"command":"'$SPARK_GO_WORKER'"}' ...
#
# Environment: SPARK_UI_PORT, SPARK_JOB_PORT (default: free ports),
# SPARK_WORKER_MEM (per worker and its executor's heap, default 1g),
# SPARK_PARALLELISM (spark.default.parallelism: the partitions of each
# shuffle; default Spark's, the executors' cores, 2),
# NEARDUP_ENGINES_CACHE.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/engines/lib.sh"

cmd=${1:-}
RUN=${2:-$ENGINES_CACHE/run/spark}
names=(jobserver worker-2 worker-1 master)

control "$cmd" 2,34 "${names[@]}"

need java go python3 curl
name=spark-$SPARK_VERSION-beam-$BEAM_JAVA_VERSION
cp=$(classpath "$name" \
	"org.apache.beam:beam-runners-spark-3:$BEAM_JAVA_VERSION" \
	"org.apache.spark:spark-core_$SPARK_SCALA:$SPARK_VERSION" \
	"org.apache.spark:spark-streaming_$SPARK_SCALA:$SPARK_VERSION" \
	"org.apache.spark:spark-sql_$SPARK_SCALA:$SPARK_VERSION" \
	"org.slf4j:slf4j-api:$SPARK_SLF4J_VERSION" \
	"org.apache.logging.log4j:log4j-slf4j2-impl:$SPARK_LOG4J_VERSION" \
	"org.apache.logging.log4j:log4j-core:$SPARK_LOG4J_VERSION")

# A Spark home for the Workers: they start each executor with
# java -cp SPARK_HOME/conf:SPARK_HOME/jars/*; jars/ links the classpath's jars.
home=$ENGINES_CACHE/$name/home-$(sha256sum <<<"$cp" | cut -c1-16)
if [ ! -d "$home/jars" ]; then
	rm -rf "$home.tmp"
	mkdir -p "$home.tmp/jars"
	tr ':' '\n' <<<"$cp" | while read -r jar; do
		[ -n "$jar" ] && ln -s "$jar" "$home.tmp/jars/"
	done
	mv "$home.tmp" "$home"
fi

# The Go boot (cmd/neardup-boot: Beam's, keeping each build of the
# worker binary once per cluster) and the PROCESS environment's command:
# each executor starts one Go worker through it.
boot=$(go_boot) || die "could not build cmd/neardup-boot"

ui_port=${SPARK_UI_PORT:-$(free_port)}
job_port=${SPARK_JOB_PORT:-$(free_port)}
master_port=$(free_port)
mem=${SPARK_WORKER_MEM:-1g}
parallelism=${SPARK_PARALLELISM:+-Dspark.default.parallelism=$SPARK_PARALLELISM}
rm -rf "$RUN"
mkdir -p "$RUN/conf" "$RUN/tmp" "$RUN/work"
go_worker "$RUN" "$boot"
cat >"$RUN/conf/log4j2.properties" <<'EOF'
rootLogger.level = info
rootLogger.appenderRef.stdout.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{yy/MM/dd HH:mm:ss} %p %c{1}: %m%n%ex
logger.jetty.name = org.sparkproject.jetty
logger.jetty.level = warn
logger.netty.name = org.apache.beam.vendor.grpc.v1p60p1.io.netty
logger.netty.level = warn
EOF
# Loopback only: every process binds and advertises localhost.
export SPARK_HOME=$home SPARK_CONF_DIR=$RUN/conf SPARK_SCALA_VERSION=$SPARK_SCALA
export SPARK_LOCAL_IP=127.0.0.1 SPARK_LOCAL_HOSTNAME=localhost SPARK_LOCAL_DIRS=$RUN/tmp
export SPARK_WORKER_DIR=$RUN/work

jvm() { # NAME HEAP MAIN ARGS...
	local name=$1 heap=$2 main=$3
	shift 3
	# shellcheck disable=SC2086 # $heap is several flags
	launch "$name" java "${JAVA17_OPENS[@]}" $heap -Dlog4j2.configurationFile="file:$RUN/conf/log4j2.properties" \
		-Djava.io.tmpdir="$RUN/tmp" -cp "$RUN/conf:$cp" "$main" "$@"
}
# Every JVM here compiles with C1 alone (-XX:TieredStopAtLevel=1): with
# the large shuffles spilled the JVMs schedule, translate and pass file
# names, and the compilers' threads (C1 and C2) took 80 of their 137 CPU
# seconds of a SCALE job (by thread: docs/BENCHMARKS.md). Executors,
# which each job starts anew, get it by spark.executor.extraJavaOptions.
jvm master "-Xmx512m -XX:TieredStopAtLevel=1" org.apache.spark.deploy.master.Master \
	--host localhost --port "$master_port" --webui-port "$ui_port"
master=spark://localhost:$master_port
wait_for master 90 curl -sf "http://localhost:$ui_port/json/" -o /dev/null
for i in 1 2; do
	jvm "worker-$i" "-Xmx256m -XX:TieredStopAtLevel=1" org.apache.spark.deploy.worker.Worker \
		--host localhost --port "$(free_port)" --webui-port "$(free_port)" \
		--cores 1 --memory "$mem" --work-dir "$RUN/work" "$master"
done
registered() {
	[ "$(curl -sf "http://localhost:$ui_port/json/" | python3 -c 'import json,sys; print(json.load(sys.stdin)["aliveworkers"])')" = 2 ]
}
wait_for worker-1 120 registered
alive worker-2 || die "worker-2 exited while starting (logs: $RUN)"
# The job server is every job's Spark driver; spark.* system properties
# are its jobs' Spark configuration.
# - spark.locality.wait=0: all executors share this host, and with Spark's
#   3 s wait for the executor that holds a task's shuffle input, the
#   executor that read the input files ran every later task shorter than
#   that.
# Beam's Spark runner also ships the job server's classpath (263 jars,
# ~250 MB) to each executor of each job, though Beam is on the executors'
# own classpath here: about 9 s of each executor's start (DIR/work/APP/N/).
jvm jobserver "-Xmx1g -XX:TieredStopAtLevel=1 -Dspark.executor.extraJavaOptions=-XX:TieredStopAtLevel=1 -Dspark.driver.host=localhost -Dspark.driver.bindAddress=127.0.0.1 \
-Dspark.ui.enabled=false -Dspark.executor.memory=$mem -Dspark.local.dir=$RUN/tmp -Dspark.locality.wait=0s \
$parallelism" \
	org.apache.beam.runners.spark.SparkJobServerDriver \
	--spark-master-url="$master" --job-host=localhost \
	--job-port="$job_port" --artifact-port=0 --expansion-port=0 --artifacts-dir="$RUN/artifacts"
wait_for jobserver 120 listening "$job_port"
printf 'SPARK_REST=localhost:%s\nSPARK_JOB_ENDPOINT=localhost:%s\nSPARK_GO_WORKER=%s\nSPARK_DIR=%s\n' \
	"$ui_port" "$job_port" "$RUN/go-worker" "$RUN" >"$RUN/endpoints.env"
cat "$RUN/endpoints.env"
