"""gpuroof.ranks(): the CLI's `ranks --format json` for the same traces and options, its tables
as DataFrames, --strict's exit code, and bad input as InputError with the CLI's message. The job
is written here (the e2e tests' rank set, tests/e2e/rank_sets.cc): 4 Kineto ranks of 3 steps,
rank 2's gemm 800 us instead of 600 (the straggler), rank 3's all-reduce of step 2 150 us late."""

import json
import warnings

import numpy as np
import pandas as pd
import pytest

import gpuroof
from conftest import run_cli


def kineto_rank(rank, world_size, compute_us=600, arrival_us=500):
    events = []
    for s in range(3):
        base = 1000 + 1000 * s
        arrival = arrival_us if s == 1 else 500
        events += [
            {"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{s + 1}", "pid": 100,
             "tid": 100, "ts": base, "dur": 1000, "args": {"External id": s + 1}},
            {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100,
             "tid": 100, "ts": base + 5, "dur": 2, "args": {"correlation": 10 * s + 1}},
            {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100,
             "tid": 100, "ts": base + 6, "dur": 2, "args": {"correlation": 10 * s + 2}},
            {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": base + 10,
             "dur": compute_us, "args": {"device": 0, "stream": 7, "correlation": 10 * s + 1}},
            {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL",
             "pid": 0, "tid": 8, "ts": base + arrival, "dur": 200,
             "args": {"device": 0, "stream": 8, "correlation": 10 * s + 2}},
        ]
    return {"schemaVersion": 1,
            "distributedInfo": {"backend": "nccl", "rank": rank, "world_size": world_size},
            "traceEvents": events}


@pytest.fixture
def job(tmp_path):
    folder = tmp_path / "job"
    folder.mkdir()
    planted = {2: {"compute_us": 800}, 3: {"arrival_us": 650}}
    for rank in range(4):
        # Named against the rank order: the ranks come from distributedInfo, not file names.
        path = folder / f"worker_{3 - rank}.pt.trace.json"
        path.write_text(json.dumps(kineto_rank(rank, 4, **planted.get(rank, {}))))
    return folder


def test_notes_carry_the_traces_left_out_once_as_warnings(job, capfd):
    """What the CLI says of the traces it did not analyse (a trace that cannot be read, a file
    that is no trace) is in .notes, each once, as a GpuroofWarning, and nothing is printed."""
    (job / "worker_9.pt.trace.json").write_text("{ not json")
    (job / "README.txt").write_text("notes\n")
    cli = run_cli("ranks", job, "--format", "json")
    assert cli.returncode == 0, cli.stderr
    said = [line.split(": ", 2)[2] for line in cli.stderr.splitlines()
            if line.startswith(("gpuroof: warning: ", "gpuroof: note: "))]
    assert any(line.startswith("not analysed: ") for line in said), cli.stderr
    assert any("no trace, left out" in line for line in said), cli.stderr
    capfd.readouterr()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = gpuroof.ranks(job)
    assert "gpuroof:" not in capfd.readouterr().err
    assert len(result.failed) == 1 and "worker_9" in result.failed[0]["path"]
    for line in said:
        assert result.notes.count(line) == 1, (line, result.notes)
    warned = [str(w.message) for w in caught if issubclass(w.category, gpuroof.GpuroofWarning)]
    assert warned == result.notes


def test_to_dict_is_the_cli_json(job):
    cli = run_cli("ranks", job, "--format", "json", "--quiet")
    assert cli.returncode == 0, cli.stderr
    result = gpuroof.ranks(job, quiet=True)
    assert result.schema == "gpuroof.ranks/1"
    assert result.exit_code == 0
    assert result.to_dict() == cli.json()
    files = sorted(str(p) for p in job.iterdir())
    assert gpuroof.ranks(files, jobs=1, quiet=True).to_dict() == cli.json()


def test_tables_are_dataframes_with_the_planted_figures(job):
    result = gpuroof.ranks(job, quiet=True)
    assert result.tables == ["ranks", "outliers", "stragglers", "collectives"]
    assert result.world_size == 4
    assert result.failed == []
    ranks = result.ranks
    assert isinstance(ranks, pd.DataFrame)
    assert list(ranks["rank"]) == [0, 1, 2, 3]
    assert ranks["steps"].dtype == np.int64
    # Means per step (docs/metrics.md, "Ranks"): float64. Per step: gemm 600 us (800 on rank
    # 2), the all-reduce 200 us.
    assert ranks["compute_busy_ns"].dtype == np.float64
    assert list(ranks["compute_busy_ns"]) == [600_000, 600_000, 800_000, 600_000]
    assert list(ranks["comm_busy_ns"]) == [200_000] * 4
    stragglers = result.stragglers
    assert list(stragglers["rank"]) == [2]
    assert "compute-bound" in stragglers["summary"][0]
    collectives = result.collectives
    assert isinstance(collectives, pd.DataFrame)
    widest = collectives.iloc[0]
    assert widest["last_rank"] == 3
    assert widest["spread_ns"] == 150_000


def test_strict_gives_the_cli_exit_code_when_a_trace_is_not_analysed(job):
    (job / "broken.pt.trace.json").write_text('{"traceEvents": [')
    cli = run_cli("ranks", job, "--format", "json", "--strict", "--quiet")
    assert cli.returncode == 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gpuroof.GpuroofWarning)
        result = gpuroof.ranks(job, strict=True, quiet=True)
    assert result.exit_code == 1
    assert result.to_dict() == cli.json()
    assert len(result.failed) == 1
    assert len(result.ranks) == 4


def test_an_empty_directory_raises_the_cli_message(tmp_path):
    cli = run_cli("ranks", tmp_path)
    assert cli.returncode == 2
    with pytest.raises(gpuroof.InputError) as raised:
        gpuroof.ranks(tmp_path)
    assert str(raised.value) == cli.error_line()
