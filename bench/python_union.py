#!/usr/bin/env python3
"""Per-engine busy time of an nsys SQLite export, the way an ad-hoc script computes it today.

Only for bench/analyze_vs_sqlite.sh, which compares gpuroof with it; never used by the tests.
Standard library only: fetch start, end, deviceId and copyKind of every activity row, sort the
intervals of each (device, engine) and take the length of their union. Prints one line per
(device, engine): ops and busy ns. Run: python3 bench/python_union.py TRACE.sqlite
"""
import sqlite3
import sys
from collections import defaultdict

# nsys/CUPTI copyKind numbering (ENUM_CUDA_MEMCPY_OPER).
COPY_ENGINES = {1: "H2D", 2: "D2H", 3: "H2D", 4: "D2H", 5: "D2D", 6: "D2D", 7: "D2D", 8: "D2D",
                9: "H2H", 10: "P2P", 11: "UVM H2D", 12: "UVM D2H", 13: "UVM D2D"}


def main(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    intervals = defaultdict(list)  # (device, engine) -> [(start, end)]
    if "CUPTI_ACTIVITY_KIND_KERNEL" in tables:
        for start, end, device in db.execute(
                'SELECT start, "end", deviceId FROM CUPTI_ACTIVITY_KIND_KERNEL'):
            intervals[(device, "kernel")].append((start, end))
    if "CUPTI_ACTIVITY_KIND_MEMCPY" in tables:
        for start, end, device, kind in db.execute(
                'SELECT start, "end", deviceId, copyKind FROM CUPTI_ACTIVITY_KIND_MEMCPY'):
            intervals[(device, COPY_ENGINES.get(kind, "other"))].append((start, end))
    if "CUPTI_ACTIVITY_KIND_MEMSET" in tables:
        for start, end, device in db.execute(
                'SELECT start, "end", deviceId FROM CUPTI_ACTIVITY_KIND_MEMSET'):
            intervals[(device, "memset")].append((start, end))
    for (device, engine), spans in sorted(intervals.items()):
        spans.sort()
        busy = 0
        current_start, current_end = spans[0]
        for start, end in spans[1:]:
            if start > current_end:
                busy += current_end - current_start
                current_start, current_end = start, end
            elif end > current_end:
                current_end = end
        busy += current_end - current_start
        print(f"device {device} {engine}: {len(spans)} ops, busy {busy} ns")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python_union.py TRACE.sqlite")
    main(sys.argv[1])
