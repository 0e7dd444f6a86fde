#!/usr/bin/env bash
# Start or stop a Flink cluster on this machine, with Beam's Flink job
# server in front of it, to run neardup on Flink as on a real cluster:
#
#   scripts/flink-cluster.sh start [DIR]   # prints the endpoint lines below
#   scripts/flink-cluster.sh stop [DIR]
#   scripts/flink-cluster.sh status [DIR]
#   scripts/flink-cluster.sh start-taskmanager N [DIR]  # after a crash
#
# Processes, each a JVM of its own, logging into DIR (default
# $ENGINES_CACHE/run/flink) and stopped by the PIDs recorded there:
#   jobmanager     Flink's StandaloneSessionClusterEntrypoint (REST/web UI)
#   taskmanager-1  Flink's TaskManagerRunner, 1 slot
#   taskmanager-2  Flink's TaskManagerRunner, 1 slot
#   jobserver      Beam's FlinkJobServerDriver, --flink-master=the REST port,
#                  through scripts/engines/FlinkJobServer.java: it stages no
#                  jars with a job (the TaskManagers hold them already)
# Each is waited for: the REST port, both TaskManagers registered, the job
# port. `start` writes DIR/endpoints.env and prints it:
#   FLINK_REST=localhost:PORT  FLINK_JOB_ENDPOINT=localhost:PORT
#
# Everything comes from Maven Central by name (versions in
# scripts/engines/versions.sh) and is cached in $ENGINES_CACHE. Then submit:
#   neardup run --runner flink --endpoint $FLINK_JOB_ENDPOINT \
#     --environment_type EXTERNAL --environment_config localhost:50000 ...
# (scripts/run-flink.sh does that with a worker pool of its own).
#
# Environment: FLINK_REST_PORT, FLINK_JOB_PORT (default: free ports),
# FLINK_TM_TASK_HEAP and FLINK_TM_MANAGED (per TaskManager, default 1024m
# and 512m), FLINK_RESTARTS (attempts of Flink's fixed-delay restart
# strategy after a failure, 15 s apart, default 3; 0: none, a failed task
# fails the job), NEARDUP_ENGINES_CACHE.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/engines/lib.sh"

cmd=${1:-}
if [ "$cmd" = start-taskmanager ]; then
	tm=${2:?start-taskmanager N [DIR]}
	RUN=${3:-$ENGINES_CACHE/run/flink}
	for ((i = 0; i < 40; i++)); do alive "taskmanager-$tm" || break; sleep 0.25; done # a killed one may linger
	alive "taskmanager-$tm" && die "taskmanager-$tm is running (pid $(cat "$RUN/taskmanager-$tm.pid"))"
	[ -x "$RUN/taskmanager" ] || die "no cluster in $RUN"
	# A new resource id: the JobManager times out the killed one's
	# heartbeat later, and would take the new one for it.
	launch "taskmanager-$tm" "$RUN/taskmanager" "$tm" "tm-$tm-$(date +%s)"
	sleep 2
	alive "taskmanager-$tm" || die "taskmanager-$tm exited while starting (logs: $RUN)"
	echo "taskmanager-$tm started, pid $(cat "$RUN/taskmanager-$tm.pid")"
	exit 0
fi
RUN=${2:-$ENGINES_CACHE/run/flink}
names=(jobserver taskmanager-2 taskmanager-1 jobmanager)

control "$cmd" 2,30 "${names[@]}"

need java go
cp=$(classpath "flink-$FLINK_MINOR-beam-$BEAM_JAVA_VERSION" \
	"org.apache.beam:beam-runners-flink-$FLINK_MINOR:$BEAM_JAVA_VERSION" \
	"org.apache.logging.log4j:log4j-slf4j-impl:$LOG4J_VERSION" \
	"org.apache.logging.log4j:log4j-core:$LOG4J_VERSION")
# scripts/engines/FlinkJobServer.java, the job server that stages no jars
# with a job, compiled once against that class path into the cache. Every
# JVM of the cluster has it on its class path: a job's options name its
# NoFiles class, and the TaskManagers read them.
src=$here/engines/FlinkJobServer.java
classes=$ENGINES_CACHE/flink-$FLINK_MINOR-beam-$BEAM_JAVA_VERSION/jobserver-$({ cat "$src"; echo "$cp"; } | sha256sum | cut -c1-16)
if [ ! -s "$classes/neardup/engines/FlinkJobServer.class" ]; then
	need javac
	rm -rf "$classes.$$"
	mkdir -p "$classes.$$"
	javac -nowarn -d "$classes.$$" -cp "$cp" "$src" || die "could not compile $src"
	mv -T "$classes.$$" "$classes" 2>/dev/null || rm -rf "$classes.$$" # another start made it
fi
cp=$cp:$classes

# The Go boot (cmd/neardup-boot: Beam's, keeping each build of the
# worker binary once per cluster) and the PROCESS environment's command:
# each TaskManager starts one Go worker through it.
boot=$(go_boot) || die "could not build cmd/neardup-boot"

rest_port=${FLINK_REST_PORT:-$(free_port)}
job_port=${FLINK_JOB_PORT:-$(free_port)}
rpc_port=$(free_port)
rm -rf "$RUN"
mkdir -p "$RUN/conf" "$RUN/tmp"
cat >"$RUN/conf/flink-conf.yaml" <<EOF
jobmanager.rpc.address: localhost
jobmanager.rpc.port: $rpc_port
jobmanager.bind-host: localhost
taskmanager.bind-host: localhost
taskmanager.host: localhost
rest.address: localhost
rest.bind-address: localhost
rest.port: $rest_port
jobmanager.memory.process.size: 1g
taskmanager.numberOfTaskSlots: 1
parallelism.default: 2
io.tmp.dirs: $RUN/tmp
# Restarts wait longer than a Go worker stays cached (neardup's
# environment_cache_millis, 10 s), so that a restarted task gets a new
# worker rather than the one that died.
restart-strategy.type: fixed-delay
restart-strategy.fixed-delay.attempts: ${FLINK_RESTARTS:-3}
restart-strategy.fixed-delay.delay: 15 s
# A job that lost a TaskManager waits this long for a slot before its
# attempt fails (Flink's default, 5 minutes, is long on one machine).
slot.request.timeout: 20000
heartbeat.timeout: 20000
web.submit.enable: false
# Beam is on the TaskManagers' class path (the job server's, which stages
# none of it with a job: FlinkJobServer.java): loading it from there lets a
# TaskManager keep its Go worker from one stage of a job to the next (Beam
# releases a stage's environment at once when its function comes from the
# job's own class loader).
classloader.resolve-order: parent-first
EOF
[ "${FLINK_RESTARTS:-3}" = 0 ] && sed -i 's/^restart-strategy.type: fixed-delay$/restart-strategy.type: none/' "$RUN/conf/flink-conf.yaml"
go_worker "$RUN" "$boot"
cat >"$RUN/conf/log4j.properties" <<'EOF'
rootLogger.level = INFO
rootLogger.appenderRef.file.ref = MainAppender
appender.main.name = MainAppender
appender.main.type = File
appender.main.fileName = ${sys:log.file}
appender.main.layout.type = PatternLayout
appender.main.layout.pattern = %d{yyyy-MM-dd HH:mm:ss,SSS} %-5level %-60c %x - %m%n
logger.netty.name = org.apache.flink.shaded.netty4
logger.netty.level = WARN
EOF

jvm() { # NAME HEAP MAIN ARGS...
	local name=$1 heap=$2 main=$3
	shift 3
	# shellcheck disable=SC2086 # $heap is several flags
	launch "$name" java "${JAVA17_OPENS[@]}" $heap -Dlog.file="$RUN/$name.log" \
		-Dlog4j.configurationFile="file:$RUN/conf/log4j.properties" -cp "$cp" "$main" "$@"
}
# What Flink's taskmanager.sh computes with BashJavaUtils, set directly:
# Direct memory (framework + task off-heap + network) carries the gRPC
# buffers of the Fn API, the staged worker binary among them (200 MB);
# the task heap holds the Beam operators' buffers (Flink's batch GroupByKey
# keeps a key's values in a list), managed memory the sorts of the shuffles.
task_heap=${FLINK_TM_TASK_HEAP:-1024m}
managed=${FLINK_TM_MANAGED:-512m}
tm_memory=(-D taskmanager.cpu.cores=1 -D taskmanager.memory.framework.heap.size=128m
	-D "taskmanager.memory.task.heap.size=$task_heap" -D taskmanager.memory.framework.off-heap.size=128m
	-D taskmanager.memory.task.off-heap.size=512m -D taskmanager.memory.network.min=384m
	-D taskmanager.memory.network.max=384m -D "taskmanager.memory.managed.size=$managed"
	-D taskmanager.memory.jvm-metaspace.size=256m -D taskmanager.memory.jvm-overhead.min=192m
	-D taskmanager.memory.jvm-overhead.max=192m)
heap_mb=$((128 + $(numfmt --from=iec "${task_heap^^}") / 1048576))
tm_jvm="-Xmx${heap_mb}m -Xms${heap_mb}m -XX:MaxDirectMemorySize=1024m -XX:MaxMetaspaceSize=256m -XX:TieredStopAtLevel=1"
# The JobManager and the job server only schedule, translate and submit,
# and with the large shuffles spilled the TaskManagers mostly pass file
# names: C1's code is enough, and they reach it sooner (a job's start,
# most of all the first one's, waits on them), with less compiling on the
# cores the Go workers share (the compilers' threads were 31 of 71 JVM
# CPU seconds of a SCALE job: docs/BENCHMARKS.md).
jvm jobmanager "-Xmx768m -XX:MaxMetaspaceSize=256m -XX:TieredStopAtLevel=1" org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint --configDir "$RUN/conf"
wait_for jobmanager 90 curl -sf "http://localhost:$rest_port/overview" -o /dev/null
# RUN/taskmanager N [ID] runs TaskManager N, resource id ID (default tm-N),
# for start and start-taskmanager.
{
	echo '#!/usr/bin/env bash'
	echo 'mkdir -p "'"$RUN"'/tmp/tm-$1"'
	printf 'exec java'
	printf ' %q' "${JAVA17_OPENS[@]}" $tm_jvm
	echo -n ' -Dlog.file="'"$RUN"'/taskmanager-$1.log"'
	printf ' %q' -Dlog4j.configurationFile="file:$RUN/conf/log4j.properties" -cp "$cp" \
		org.apache.flink.runtime.taskexecutor.TaskManagerRunner --configDir "$RUN/conf" "${tm_memory[@]}"
	echo ' -D "taskmanager.resource-id=${2:-tm-$1}" -D "io.tmp.dirs='"$RUN"'/tmp/tm-$1"'
} >"$RUN/taskmanager"
chmod +x "$RUN/taskmanager"
for i in 1 2; do launch "taskmanager-$i" "$RUN/taskmanager" "$i"; done
registered() { [ "$(curl -sf "http://localhost:$rest_port/overview" | python3 -c 'import json,sys; print(json.load(sys.stdin)["taskmanagers"])')" = 2 ]; }
wait_for taskmanager-1 120 registered
alive taskmanager-2 || die "taskmanager-2 exited while starting (logs: $RUN)"
jvm jobserver "-Xmx1g -XX:TieredStopAtLevel=1" neardup.engines.FlinkJobServer \
	--flink-master="localhost:$rest_port" --flink-conf-dir="$RUN/conf" --job-host=localhost \
	--job-port="$job_port" --artifact-port=0 --expansion-port=0 --artifacts-dir="$RUN/artifacts"
wait_for jobserver 120 listening "$job_port"
printf 'FLINK_REST=localhost:%s\nFLINK_JOB_ENDPOINT=localhost:%s\nFLINK_GO_WORKER=%s\nFLINK_DIR=%s\n' \
	"$rest_port" "$job_port" "$RUN/go-worker" "$RUN" >"$RUN/endpoints.env"
cat "$RUN/endpoints.env"
