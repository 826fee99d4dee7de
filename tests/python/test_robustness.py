"""What must never go silently wrong in the module: CLI-backed calls in several threads at once,
file descriptors, a Trace after os.chdir or after its file changed, column dtypes that hold
every value (nullable integers, floats where the JSON has null), empty tables, every compare
mode, stream ids above 2^31, paths with a NUL byte, and report(output=...). No test here depends
on timing: overlap is forced with a FIFO that the command blocks on."""

import errno
import json
import os
import subprocess
import sys
import threading
import warnings

import numpy as np
import pandas as pd
import pytest

import gpuroof
from conftest import EXAMPLE, kineto_pair, run_cli
from test_ranks import kineto_rank


def write_json(path, document):
    path.write_text(json.dumps(document))
    return path


@pytest.fixture
def rank_trace(tmp_path):
    """A small Kineto trace with launches and CUDA API calls (test_ranks.py's rank 0 of 1)."""
    return write_json(tmp_path / "rank.pt.trace.json", kineto_rank(0, 1))


def open_fds():
    return sorted(os.listdir("/proc/self/fd"))


# 1. CLI-backed calls run in threads at once, each with its own result; fd 1 is never touched.

def open_for_writing_once_read(fifo, thread):
    """The FIFO's write end, opened once `thread` has opened it for reading (it is then blocked
    inside its call until the write end closes); None once the thread has ended."""
    while True:
        try:
            fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as error:
            if error.errno != errno.ENXIO:  # ENXIO: no reader yet
                raise
            if not thread.is_alive():
                return None
            thread.join(0.01)
            continue
        os.set_blocking(fd, True)
        return fd


def feed(fd, content):
    """Writes `content` and closes; a reader that took what it wanted (a format's magic bytes)
    and closed its end first is fine."""
    try:
        view = memoryview(content)
        while view:
            view = view[os.write(fd, view):]
    except BrokenPipeError:
        pass
    finally:
        os.close(fd)


def test_cli_backed_calls_leave_fd_1_alone_while_another_thread_runs_one(tmp_path, rank_trace):
    """A compare() call blocks opening its history, a FIFO (so it is surely running), while this
    thread checks fd 1 and runs api() and launches() on another file: fd 1 stays the process's
    own, and each call gets its own file's result. (A trace cannot be a FIFO: readers open it
    more than once, so the CLI refuses one; a history is read once.)"""
    history = tmp_path / "runs.jsonl"
    run_cli("compare", "--current", EXAMPLE, "--history-append", history, "-q")
    content = history.read_bytes()
    assert content
    fifo = tmp_path / "history.fifo"
    os.mkfifo(fifo)
    outcome = {}

    def blocked_compare():
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", gpuroof.GpuroofWarning)
                outcome["compare"] = gpuroof.compare(current=[EXAMPLE], history=fifo)
        except Exception as error:  # noqa: BLE001 - reported below
            outcome["compare"] = error

    stdout_before = os.fstat(1)
    thread = threading.Thread(target=blocked_compare)
    thread.start()
    fd = open_for_writing_once_read(fifo, thread)
    assert fd is not None, outcome
    during = os.fstat(1)
    api = gpuroof.api(rank_trace, quiet=True)
    launches = gpuroof.launches(rank_trace, quiet=True)
    feed(fd, content)
    thread.join()
    assert (during.st_dev, during.st_ino) == (stdout_before.st_dev, stdout_before.st_ino)
    assert api.to_dict() == run_cli("api", rank_trace, "--format", "json", "-q").json()
    assert launches.to_dict() == run_cli("launches", rank_trace, "--format", "json",
                                         "-q").json()
    result = outcome["compare"]
    assert not isinstance(result, Exception), result
    assert result.to_dict()["schema"].startswith("gpuroof.compare/")


def test_a_trace_that_is_a_fifo_is_refused_without_blocking(tmp_path):
    """Readers tell the format from the first bytes and open the file again, so a pipe would
    reach them cut short, and a FIFO without a writer would block the open forever."""
    fifo = tmp_path / "trace.sqlite"
    os.mkfifo(fifo)
    with pytest.raises(gpuroof.InputError, match="not a regular file"):
        gpuroof.api(fifo, quiet=True)


def test_threads_get_their_own_results(tmp_path, rank_trace):
    other = write_json(tmp_path / "other.pt.trace.json", kineto_rank(1, 2))
    expected = {str(p): run_cli("api", p, "--format", "json", "-q").json() for p in
                (rank_trace, other)}
    got = {str(p): [] for p in (rank_trace, other)}

    def work(path):
        for _ in range(5):
            got[str(path)].append(gpuroof.api(path, quiet=True).to_dict())

    threads = [threading.Thread(target=work, args=(p,)) for p in (rank_trace, other)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for path, results in got.items():
        assert results == [expected[path]] * 5


def test_first_ops_in_several_threads_at_once_does_not_deadlock(tmp_path, rank_trace):
    """The first NumPy use of a process initialises pybind11's NumPy API (a C++ static whose
    init guard was held across `import numpy`, which releases the GIL): the module now does it
    at import. Only the first use shows it, hence a fresh interpreter; a hang is a timeout."""
    script = (
        "import sys, threading, warnings\n"
        "import gpuroof\n"
        "warnings.simplefilter('ignore')\n"
        "traces = [gpuroof.load(sys.argv[1]) for _ in range(4)]\n"
        "threads = [threading.Thread(target=t.ops) for t in traces]\n"
        "[t.start() for t in threads]\n"
        "[t.join() for t in threads]\n"
        "print('ok')\n")
    try:
        done = subprocess.run([sys.executable, "-c", script, str(rank_trace)],
                              capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("ops() called first from 4 threads at once hung (no result in 60 s)")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "ok\n"


# 2. No descriptor or temporary file is left behind, also by calls that raise.

def test_cli_backed_calls_leave_no_file_descriptor_behind(tmp_path, rank_trace):
    gpuroof.api(rank_trace, quiet=True)  # first use: the module's own one-time setup
    before = open_fds()
    for _ in range(5):
        gpuroof.api(rank_trace, quiet=True)
        gpuroof.launches(rank_trace, per_launch=True, quiet=True)
        gpuroof.findings(rank_trace, quiet=True)
        gpuroof.report(rank_trace)
        gpuroof.compare(profiles=[rank_trace, rank_trace], epochs=2)
        with pytest.raises(gpuroof.InputError):
            gpuroof.api(tmp_path / "missing.json")
        with pytest.raises(gpuroof.InputError):
            gpuroof.launches(rank_trace, key="bogus")
        with pytest.raises(gpuroof.InputError):
            gpuroof.compare(profiles=[rank_trace], epochs=2)
    assert open_fds() == before


# 3. A Trace reads the file it loaded, wherever the working directory went, or says it changed.

@pytest.fixture
def in_folder(tmp_path):
    cwd = os.getcwd()
    yield tmp_path
    os.chdir(cwd)


def test_a_trace_reads_its_own_file_after_chdir(in_folder):
    (in_folder / "elsewhere").mkdir()
    kineto = kineto_rank(0, 1)
    write_json(in_folder / "elsewhere" / "run.pt.trace.json", kineto)
    (in_folder / "run.pt.trace.json").write_bytes(EXAMPLE.read_bytes())  # an nsys export
    os.chdir(in_folder)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gpuroof.GpuroofWarning)
        trace = gpuroof.load("run.pt.trace.json")
        expected_kernels = run_cli("kernels", "run.pt.trace.json", "--format", "json",
                                   "-q").json()["results"]  # run in in_folder
        os.chdir(in_folder / "elsewhere")  # where run.pt.trace.json is the Kineto trace
        kernels = trace.kernels().to_dict()  # a new read (full names)
        report = gpuroof.report(trace)
    assert kernels["results"] == expected_kernels
    assert kernels["inputs"][0]["format"] == "nsys-sqlite"
    assert "process_frame" in report.html
    assert trace.path == "run.pt.trace.json"
    assert trace.absolute_path == str(in_folder / "run.pt.trace.json")


def test_a_trace_whose_file_changed_raises_naming_it(in_folder, rank_trace):
    path = in_folder / "changing.pt.trace.json"
    path.write_bytes(rank_trace.read_bytes())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gpuroof.GpuroofWarning)
        trace = gpuroof.load(path)
        trace.analyze()  # kept from the load: no read, no check
        write_json(path, kineto_rank(1, 2, compute_us=900))
        with pytest.raises(gpuroof.InputError, match="changed since it was loaded") as raised:
            trace.kernels()  # a new read
        assert str(path) in str(raised.value)
        with pytest.raises(gpuroof.InputError, match="changed since it was loaded"):
            gpuroof.api(trace)


# 4. Dtypes follow the declared type of the column, never its values.

def epoch_launches():
    """Two launches at epoch-ns times above 2^53: the first kernel waits after its call returned
    (queue cells set), the second starts before its call returns (queue cells null)."""
    api_ts = [1768554939867400, 1768554939867500]  # us, exact as doubles
    kernel_ts = [1768554939867410, 1768554939867501]
    events = []
    for i in range(2):
        events += [
            {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
             "ts": api_ts[i], "dur": 2, "args": {"correlation": i + 1}},
            {"ph": "X", "cat": "kernel", "name": f"k{i}", "pid": 0, "tid": 7, "ts": kernel_ts[i],
             "dur": 3, "args": {"device": 0, "stream": 7, "correlation": i + 1}},
        ]
    return {"schemaVersion": 1, "traceEvents": events}


def test_nullable_epoch_ns_columns_keep_every_digit(tmp_path):
    path = write_json(tmp_path / "epoch.pt.trace.json", epoch_launches())
    records = gpuroof.launches(path, per_launch=True, quiet=True).records
    assert records["queue_start_ns"].dtype == pd.Int64Dtype()
    assert records["queue_dur_ns"].dtype == pd.Int64Dtype()
    # The first call ends at 1768554939867400 us + 2 us (not a float64: the nearest one is
    # ...401984); its kernel starts 8 us later.
    assert records["queue_start_ns"][0] == 1768554939867402000
    assert records["queue_dur_ns"][0] == 8000
    assert records["queue_start_ns"].isna().tolist() == [False, True]
    assert records["api_start_ns"].dtype == np.int64
    assert records["api_start_ns"][0] == 1768554939867400000


def test_float_columns_are_float64_even_when_all_null():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gpuroof.GpuroofWarning)
        trace = gpuroof.load(EXAMPLE)
        engines = trace.analyze().engines  # no units: busy_us_per_unit is null everywhere
        directions = trace.copies(contention=True).directions
    assert engines["busy_us_per_unit"].dtype == np.float64
    assert engines["busy_us_per_unit"].isna().all()
    # Contention splits each copy's bytes by time: fractional bytes, float64 as declared.
    assert directions["bytes"].dtype == np.float64
    assert directions["loss_pct"].dtype == np.float64
    # The example has no steps: cost_per_step_ns is null in every row.
    findings = gpuroof.findings(EXAMPLE, window="all", min_cost_pct=0, quiet=True).findings
    assert len(findings) > 0 and findings["cost_per_step_ns"].isna().all()
    assert findings["cost_per_step_ns"].dtype == np.float64
    # The steps.* columns are there all the same (null), so notebook code reads any trace.
    steps = findings[["id", "cost_ns", "cost_per_step_ns", "steps.worst", "steps.label"]]
    assert steps["steps.worst"].isna().all() and steps["steps.label"].isna().all()
    assert steps["steps.worst"].dtype == "Int64"


# 5. A table without rows is a DataFrame with its columns and dtypes.

def test_an_empty_table_has_its_columns_and_dtypes():
    result = gpuroof.load(EXAMPLE).gaps(min="100s")
    assert "gaps" in result.tables
    for gaps in (result.gaps, result.table("gaps")):
        assert isinstance(gaps, pd.DataFrame) and len(gaps) == 0
        assert list(gaps.columns) == ["trace", "device", "device_name", "start_ns",
                                      "duration_ns", "before_engine", "before", "before_stream",
                                      "after_engine", "after", "after_stream"]
        assert gaps["start_ns"].dtype == np.int64 and gaps["before"].dtype == object


def test_findings_without_findings_and_compare_without_metrics_have_columns(rank_trace):
    result = gpuroof.findings(rank_trace, min_cost_pct=100, quiet=True)
    assert result.to_dict()["results"][0]["findings"] == []
    findings = result.findings
    assert len(findings) == 0
    assert {"id", "cost_ns", "cost_per_step_ns", "evidence"} <= set(findings.columns)
    assert findings["cost_ns"].dtype == np.int64
    assert findings["cost_per_step_ns"].dtype == np.float64
    assert findings["steps.worst_cost_ns"].dtype == "Int64"
    empty = gpuroof.CompareResult({"schema": "gpuroof.compare/1", "metrics": []}, "", "", 0)
    metrics = empty.metrics
    assert len(metrics) == 0 and {"id", "verdict", "baseline.median"} <= set(metrics.columns)
    assert metrics["baseline.median"].dtype == np.float64


# 6. Every compare mode works as the CLI's, or is refused up front.

def test_compare_simple_mode_is_the_cli_line():
    base, current = kineto_pair()
    cli = run_cli("compare", "--epochs", "3", base, current)
    result = gpuroof.compare(baseline=[base], current=[current], epochs=3)
    assert (result.mode, result.exit_code, result.text) == ("epochs", cli.returncode, cli.stdout)
    assert result.verdict == cli.stdout.split(":")[0]
    assert result.to_dict() == {} and result.tables == []
    assert gpuroof.compare(profiles=[base, current], epochs=3).text == cli.stdout


def test_compare_calibration_is_the_cli_text():
    base, current = kineto_pair()
    cli = run_cli("compare", "--calibrate", base, current)
    assert cli.returncode == 0, cli.stderr
    result = gpuroof.compare(profiles=[base, current], calibrate=True)
    assert (result.mode, result.exit_code, result.text) == ("calibrate", 0, cli.stdout)


def test_compare_calibration_refuses_a_profile_given_twice():
    # Each calibration profile is one A/A run: the same trace twice has no run-to-run noise.
    base, current = kineto_pair()
    cli = run_cli("compare", "--calibrate", base, current, base)
    assert cli.returncode == 2 and "is given twice" in cli.stderr, cli.stderr
    with pytest.raises(gpuroof.InputError, match="is given twice"):
        gpuroof.compare(profiles=[base, current, base], calibrate=True)


def test_compare_of_two_job_directories_is_the_cli_text(tmp_path):
    for side, compute in (("base", 600), ("new", 900)):
        (tmp_path / side).mkdir()
        for rank in range(2):
            write_json(tmp_path / side / f"r{rank}.pt.trace.json",
                       kineto_rank(rank, 2, compute_us=compute))
    cli = run_cli("compare", "--baseline", tmp_path / "base", "--current", tmp_path / "new")
    assert cli.returncode in (0, 1), cli.stderr
    result = gpuroof.compare(baseline=tmp_path / "base", current=tmp_path / "new")
    assert (result.mode, result.exit_code, result.text) == ("job", cli.returncode, cli.stdout)
    assert result.verdict == ("FAIL" if cli.returncode == 1 else "PASS")


@pytest.mark.parametrize("call,message", [
    (lambda b, c: gpuroof.compare(baseline=[b], current=[c], epochs=3, json="x.json"),
     "simple mode (epochs=) writes no json"),
    (lambda b, c: gpuroof.compare(baseline=[b], current=[c], calibrate=True),
     "calibrate=True takes profiles="),
])
def test_compare_refuses_what_a_mode_cannot_do_up_front(call, message):
    base, current = kineto_pair()
    with pytest.raises(gpuroof.InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        call(base, current)


def test_compare_gate_keeps_json_where_asked(tmp_path):
    base, current = kineto_pair()
    kept = tmp_path / "verdict.json"
    result = gpuroof.compare(baseline=[base], current=[current], json=kept)
    assert json.loads(kept.read_text()) == result.to_dict()
    assert result.mode == "gate" and result.verdict == result.to_dict()["verdict"]


# 7. Stream ids hold every value the model does (uint32).

def test_ops_stream_holds_ids_above_2_to_the_31(tmp_path):
    big = 3_000_000_000
    path = write_json(tmp_path / "streams.json", {"schemaVersion": 1, "traceEvents": [
        {"ph": "X", "cat": "kernel", "name": "kA", "pid": 0, "tid": 1, "ts": 10, "dur": 5,
         "args": {"device": 0, "stream": big, "correlation": 1}},
        {"ph": "X", "cat": "kernel", "name": "kB", "pid": 0, "tid": 2, "ts": 20, "dur": 5,
         "args": {"device": 0, "stream": 7, "correlation": 2}},
    ]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gpuroof.GpuroofWarning)
        trace = gpuroof.load(path)
    ops = trace.ops()
    assert ops["stream"].dtype == np.uint32
    assert sorted(ops["stream"].tolist()) == [7, big]
    assert set(ops["stream"].tolist()) == {s["stream"] for s in trace.streams}


# 8. A NUL byte in a path is refused, as Python's open() refuses it.

@pytest.mark.parametrize("call", [
    lambda p: gpuroof.load(p),
    lambda p: gpuroof.api(p),
    lambda p: gpuroof.report(p),
    lambda p: gpuroof.compare(baseline=[p], current=[p]),
], ids=["load", "api", "report", "compare"])
def test_a_path_with_a_nul_byte_is_a_value_error(call):
    with pytest.raises(ValueError, match="embedded null byte"):
        call(str(EXAMPLE) + "\x00x")


# 9. report(output=...) keeps the page there and returns it too.

def test_report_output_returns_the_page_and_its_path(tmp_path):
    page = tmp_path / "o.html"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gpuroof.GpuroofWarning)
        report = gpuroof.report(EXAMPLE, output=page, units=2000)
        plain = gpuroof.report(EXAMPLE, units=2000)
    assert report.html == page.read_text(encoding="utf-8") == plain.html
    assert report.html.startswith("<!DOCTYPE html>") or "<html" in report.html
    assert report.path == str(page) and plain.path is None


def test_every_column_written_is_declared(rank_trace):
    """_DECLARED (the dtypes' source) lists every column the CLI writes, so none is typed by its
    values alone; a new column in a JSON writer needs its line there."""
    from gpuroof._results import _declared
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gpuroof.GpuroofWarning)
        example = gpuroof.load(EXAMPLE)
        kineto = gpuroof.load(rank_trace)
        results = [example.analyze(units=2000, overlap=True), example.analyze(by_stream=True),
                   example.kernels(), example.copies(), example.copies(contention=True),
                   example.gaps(min="10us"), kineto.ranges(), kineto.api(), kineto.launches(),
                   kineto.launches(per_launch=True), kineto.findings(window="all",
                                                                     min_cost_pct=0)]
    for result in results:
        for name in result.tables + ["results"]:
            frame = result.results if name == "results" else result.table(name)
            declared = {column for column, _, _ in _declared(result.schema, name) or []}
            assert set(frame.columns) <= declared, (result.schema, name)


# The CLI's file checks hold for the module's calls too (they run the same parser).

def test_an_output_over_an_input_trace_is_refused_and_the_trace_kept(tmp_path):
    trace = tmp_path / "t.sqlite"
    trace.write_bytes(EXAMPLE.read_bytes() if hasattr(EXAMPLE, "read_bytes")
                      else open(EXAMPLE, "rb").read())
    before = trace.read_bytes()
    with pytest.raises(gpuroof.InputError, match="would overwrite the input trace"):
        gpuroof.report(str(trace), output=str(trace))
    assert trace.read_bytes() == before


def test_a_trace_given_twice_to_compare_is_refused():
    with pytest.raises(gpuroof.InputError, match="is given twice"):
        gpuroof.compare(baseline=[str(EXAMPLE), str(EXAMPLE)], current=[str(EXAMPLE)])


def test_compare_html_dash_is_refused():
    with pytest.raises(gpuroof.InputError, match="not '-'"):
        gpuroof.compare(baseline=[str(EXAMPLE)], current=[str(EXAMPLE)], html="-")
