"""The Python API around the CLI's results: tables and their dtypes, raw ops, errors, compare,
report and the torch.profiler handler."""

import gzip
import json
import os
import re
import shutil
import time
import warnings

import numpy as np
import pandas as pd
import pytest

import gpuroof
import gpuroof.torch
from conftest import (EXAMPLE, FIXTURES, SOURCE_DIR, kineto_pair, load_quietly, run_cli,
                      shared_fixtures)

# The documented columns (docs/python.md) and the dtype each must have.
ENGINE_COLUMNS = {
    "trace": object, "device": np.int64, "device_name": object, "engine": object,
    "ops": np.int64, "sum_ns": np.int64, "busy_ns": np.int64, "overlap": np.float64,
    "duty_pct": np.float64, "bytes": np.int64, "op_time_ns": np.int64,
}
OPS_DTYPES = {
    "start_ns": np.int64, "end_ns": np.int64, "device": np.int32, "stream": np.uint32,
    "bytes": np.uint64,
}


def test_trace_properties_on_the_bundled_example():
    trace = gpuroof.load(EXAMPLE)
    assert trace.format == "nsys-sqlite"
    assert len(trace) > 0
    assert trace.devices and {"id", "name"} <= set(trace.devices[0])
    assert trace.streams and {"device", "stream"} <= set(trace.streams[0])
    diagnostics = trace.diagnostics
    assert diagnostics["records_read"] == (diagnostics["records_used"]
                                           + diagnostics["records_skipped"])
    assert isinstance(trace.metadata, dict)


def test_engine_table_has_the_documented_columns_and_dtypes():
    engines = gpuroof.load(EXAMPLE).analyze(units=2000).engines
    assert isinstance(engines, pd.DataFrame)
    for column, dtype in ENGINE_COLUMNS.items():
        assert column in engines.columns
        assert engines[column].dtype == dtype, column
    assert engines["busy_us_per_unit"].dtype == np.float64


def test_results_table_flattens_the_window():
    results = gpuroof.load(EXAMPLE).analyze().results
    assert {"trace", "device", "window.start_ns", "window.end_ns"} <= set(results.columns)
    assert results["window.start_ns"].dtype == np.int64


def test_per_stream_rows_lead_with_their_stream():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gpuroof.GpuroofWarning)
        engines = gpuroof.load(EXAMPLE).analyze(by_stream=True).engines
    assert {"device", "stream.stream_id", "engine", "busy_ns"} <= set(engines.columns)
    assert engines["stream.stream_id"].nunique() > 1


def test_ops_columns_and_dtypes():
    ops = gpuroof.load(EXAMPLE).ops()
    assert list(ops.columns) == ["start_ns", "end_ns", "device", "stream", "engine", "bytes",
                                 "name"]
    for column, dtype in OPS_DTYPES.items():
        assert ops[column].dtype == dtype, column
    assert isinstance(ops["engine"].dtype, pd.CategoricalDtype)
    assert isinstance(ops["name"].dtype, pd.CategoricalDtype)
    assert (ops["end_ns"] >= ops["start_ns"]).all()


def check_ops_sums(trace):
    """Per device and engine, the op durations of ops() add up to analyze's sum_ns and the ops
    count to its ops, over the whole trace (window all clips nothing)."""
    ops = trace.ops()
    try:
        engines = trace.analyze(window="all").engines
    except gpuroof.InputError as error:  # a trace without GPU work: nothing to add up
        assert "no GPU activity" in str(error)
        assert len(ops) == 0
        return
    ops = ops.assign(duration=ops["end_ns"] - ops["start_ns"])
    by_engine = ops.groupby(["device", "engine"], observed=True)["duration"].agg(["sum", "count"])
    for row in engines.itertuples():
        assert by_engine.loc[(row.device, row.engine), "sum"] == row.sum_ns, row
        assert by_engine.loc[(row.device, row.engine), "count"] == row.ops, row
    assert by_engine["count"].sum() == engines["ops"].sum()


def test_ops_sums_equal_analyze_sums_on_the_example():
    check_ops_sums(gpuroof.load(EXAMPLE))


@pytest.mark.parametrize("path", shared_fixtures())
def test_ops_sums_equal_analyze_sums_on_shared_fixtures(path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gpuroof.GpuroofWarning)
        check_ops_sums(load_quietly(str(path)))


def test_ops_with_correlation_ids():
    trace = gpuroof.load(EXAMPLE)
    ops = trace.ops(correlation=True)
    assert ops["correlation"].dtype == np.uint32
    assert (ops["correlation"] > 0).any()
    plain = trace.ops()
    assert (ops["start_ns"].to_numpy() == plain["start_ns"].to_numpy()).all()


def test_ops_engine_filter_and_numpy_form():
    trace = gpuroof.load(EXAMPLE)
    kernels = trace.ops(engine="kernel")
    assert len(kernels) > 0 and set(kernels["engine"]) == {"kernel"}
    columns, _ = trace._native.ops(engine=None, correlation=False)  # the dict of NumPy arrays (no pandas)
    assert isinstance(columns["start_ns"], np.ndarray) and len(columns["start_ns"]) == len(trace)
    assert columns["engine_categories"][0] == "kernel"
    with pytest.raises(gpuroof.InputError):
        trace.ops(engine="warp drive")


def test_missing_file_raises_input_error_with_the_cli_message(tmp_path):
    missing = tmp_path / "missing.sqlite"
    cli = run_cli("analyze", missing)
    assert cli.returncode == 2
    with pytest.raises(gpuroof.InputError) as raised:
        gpuroof.load(missing)
    assert isinstance(raised.value, ValueError)
    assert str(raised.value) == cli.error_line()


def test_garbage_file_raises_input_error_with_the_cli_message(tmp_path):
    garbage = tmp_path / "garbage.sqlite"
    garbage.write_text("not a trace\n")
    cli = run_cli("analyze", garbage)
    with pytest.raises(gpuroof.InputError) as raised:
        gpuroof.load(garbage)
    assert str(raised.value) == cli.error_line()


@pytest.mark.parametrize("args,call", [
    (["analyze", "--window", "sideways"], lambda t: t.analyze(window="sideways")),
    (["analyze", "--units", "0"], lambda t: t.analyze(units=0)),
    (["analyze", "--overlap", "--by-stream"], lambda t: t.analyze(overlap=True, by_stream=True)),
    (["kernels", "--top", "-1"], lambda t: t.kernels(top=-1)),
    (["kernels", "--key", "colour"], lambda t: t.kernels(key="colour")),
    (["gaps", "--min", "0"], lambda t: t.gaps(min=0)),
    (["ranges", "--attribute", "planet"], lambda t: t.ranges(attribute="planet")),
])
def test_bad_options_raise_input_error_with_the_cli_message(args, call):
    cli = run_cli(*args, EXAMPLE)
    assert cli.returncode == 2
    with pytest.raises(gpuroof.InputError) as raised:
        call(gpuroof.load(EXAMPLE))
    assert str(raised.value) == cli.error_line()


def test_window_notes_arrive_as_warnings():
    trace = gpuroof.load(EXAMPLE)
    cli = run_cli("analyze", EXAMPLE)
    notes = [line[len("gpuroof: note: "):] for line in cli.stderr.splitlines()
             if line.startswith("gpuroof: note: ")]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        trace.analyze()
    assert [str(w.message) for w in caught if w.category is gpuroof.GpuroofWarning] == notes


def test_compare_matches_the_cli(tmp_path):
    base, current = kineto_pair()
    json_path, markdown_path = tmp_path / "c.json", tmp_path / "c.md"
    cli = run_cli("compare", "--baseline", base, "--current", current, "--json", json_path,
                  "--markdown", markdown_path)
    result = gpuroof.compare(baseline=[base], current=[current])
    assert result.exit_code == cli.returncode
    assert result.text == cli.stdout
    import json
    assert result.to_dict() == json.loads(json_path.read_text())
    assert result.to_markdown() == markdown_path.read_text()
    assert result.verdict == result.to_dict()["verdict"]
    metrics = result.metrics
    assert {"id", "level", "name", "unit", "verdict", "baseline.median",
            "current.median"} <= set(metrics.columns)


def test_compare_bad_option_raises_input_error():
    base, current = kineto_pair()
    cli = run_cli("compare", "--baseline", base, "--current", current, "--alpha", "7")
    with pytest.raises(gpuroof.InputError) as raised:
        gpuroof.compare(baseline=[base], current=[current], alpha=7)
    assert str(raised.value) == cli.error_line()


def test_report_is_the_cli_page(tmp_path):
    page = tmp_path / "report.html"
    cli = run_cli("report", EXAMPLE, "--units", "2000", "-o", page)
    assert cli.returncode == 0
    report = gpuroof.report(gpuroof.load(EXAMPLE), units=2000)  # a Trace, or paths
    assert report._repr_html_() == page.read_text()
    saved = report.save(tmp_path / "again.html")
    assert (tmp_path / "again.html").read_text() == page.read_text() and saved


class StandInProfiler:
    """What trace_handler uses of torch.profiler.profile: export_chrome_trace(path)."""

    def __init__(self, source):
        self.source = source
        self.exported = []

    def export_chrome_trace(self, path):
        self.exported.append(path)
        opener = gzip.open if str(self.source).endswith(".gz") else open
        with opener(self.source, "rb") as src, open(path, "wb") as dst:
            shutil.copyfileobj(src, dst)


def test_torch_trace_handler_saves_and_analyses(tmp_path, capsys):
    source = FIXTURES / "kineto" / "hta_simple_add_a100.json.gz"
    if not source.exists():
        pytest.skip(f"shared fixtures not found in {FIXTURES}")
    handler = gpuroof.torch.trace_handler(tmp_path / "traces", worker_name="w0")
    profiler = StandInProfiler(source)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gpuroof.GpuroofWarning)
        result = handler(profiler)
    [path] = profiler.exported
    assert path.startswith(str(tmp_path / "traces" / "w0.")) and path.endswith(".pt.trace.json")
    assert handler.last_path == path and handler.last_result is result
    cli = run_cli("analyze", path, "--format", "json", "--quiet")
    assert result.to_dict() == cli.json()
    printed = capsys.readouterr().out
    assert "engine" in printed and "busy_ns" in printed


def test_torch_trace_handler_without_analysis(tmp_path):
    profiler = StandInProfiler(EXAMPLE)
    handler = gpuroof.torch.trace_handler(tmp_path, worker_name="w1", analyze=False)
    assert handler(profiler) is None
    assert handler.last_path == profiler.exported[0]


class CpuOnlyProfiler:
    """A capture with no GPU activity (a CPU-only window): gpuroof refuses it."""

    def export_chrome_trace(self, path):
        with open(path, "w") as f:
            json.dump({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1,
                                        "tid": 1, "ts": 1, "dur": 5}]}, f)


def test_torch_trace_handler_never_raises_out_of_on_trace_ready(tmp_path, capsys):
    handler = gpuroof.torch.trace_handler(tmp_path, worker_name="w2")
    source = FIXTURES / "kineto" / "hta_simple_add_a100.json.gz"
    if source.exists():  # a good capture first: its result must not outlive the next one
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", gpuroof.GpuroofWarning)
            assert handler(StandInProfiler(source)) is not None
        time.sleep(0.002)  # another file name (ms)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert handler(CpuOnlyProfiler()) is None  # no exception: the training loop goes on
    path = handler.last_path
    assert os.path.exists(path)  # the trace is saved
    assert handler.last_result is None
    assert isinstance(handler.last_error, gpuroof.InputError)
    assert "no GPU activity" in str(handler.last_error)
    [warning] = [w for w in caught if issubclass(w.category, gpuroof.GpuroofWarning)]
    text = str(warning.message)
    assert "\n" not in text and path in text and "no GPU activity" in text
    if not source.exists():
        return
    # A units_from range the capture does not hold: the same, not an exception.
    named = gpuroof.torch.trace_handler(tmp_path, worker_name="w3", units_from="nvtx:nope")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert named(StandInProfiler(source)) is None
    assert named.last_result is None and isinstance(named.last_error, gpuroof.InputError)
    assert any(named.last_path in str(w.message) for w in caught)
    # A keyword analyze() does not take (a typo): warned, not raised.
    typo = gpuroof.torch.trace_handler(tmp_path, worker_name="w4", unit_form="nvtx:step")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert typo(StandInProfiler(source)) is None
    assert isinstance(typo.last_error, TypeError)


def test_without_pandas_tables_are_lists_of_dicts_and_ops_a_dict_of_arrays(monkeypatch):
    import gpuroof._results
    monkeypatch.setattr(gpuroof._results, "_pandas", False)  # as if pandas were not installed
    trace = gpuroof.load(EXAMPLE)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gpuroof.GpuroofWarning)
        engines = trace.analyze().engines
    assert isinstance(engines, list) and engines[0]["engine"] == "kernel"
    ops = trace.ops()
    assert isinstance(ops, dict) and isinstance(ops["start_ns"], np.ndarray)
    assert ops["engine_categories"][ops["engine"][0]] in ("kernel", "H2D")


STREAMS4 = FIXTURES / "nsys" / "nsys2022_4_streams4.sqlite"  # has CUDA API calls


def lossy_copy(tmp_path):
    """streams4 with its first two kernels ending before they start: the reader skips them
    (data loss), as `gpuroof analyze` says."""
    import sqlite3
    if not STREAMS4.exists():
        pytest.skip(f"shared fixtures not found in {FIXTURES}")
    path = tmp_path / "lossy.sqlite"
    shutil.copy(STREAMS4, path)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET end = start - 100 WHERE rowid IN "
                   "(SELECT rowid FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY rowid LIMIT 2)")
    return path


def test_cli_backed_calls_carry_their_notes_and_warn_them(tmp_path):
    lossy = lossy_copy(tmp_path)
    for call in (gpuroof.api, gpuroof.launches, gpuroof.findings):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = call(lossy)
        skipped = [n for n in result.notes if "skipped 2 (2 end before start in "
                   "CUPTI_ACTIVITY_KIND_KERNEL)" in n]
        assert len(skipped) == 1 and skipped[0].startswith(str(lossy)), (call, result.notes)
        warned = [str(w.message) for w in caught if issubclass(w.category, gpuroof.GpuroofWarning)]
        assert warned == result.notes, call
        assert all(w.filename == __file__ for w in caught), call  # the user's line
        with warnings.catch_warnings(record=True) as caught:  # quiet: notes kept, not warned
            warnings.simplefilter("always")
            assert call(lossy, quiet=True).notes == result.notes
        assert not [w for w in caught if issubclass(w.category, gpuroof.GpuroofWarning)]


def test_cli_backed_calls_print_nothing_each_note_is_one_warning(tmp_path, capfd):
    """The CLI's stderr lines arrive once each, as GpuroofWarning, and are not also printed
    (they were: once on stderr, passed through, and once as the warning)."""
    lossy = lossy_copy(tmp_path)
    calls = [gpuroof.api, gpuroof.launches, gpuroof.findings,
             lambda path: gpuroof.report(path, output=tmp_path / "page.html")]
    for call in calls:
        capfd.readouterr()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = call(lossy)
        printed = capfd.readouterr().err
        assert "gpuroof:" not in printed, (call, printed)
        warned = [str(w.message) for w in caught if issubclass(w.category, gpuroof.GpuroofWarning)]
        assert warned == result.notes, call
        assert len(set(warned)) == len(warned), call
        assert any("skipped 2 (2 end before start in CUPTI_ACTIVITY_KIND_KERNEL)" in note
                   for note in warned), (call, warned)


def _write_zero_duration_copy_trace(tmp_path):
    """A Kineto trace of one kernel and two 1 MB copies, the first of zero duration: the reader
    notes it and a GB/s leaves it out."""
    def event(cat, name, ts, dur, corr, **args):
        return {"ph": "X", "cat": cat, "name": name, "pid": 0, "tid": 7, "ts": ts, "dur": dur,
                "args": {"device": 0, "stream": 7, "correlation": corr, **args}}
    copy = "Memcpy HtoD (Pinned -> Device)"
    path = tmp_path / "zero.json"
    path.write_text(json.dumps({"traceEvents": [
        event("kernel", "work", 0, 20, 1),
        event("gpu_memcpy", copy, 1, 0, 2, bytes=1000000),
        event("gpu_memcpy", copy, 2, 10, 3, bytes=1000000)]}))
    return path


def test_copies_notes_say_what_the_rate_leaves_out(tmp_path):
    """Trace.copies() gives the copies a GB/s leaves out (zero duration) as notes and warnings,
    as the CLI's table says them under it."""
    path = _write_zero_duration_copy_trace(tmp_path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = gpuroof.load(path).copies()
    said = [n for n in result.notes if "GB/s leaves out 1 copy of zero duration (1.00 MB)" in n]
    assert len(said) == 1, result.notes
    assert said[0] in [str(w.message) for w in caught]
    assert result.to_dict()["results"][0]["copies"][0]["bandwidth_gbps"] == 100


def test_results_carry_the_reader_notes_of_their_trace_once(tmp_path):
    """A reader note (here: a Kineto op of zero duration) is on every result's .notes, once, as
    the CLI prints it (analyze().notes is the CLI's note lines); it was only on
    trace.diagnostics. It is warned once per trace: by load(), which read the file, not again."""
    path = _write_zero_duration_copy_trace(tmp_path)
    cli = run_cli("analyze", path)
    assert cli.returncode == 0, cli.stderr
    cli_notes = [line[len("gpuroof: note: "):] for line in cli.stderr.splitlines()
                 if line.startswith("gpuroof: note: ")]
    [reader_note] = [n for n in cli_notes if "have zero duration (the file's timestamps" in n]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        trace = gpuroof.load(path)
    assert [str(w.message) for w in caught] == [reader_note]
    assert trace.diagnostics["notes"] == [reader_note[len(f"{path}: "):]]
    for name, call in [("analyze", lambda: trace.analyze()), ("copies", lambda: trace.copies()),
                       ("analyze again", lambda: trace.analyze())]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = call()
        assert result.notes.count(reader_note) == 1, (name, result.notes)
        assert len(set(result.notes)) == len(result.notes), (name, result.notes)
        warned = [str(w.message) for w in caught if issubclass(w.category, gpuroof.GpuroofWarning)]
        assert reader_note not in warned, name  # load() said it
        assert warned == [n for n in result.notes if n != reader_note], name
        if name.startswith("analyze"):
            assert result.notes == cli_notes, name


def test_quiet_keeps_the_notes_and_gives_no_warning(tmp_path):
    """quiet=True silences the warnings, not the notes: .notes is the same either way."""
    lossy = lossy_copy(tmp_path)
    calls = [gpuroof.api, gpuroof.findings,
             lambda path, **kw: gpuroof.report(path, output=tmp_path / "page.html", **kw)]
    for call in calls:
        loud = call(lossy)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            quiet = call(lossy, quiet=True)
        assert quiet.notes == loud.notes and loud.notes, call
        assert not [w for w in caught if issubclass(w.category, gpuroof.GpuroofWarning)], call


def test_ranks_notes_are_the_reports_notes_and_warnings():
    ranks = [FIXTURES / "nsys" / f"nsys2021_5_saxpy_rank{r}.sqlite" for r in (0, 1)]
    if not all(p.exists() for p in ranks):
        pytest.skip(f"shared fixtures not found in {FIXTURES}")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = gpuroof.ranks(ranks)
    report = result.to_dict()
    assert result.notes == report["warnings"] + report["notes"]
    assert "2 of 2 traces name no rank: their rank is their position in the file list" in \
        result.notes
    assert [str(w.message) for w in caught
            if issubclass(w.category, gpuroof.GpuroofWarning)] == result.notes


def test_compare_notes_are_the_reports_warnings():
    base = FIXTURES / "kineto" / "hta_compare_base.json.gz"
    test = FIXTURES / "kineto" / "hta_compare_test.json.gz"
    if not (base.exists() and test.exists()):
        pytest.skip(f"shared fixtures not found in {FIXTURES}")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = gpuroof.compare(baseline=[base], current=[test])
    assert result.notes and result.notes == result.to_dict()["warnings"]
    warned = [str(w.message) for w in caught if issubclass(w.category, gpuroof.GpuroofWarning)]
    assert all(note in warned for note in result.notes)


def test_strict_returns_the_result_with_exit_code_1_in_every_call(tmp_path):
    lossy = lossy_copy(tmp_path)
    for name in ("api", "launches", "findings"):
        call = getattr(gpuroof, name)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", gpuroof.GpuroofWarning)
            plain = call(lossy)
            strict = call(lossy, strict=True)  # no CheckFailed: the result is kept
        assert plain.exit_code == 0 and strict.exit_code == 1, name
        assert strict.to_dict() == plain.to_dict(), name
        assert any("--strict: 2 record(s) could not be used" in n for n in strict.notes), name
        cli = run_cli(name, lossy, "--format", "json", "--strict", "--quiet")
        assert cli.returncode == 1, name  # the CLI's exit code for the same check
        [said] = [n for n in strict.notes if "--strict" in n]
        assert said in cli.stderr, (said, cli.stderr)  # in the CLI's words
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", gpuroof.GpuroofWarning)
            assert call(STREAMS4, strict=True).exit_code == 0, name  # nothing lost


def test_the_documented_engine_names_are_the_modules():
    """docs/python.md's "Raw ops" table lists the engine categories as the module names them
    (UVM_H2D, not "UVM H2D"), and ops(engine=...) takes each of them."""
    doc = (SOURCE_DIR / "docs" / "python.md").read_text()
    [row] = [line for line in doc.splitlines() if line.startswith("| `engine` | category |")]
    documented = re.findall(r"`([^`]+)`", row.split("|")[3].split("(")[0])
    trace = load_quietly(EXAMPLE)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gpuroof.GpuroofWarning)
        categories = list(trace.ops()["engine"].cat.categories)
        assert documented == categories
        for engine in documented:
            assert len(trace.ops(engine=engine)) >= 0
