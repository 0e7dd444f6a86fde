#!/usr/bin/env python3
"""CPU and memory of a group of processes while a command runs.

    procstat.py [--pids-from DIR] [--disk NAME=DIR]... -- COMMAND ARGS...

Runs COMMAND and samples /proc every 0.25 s: the roots are COMMAND and the
processes whose PIDs are in DIR/*.pid (a cluster of scripts/*-cluster.sh);
every descendant of a root counts. Prints, as JSON on standard error:
wall seconds, CPU seconds (user + system) the processes used while the
command ran, and the peak of their summed resident memory, in all and by
kind (the command, the JVMs, the Go workers), and the peak of one process
of each kind. With --disk it also samples, every 2 s, the bytes of the
files under each DIR (allocated blocks, as du counts them) and prints
each one's peak under NAME. A process that exits between two samples
loses its last quarter second of CPU. It also prints the CPU seconds of the JVMs' threads by name (digits
taken out), the 15 largest: of a JVM that ends before COMMAND, the last
sample's. Exits with COMMAND's exit code.
"""
import glob
import json
import os
import subprocess
import sys
import time

TICK = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")


def stat(pid):
    """(ppid, cpu seconds, rss bytes, comm) of pid, or None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            s = f.read()
    except OSError:
        return None
    comm = s[s.index("(") + 1:s.rindex(")")]
    fields = s[s.rindex(")") + 2:].split()
    ppid = int(fields[1])
    cpu = (int(fields[11]) + int(fields[12])) / TICK
    rss = int(fields[21]) * PAGE
    return ppid, cpu, rss, comm


def thread_cpu(pid):
    """CPU seconds of each thread of pid by its name with the digits taken
    out (JIT compilers, collectors, a runner's task threads), or {}."""
    out = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                s = f.read()
        except OSError:
            continue
        name = "".join(c for c in s[s.index("(") + 1:s.rindex(")")] if not c.isdigit()).strip(" #-_")
        fields = s[s.rindex(")") + 2:].split()
        out[name] = out.get(name, 0) + (int(fields[11]) + int(fields[12])) / TICK
    return out


def disk_bytes(root):
    """Bytes allocated to the files under root (0 if it is missing)."""
    n = 0
    for d, _, files in os.walk(root):
        for f in files:
            try:
                n += os.lstat(os.path.join(d, f)).st_blocks * 512
            except OSError:
                pass
    return n


def kind(pid, comm, root_kind):
    if root_kind == "command":
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().split(b"\0")
        except OSError:
            cmd = []
        if any(a == b"--worker=true" for a in cmd):
            return "go workers"
    if comm == "java":
        return "jvms"
    if root_kind == "cluster":
        return "go workers" if comm not in ("bash", "boot", "sleep", "setsid") else "other"
    return root_kind


def main():
    args = sys.argv[1:]
    pid_dirs, disks = [], {}
    while args and args[0] != "--":
        if args[0] == "--pids-from" and len(args) > 1:
            pid_dirs.append(args[1])
            args = args[2:]
        elif args[0] == "--disk" and len(args) > 1 and "=" in args[1]:
            name, d = args[1].split("=", 1)
            disks[name] = d
            args = args[2:]
        else:
            sys.exit("usage: procstat.py [--pids-from DIR] [--disk NAME=DIR]... -- COMMAND ARGS...")
    args = args[1:]
    roots = {}
    for d in pid_dirs:
        for p in glob.glob(os.path.join(d, "*.pid")):
            with open(p) as f:
                roots[int(f.read().strip())] = "cluster"
    start_cpu, start_threads = {}, {}
    for pid in roots:
        st = stat(pid)
        if st:
            start_cpu[pid] = st[1]
            if st[3] == "java":
                start_threads[pid] = thread_cpu(pid)
    t0 = time.time()
    proc = subprocess.Popen(args)
    roots[proc.pid] = "command"
    last_cpu, last_threads = {}, {}
    next_threads = 0.0
    peak = {"all": 0}
    peak_kind, peak_one = {}, {}
    peak_disk = {name: 0 for name in disks}
    next_disk = 0.0
    while True:
        done = proc.poll() is not None
        table = {}
        for d in os.listdir("/proc"):
            if d.isdigit():
                st = stat(int(d))
                if st:
                    table[int(d)] = st
        total, by_kind = 0, {}
        for pid, (ppid, cpu, rss, comm) in table.items():
            p, root = pid, None
            for _ in range(64):
                if p in roots:
                    root = roots[p]
                    break
                if p not in table:
                    break
                p = table[p][0]
            if root is None:
                continue
            k = kind(pid, comm, root)
            prev = last_cpu.get(pid)
            last_cpu[pid] = (cpu, k)
            total += rss
            by_kind[k] = by_kind.get(k, 0) + rss
            peak_one[k] = max(peak_one.get(k, 0), rss)
        if done or time.time() >= next_threads:
            for pid, (cpu, k) in last_cpu.items():
                if k == "jvms" and pid in table:
                    last_threads[pid] = thread_cpu(pid)
            next_threads = time.time() + 2
        peak["all"] = max(peak["all"], total)
        for k, v in by_kind.items():
            peak_kind[k] = max(peak_kind.get(k, 0), v)
        if disks and (done or time.time() >= next_disk):
            for name, d in disks.items():
                peak_disk[name] = max(peak_disk[name], disk_bytes(d))
            next_disk = time.time() + 2
        if done:
            break
        time.sleep(0.25)
    wall = time.time() - t0
    cpu_kind = {}
    for pid, (cpu, k) in last_cpu.items():
        cpu_kind[k] = cpu_kind.get(k, 0) + cpu - start_cpu.get(pid, 0)
    out = {
        "wall_s": round(wall, 1),
        "cpu_s": round(sum(cpu_kind.values()), 1),
        "cpu_s_by_kind": {k: round(v, 1) for k, v in sorted(cpu_kind.items())},
        "peak_rss_mb": round(peak["all"] / 2**20),
        "peak_rss_mb_by_kind": {k: round(v / 2**20) for k, v in sorted(peak_kind.items())},
        "peak_rss_mb_one_by_kind": {k: round(v / 2**20) for k, v in sorted(peak_one.items())},
    }
    threads = {}
    for pid, names in last_threads.items():
        for name, cpu in names.items():
            threads[name] = threads.get(name, 0) + cpu - start_threads.get(pid, {}).get(name, 0)
    top = sorted(threads.items(), key=lambda kv: -kv[1])[:15]
    out["jvm_threads_cpu_s"] = {k: round(v, 1) for k, v in top}
    if disks:
        out["peak_disk_mb"] = {k: round(v / 2**20) for k, v in peak_disk.items()}
    print(json.dumps(out), file=sys.stderr)
    sys.exit(proc.returncode)


if __name__ == "__main__":
    main()
