# Shared steps of scripts/flink-cluster.sh and scripts/spark-cluster.sh:
# resolving a classpath through Maven, starting a JVM that logs into the
# cluster's directory and records its PID, waiting for a port, stopping
# by PID. Sourced, not run.

# shellcheck source=versions.sh
. "$(dirname "${BASH_SOURCE[0]}")/versions.sh"

die() { echo "$(basename "$0"): $*" >&2; exit 1; }

need() {
	for c in "$@"; do
		command -v "$c" >/dev/null || die "needs $c on PATH (Java 17 and Maven: see docs/CLUSTER.md)"
	done
}

# classpath NAME DEP... prints the classpath of the Maven artifacts DEP
# (group:artifact:version), resolved once into $ENGINES_CACHE/NAME and
# cached there (Maven's own cache holds the jars).
classpath() {
	local name=$1 dir=$ENGINES_CACHE/$1
	shift
	local key
	key=$(printf '%s\n' "$@" | sha256sum | cut -c1-16)
	if [ ! -s "$dir/cp-$key.txt" ]; then
		need mvn
		mkdir -p "$dir"
		{
			echo '<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>'
			echo "<groupId>neardup.engines</groupId><artifactId>$name</artifactId><version>1</version><dependencies>"
			local d g a v
			for d in "$@"; do
				IFS=: read -r g a v <<<"$d"
				echo "<dependency><groupId>$g</groupId><artifactId>$a</artifactId><version>$v</version></dependency>"
			done
			echo '</dependencies></project>'
		} >"$dir/pom.xml"
		echo "resolving $name's classpath with Maven (once; cached in $dir)" >&2
		mvn -q -B -f "$dir/pom.xml" dependency:build-classpath -Dmdep.outputFile="$dir/cp-$key.tmp" >"$dir/mvn.log" 2>&1 ||
			{ tail -n 20 "$dir/mvn.log" >&2; die "Maven could not resolve $name's classpath (log: $dir/mvn.log)"; }
		mv "$dir/cp-$key.tmp" "$dir/cp-$key.txt"
	fi
	cat "$dir/cp-$key.txt"
}

# The --add-opens Flink and Spark need on Java 17 (Flink 1.19's
# env.java.opts.all, which Spark's launcher also passes).
JAVA17_OPENS=(
	--add-exports=java.base/sun.net.util=ALL-UNNAMED
	--add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED
	--add-exports=java.security.jgss/sun.security.krb5=ALL-UNNAMED
	--add-opens=java.base/java.lang=ALL-UNNAMED
	--add-opens=java.base/java.lang.invoke=ALL-UNNAMED
	--add-opens=java.base/java.lang.reflect=ALL-UNNAMED
	--add-opens=java.base/java.io=ALL-UNNAMED
	--add-opens=java.base/java.net=ALL-UNNAMED
	--add-opens=java.base/java.nio=ALL-UNNAMED
	--add-opens=java.base/sun.nio.ch=ALL-UNNAMED
	--add-opens=java.base/sun.nio.cs=ALL-UNNAMED
	--add-opens=java.base/sun.security.action=ALL-UNNAMED
	--add-opens=java.base/sun.util.calendar=ALL-UNNAMED
	--add-opens=java.base/java.text=ALL-UNNAMED
	--add-opens=java.base/java.time=ALL-UNNAMED
	--add-opens=java.base/java.util=ALL-UNNAMED
	--add-opens=java.base/java.util.concurrent=ALL-UNNAMED
	--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED
	--add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED
)

# launch NAME CMD... starts CMD in the background in its own process
# group, stdout and stderr into $RUN/NAME.out, its PID into $RUN/NAME.pid.
launch() {
	local name=$1
	shift
	setsid "$@" >"$RUN/$name.out" 2>&1 </dev/null &
	echo $! >"$RUN/$name.pid"
}

alive() { [ -s "$RUN/$1.pid" ] && kill -0 "$(cat "$RUN/$1.pid")" 2>/dev/null; }

listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# wait_for NAME SECONDS TEST... polls TEST until it succeeds, failing with
# NAME's last log lines if NAME dies or SECONDS pass.
wait_for() {
	local name=$1 secs=$2 i
	shift 2
	for ((i = 0; i < secs * 4; i++)); do
		"$@" && return 0
		alive "$name" || { tail -n 30 "$RUN/$name".* >&2; die "$name exited while starting (logs: $RUN)"; }
		sleep 0.25
	done
	tail -n 30 "$RUN/$name".* >&2
	die "$name not ready after ${secs}s (logs: $RUN)"
}

# stop_all NAME... stops each process by its PID file: SIGTERM to its
# process group, SIGKILL after 20 s.
stop_all() {
	local name pid i
	for name in "$@"; do
		[ -s "$RUN/$name.pid" ] || continue
		pid=$(cat "$RUN/$name.pid")
		kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
	done
	for name in "$@"; do
		[ -s "$RUN/$name.pid" ] || continue
		pid=$(cat "$RUN/$name.pid")
		for ((i = 0; i < 80; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
		kill -0 "$pid" 2>/dev/null && { kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true; }
		rm -f "$RUN/$name.pid"
	done
}

# control CMD LINES NAME... does a cluster script's stop and status over
# its processes NAME... and exits; for start it checks that none of them
# runs; for anything else it prints the script's header (lines LINES).
control() {
	local cmd=$1 lines=$2 n
	shift 2
	case $cmd in
	stop)
		stop_all "$@"
		rm -f "$RUN/endpoints.env"
		exit 0
		;;
	status)
		for n in "$@"; do
			if alive "$n"; then echo "$n running, pid $(cat "$RUN/$n.pid")"; else echo "$n stopped"; fi
		done
		[ -f "$RUN/endpoints.env" ] && cat "$RUN/endpoints.env"
		exit 0
		;;
	start)
		for n in "$@"; do
			alive "$n" && die "$n is already running in $RUN (pid $(cat "$RUN/$n.pid")); stop it first"
		done
		;;
	*)
		sed -n "${lines}p" "$0"
		exit 2
		;;
	esac
	return 0
}

# free_port prints a TCP port nobody listens on now.
free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# go_boot prints the path of cmd/neardup-boot (Beam's Go boot with a
# cache of worker binaries by SHA-256), built once per version of its
# source and of go.sum into $ENGINES_CACHE/bin.
go_boot() {
	local root key out
	root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
	key=$(cat "$root"/cmd/neardup-boot/*.go "$root"/cmd/internal/workerkey/*.go "$root/go.sum" | sha256sum | cut -c1-16)
	out=$ENGINES_CACHE/bin/boot-$key
	if [ ! -x "$out" ]; then
		(cd "$root" && go build -o "$out.$$" ./cmd/neardup-boot) && mv -f "$out.$$" "$out" || return 1
	fi
	echo "$out"
}

# go_worker RUN BOOT writes RUN/go-worker, the command of a PROCESS
# environment: BOOT (go_boot) in a directory of its own under RUN/workers
# (the staged worker binary and pipeline_options.json land there, not in
# a /tmp or a working directory that two workers share). Boot and the
# worker it starts are a process group of their own. A keeper
# (RUN/go-worker-keeper), started before anything else and outliving the
# command, stops that group when the command or the runner that started
# it is gone, and removes the directory once the group has exited. The
# command tells the keeper the directory's name before making it, and
# boot's process tells its own PID before it execs boot, so a command
# killed at any point leaves nothing behind: Beam's runners stop a worker
# with SIGTERM and, half a second later or at once when the stopping
# thread is interrupted, SIGKILL, which may come as the worker starts.
# Boot keeps worker binaries in RUN/worker-cache, one per build.
go_worker() {
	mkdir -p "$1/workers"
	cat >"$1/go-worker-keeper" <<'EOF'
#!/usr/bin/env bash
# go-worker-keeper COMMAND-PID RUNNER-PID, its input a pipe from the
# command: "dir PATH" and "pid PID" lines, then EOF once the command has
# started boot or is gone (scripts/engines/lib.sh, go_worker).
self=$1 runner=$2 dir= pid=
while read -r k v; do
	case $k in
	dir) dir=$v ;;
	pid) pid=$v ;;
	esac
done
alive() { [ -n "$pid" ] && { kill -0 -- "-$pid" || kill -0 "$pid"; } 2>/dev/null; }
while alive; do
	if ! kill -0 "$self" 2>/dev/null || ! kill -0 "$runner" 2>/dev/null; then
		kill -TERM -- "-$pid" 2>/dev/null
		for _ in $(seq 20); do alive || break; sleep 0.25; done
		kill -KILL -- "-$pid" 2>/dev/null
	fi
	sleep 0.5
done
[ -z "$dir" ] || rm -rf "$dir"
EOF
	cat >"$1/go-worker" <<EOF
#!/usr/bin/env bash
stop=
trap 'stop=1' TERM INT HUP
exec 3> >(exec setsid "$1/go-worker-keeper" \$\$ \$PPID >/dev/null 2>&1)
dir="$1/workers/w.\$\$-\$RANDOM\$RANDOM"
echo "dir \$dir" >&3
mkdir "\$dir" || { echo dir >&3; exit 1; }
cd "\$dir" || exit 1
setsid bash -c 'echo "pid \$\$" >&3 && exec "\$0" "\$@" 3>&-' "$2" "\$@" --semi_persist_dir="\$dir" --worker_cache="$1/worker-cache" &
pid=\$!
exec 3>&-
trap 'kill -TERM -- -\$pid 2>/dev/null || kill -TERM \$pid 2>/dev/null' TERM INT HUP
[ -z "\$stop" ] || kill -TERM -- -\$pid 2>/dev/null || kill -TERM \$pid 2>/dev/null
wait \$pid
status=\$?
wait \$pid 2>/dev/null
exit \$status
EOF
	chmod +x "$1/go-worker" "$1/go-worker-keeper"
}
