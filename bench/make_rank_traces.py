#!/usr/bin/env python3
"""bench/make_rank_traces.py OUT_DIR [RANKS [STEPS [KERNELS_PER_STEP]]]

Writes RANKS synthetic Kineto (PyTorch profiler) traces, OUT_DIR/rankN.pt.trace.json.gz, for the
`gpuroof ranks` benchmark of docs/performance.md ("Ranks"): each rank runs STEPS ProfilerStep
ranges of KERNELS_PER_STEP compute kernels (each launched by a cudaLaunchKernel call) and one
all-reduce per 16 kernels on a second stream. Planted, and printed on stderr: rank RANKS // 3
runs its kernels 20 % longer (the straggler, compute-bound), and rank RANKS - 1 arrives 100 us
late at the first all-reduce of step 2 (the late collective). Defaults: 64 ranks, 40 steps,
2000 kernels per step (about 29 MB of JSON per rank).
"""
import gzip
import json
import sys


def write_rank(path, rank, ranks, steps, kernels, straggler, late):
    kernel_us = 12.0 * (1.2 if rank == straggler else 1.0)
    step_us = kernels * 15.0 + 2000.0
    with gzip.open(path, "wt", compresslevel=1) as out:
        out.write('{"schemaVersion": 1, "distributedInfo": %s, "traceEvents": [\n'
                  % json.dumps({"backend": "nccl", "rank": rank, "world_size": ranks}))
        first = True
        correlation = 0
        base = 1_700_000_000_000_000.0  # epoch microseconds, as Kineto writes them
        for s in range(steps):
            start = base + s * step_us
            events = [{"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{s + 1}",
                       "pid": 100, "tid": 100, "ts": start, "dur": step_us,
                       "args": {"External id": s + 1}}]
            t = start + 20.0
            collective = 0
            for k in range(kernels):
                correlation += 1
                events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel",
                               "pid": 100, "tid": 100, "ts": t - 8.0, "dur": 4.0,
                               "args": {"correlation": correlation}})
                events.append({"ph": "X", "cat": "kernel", "name": f"gemm_{k % 7}",
                               "pid": 0, "tid": 7, "ts": t, "dur": kernel_us,
                               "args": {"device": 0, "stream": 7,
                                        "correlation": correlation}})
                if k % 16 == 15:
                    correlation += 1
                    arrival = t + (100.0 if rank == late and s == 1 and collective == 0 else 0.0)
                    events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel",
                                   "pid": 100, "tid": 100, "ts": t - 6.0, "dur": 4.0,
                                   "args": {"correlation": correlation}})
                    events.append({"ph": "X", "cat": "kernel",
                                   "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL",
                                   "pid": 0, "tid": 8, "ts": arrival, "dur": 30.0,
                                   "args": {"device": 0, "stream": 8,
                                            "correlation": correlation}})
                    collective += 1
                t += 15.0
            for event in events:
                out.write(("" if first else ",\n") + json.dumps(event))
                first = False
        out.write("\n]}\n")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out_dir = sys.argv[1]
    ranks = int(sys.argv[2]) if len(sys.argv) > 2 else 64
    steps = int(sys.argv[3]) if len(sys.argv) > 3 else 40
    kernels = int(sys.argv[4]) if len(sys.argv) > 4 else 2000
    straggler, late = ranks // 3, ranks - 1
    for rank in range(ranks):
        write_rank(f"{out_dir}/rank{rank}.pt.trace.json.gz", rank, ranks, steps, kernels,
                   straggler, late)
    print(f"{ranks} ranks, {steps} steps of {kernels} kernels; planted: straggler rank "
          f"{straggler}, late collective rank {late} (step 2, first all-reduce)", file=sys.stderr)


if __name__ == "__main__":
    main()
