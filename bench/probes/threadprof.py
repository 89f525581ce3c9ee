#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""threadprof.py PID SECONDS [INTERVAL_MS]: per-thread-name CPU (user/sys cores) and a histogram of
the system call each thread is in (from /proc/PID/task/*/syscall, which needs the right to trace
the process: root or the same user), sampled every INTERVAL_MS (5). Names of x86-64 system calls;
others print as sysN. Threads that end during the run are left out. Names ending in -<number>
(the library's hf-batch-0, hf-batch-1, ...) are counted together as -N."""
import os, re, sys, time, collections
pid, secs = int(sys.argv[1]), float(sys.argv[2])
iv = float(sys.argv[3]) / 1000 if len(sys.argv) > 3 else 0.005
hz = os.sysconf('SC_CLK_TCK')
NAMES = {0:'read',1:'write',7:'poll',16:'ioctl',17:'pread64',18:'pwrite64',24:'sched_yield',202:'futex',
         230:'clock_nanosleep',35:'nanosleep',426:'io_uring_enter',232:'epoll_wait',9:'mmap',11:'munmap',
         10:'mprotect',27:'mincore',228:'clock_gettime',39:'getpid',186:'gettid',281:'epoll_pwait'}
def group(comm):
    return re.sub(r'-[0-9]+$', '-N', comm)
def stat(tid):
    try:
        s = open(f'/proc/{pid}/task/{tid}/stat').read()
    except OSError:
        return None
    comm = group(s[s.index('(')+1:s.rindex(')')])
    f = s[s.rindex(')')+2:].split()
    return comm, int(f[11]), int(f[12])
def snap():
    d = {}
    try:
        tasks = os.listdir(f'/proc/{pid}/task')
    except OSError:
        return d  # the process has ended
    for t in tasks:
        r = stat(t)
        if r: d[t] = r
    return d
a = snap(); t0 = time.time()
hist = collections.defaultdict(collections.Counter)
n = 0
if not a:
    sys.exit(f'threadprof: no process {pid}')
while time.time() - t0 < secs:
    try:
        tasks = os.listdir(f'/proc/{pid}/task')
    except OSError:
        print(f'the process ended after {time.time() - t0:.2f} s')
        break
    for t in tasks:
        try:
            sc = open(f'/proc/{pid}/task/{t}/syscall').read().split()[0]
            comm = group(open(f'/proc/{pid}/task/{t}/comm').read().strip())
        except OSError:
            continue
        if sc not in ('running', '-1'):
            sc = NAMES.get(int(sc), 'sys' + sc)
        hist[comm][sc] += 1
    n += 1
    time.sleep(iv)
b = snap(); el = time.time() - t0
groups = collections.defaultdict(lambda: [0, 0.0, 0.0])
for t, (comm, u, s) in b.items():
    if t in a:
        g = groups[comm]; g[0] += 1; g[1] += (u - a[t][1]) / hz / el; g[2] += (s - a[t][2]) / hz / el
print(f'{n} samples over {el:.2f} s')
print(f'{"thread name":20s} {"thr":>4s} {"user cores":>10s} {"sys cores":>10s}  syscall shares')
for comm, (k, u, s) in sorted(groups.items(), key=lambda x: -(x[1][1] + x[1][2])):
    h = hist[comm]; tot = sum(h.values()) or 1
    top = ', '.join(f'{c} {100*v/tot:.0f}%' for c, v in h.most_common(6))
    print(f'{comm:20s} {k:4d} {u:10.2f} {s:10.2f}  {top}')
tu = sum(g[1] for g in groups.values()); ts = sum(g[2] for g in groups.values())
print(f'{"total":20s} {"":4s} {tu:10.2f} {ts:10.2f}')
