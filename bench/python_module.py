"""Times the Python module on one trace (run by bench/python_vs_cli.sh, or by hand):
    PYTHONPATH=build/release/python /usr/bin/python3 bench/python_module.py TRACE [REPEATS]
Prints, per repeat, the seconds of gpuroof.load(), of .analyze(), of .ops() (the DataFrame) and
of the raw NumPy columns, and the resident memory ops() added, per activity."""

import sys
import time
import warnings

import gpuroof


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


def main():
    path = sys.argv[1]
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    warnings.simplefilter("ignore", gpuroof.GpuroofWarning)
    import pandas  # noqa: F401 - imported up front so ops() below times the columns, not the import
    for run in range(repeats):
        t0 = time.perf_counter()
        trace = gpuroof.load(path)
        t1 = time.perf_counter()
        trace.analyze()
        t2 = time.perf_counter()
        before = rss_bytes()
        ops = trace.ops()
        t3 = time.perf_counter()
        after = rss_bytes()
        n = len(trace)
        del ops
        t4 = time.perf_counter()
        columns, _ = trace._native.ops(engine=None, correlation=False)
        t5 = time.perf_counter()
        del columns
        print(f"run {run + 1}: {n} activities: load {t1 - t0:.3f} s, analyze {t2 - t1:.3f} s, "
              f"load+analyze {t2 - t0:.3f} s; ops() DataFrame {t3 - t2:.3f} s, "
              f"+{(after - before) / max(n, 1):.1f} B/activity RSS; "
              f"NumPy columns {t5 - t4:.3f} s", flush=True)
        del trace


if __name__ == "__main__":
    main()
