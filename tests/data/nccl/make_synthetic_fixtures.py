#!/usr/bin/env python3
"""Writes the synthetic nccl-tests fixtures of tests/data/nccl/ from the real logs beside them.

Each fixture is a real log with the one decoration or damage the issue describes applied by a rule
below; its .src.txt says which. Run from tests/data/nccl/: python3 make_synthetic_fixtures.py
(the alltoall block of the multi-run paste is microsoft/superbenchmark tests/data/nccl_alltoall.log at
f1f5c72fe909e38710c498a25a7a084f247076fe, kept verbatim in multirun_alltoall_superbench.log)."""
import re

H200 = open("nccl_allreduce_h200_2node16gpu_tcp_schmaustech.txt").read().split("\n")
A100_AG = open("nccl_allgather_a100sxm4_40gb_8gpu_superbench.txt").read().split("\n")
BITDEER = open("nccl_allreduce_h100_1node8gpu_bitdeer.txt").read().split("\n")
ALLTOALL = open("multirun_alltoall_superbench.log").read().split("\n")
ROW = re.compile(r"^\s*\d+\s+\d+\s+\w+")


def write(name, lines, eol="\n"):
    with open(name, "w", newline="") as f:
        f.write(eol.join(lines))


# 1. Ray/SkyPilot prefix on every line, mpirun --tag-output tag repeated inside each row where the
#    test flushed (after the root column, and in some rows inside the in-place result), a stderr line.
out = []
for i, line in enumerate(H200):
    rank = re.match(r"#\s+Rank\s+(\d+)", line)
    worker = rank and int(rank.group(1)) >= 8
    prefix = "(worker1, rank=1, pid=2345, ip=10.0.0.2) [1,1]<stdout>:" if worker else "(head, rank=0, pid=3808) [1,0]<stdout>:"
    if ROW.match(line):
        at = line.index("-1") + 2
        line = line[:at] + "[1,0]<stdout>:" + line[at:]
        if i % 3 == 0:  # a second flush inside the in-place result
            cut = line.rindex("      0")
            line = line[:cut] + "[1,0]<stdout>:" + line[cut:]
    out.append(prefix + line if line else line)
    if i == 25:
        out.append("(worker1, rank=1, pid=2345, ip=10.0.0.2) [1,1]<stderr>:NCCL WARN NET/Socket : peer closed early")
write("nccl_allreduce_h200_2node16gpu_ray_midrow_tags_synthetic.txt", out)

# 2. srun -l "0: " prefix after a collector's ISO timestamp, NCCL INFO/WARN lines between rows, CRLF.
out = []
for i, line in enumerate(A100_AG):
    stamp = "2024-05-01T12:00:%02d.123456Z " % (i % 60)
    out.append(stamp + "0: " + line)
    if ROW.match(line) and i % 4 == 0:
        out.append(stamp + "1: node1:167261:167300 [1] NCCL INFO Channel 00/02 : 0 1 2 3 4 5 6 7")
    if ROW.match(line) and i % 9 == 0:
        out.append(stamp + "0: node1:167261:167300 [0] NCCL WARN Cuda failure 'out of memory' (retrying)")
write("nccl_allgather_a100sxm4_40gb_8gpu_srun_timestamps_crlf_synthetic.txt", out, "\r\n")

# 3. An elided rank list (ranks 0, 1, 14, 15 of 16 kept, "..." between) whose rank 1 line lost its
#    '#' (a markdown paste), and the mpirun command line (-np 2) removed.
out = []
for line in H200:
    rank = re.match(r"#\s+Rank\s+(\d+)", line)
    if line.startswith("[root@"):
        continue
    if rank:
        r = int(rank.group(1))
        if 2 <= r <= 13:
            if r == 2:
                out.append("#  ...")
            continue
        if r == 1:
            line = line[1:]
    out.append(line)
write("nccl_allreduce_h200_2node16gpu_elided_ranks_synthetic.txt", out)

# 4. A README pasting three runs: the bitdeer all_reduce (8 ranks), the superbench alltoall (8 ranks,
#    old layout), then a 1-GPU reduce_perf run made here: times chosen, algbw = size / time / 1e3
#    printed %.2f, busbw = algbw (reduce's factor is 1), the 2.x layout.
reduce_rows = []
for size, t in [(8, 4.21), (1024, 4.35), (1048576, 9.87), (16777216, 88.40), (134217728, 651.2)]:
    alg = size / t / 1e3
    tt = ("%7.2f" % t) if t < 1000 else ("%7.1f" % t)
    reduce_rows.append("%12d  %12d  %8s  %6s  %6d  %7s  %6.2f  %6.2f  %6d  %7s  %6.2f  %6.2f  %6d"
                       % (size, size // 4, "float", "sum", 0, tt, alg, alg, 0, tt, alg, alg, 0))
out = ["# NCCL benchmarks", "", "## all_reduce, 8 x H100", ""] + BITDEER + ["", "## alltoall, 8 x A100", "", "```", "$ ./build/alltoall_perf -b 1 -e 8G -f 2 -g 8"] + \
    [l for l in ALLTOALL if l] + ["```", "", "## reduce on one GPU", "", "```",
     "$ ./build/reduce_perf -b 8 -e 128M -f 8 -g 1",
     "# nThread 1 nGpus 1 minBytes 8 maxBytes 134217728 step: 8(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0",
     "#",
     "# Using devices",
     "#  Rank  0 Group  0 Pid 4242 on host device  0 [0x1b] NVIDIA H100 80GB HBM3",
     "#",
     "#                                                              out-of-place                       in-place",
     "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong",
     "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)"] + \
    reduce_rows + ["# Out of bounds values : 0 OK", "# Avg bus bandwidth    : %.4f" % (0,), "#", "```", ""]
# the 1-GPU run's average: the mean of its 10 printed busbw values
vals = [float(r.split()[7]) for r in reduce_rows] + [float(r.split()[11]) for r in reduce_rows]
out[-4] = "# Avg bus bandwidth    : %g" % round(sum(vals) / len(vals), 4)
write("nccl_multirun_readme_paste_synthetic.txt", out)

# 5. Time printed 0.00: the 8 B out-of-place result of the H200 log with its time set to 0.00.
out = [re.sub(r"^(\s+8\s+2\s+float\s+sum\s+-1\s+)59\.24", lambda m: m.group(1) + " 0.00", l) for l in H200]
write("nccl_allreduce_h200_2node16gpu_time_zero_synthetic.txt", out)
