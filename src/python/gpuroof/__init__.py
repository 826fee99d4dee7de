"""gpuroof from Python: the CLI's readers, analyses and reports on the same C++ library.

    import gpuroof
    trace = gpuroof.load("run.sqlite")          # or a Kineto .pt.trace.json(.gz)
    trace.analyze(units=2000).engines           # the `gpuroof analyze` engine table, a DataFrame
    trace.ops()                                 # every GPU op, columnar

Every result's ``to_dict()`` is exactly the CLI's ``--format json`` output for the same options
(docs/python.md). Bad input raises InputError (a ValueError) with the CLI's one-line message;
what the CLI prints as warnings and notes on stderr arrives as Python warnings.
"""

import json as _json
import os as _os
import tempfile as _tempfile
import warnings as _warnings

from . import _gpuroof
from ._results import Result, _flatten, _frame, _is_table, pandas

__version__ = _gpuroof.__version__
InputError = _gpuroof.InputError
CheckFailed = _gpuroof.CheckFailed

__all__ = ["load", "compare", "report", "api", "launches", "findings", "ranks", "Trace", "Result",
           "CompareResult", "CommandResult", "RanksResult", "Report", "InputError", "CheckFailed",
           "GpuroofWarning"]


class GpuroofWarning(UserWarning):
    """Skipped records (the CLI's "gpuroof: warning:") and notes ("gpuroof: note:")."""


def _warn_all(notes, stacklevel=3):
    """Each note as a GpuroofWarning, attributed to the user's call (stacklevel)."""
    for note in notes:
        _warnings.warn(note, GpuroofWarning, stacklevel=stacklevel)


def _text(value):
    return "" if value is None else str(value)


def load(path, threads=0):
    """Reads a trace file (nsys .sqlite/.nsys-rep, Kineto JSON, ...) as `gpuroof analyze` reads
    it. Raises InputError. The GIL is released while reading; skipped records are reported as a
    GpuroofWarning.

    The other methods read the file again, once each, when their CLI command reads more (the
    kernels' full names, the CUDA API calls for NVTX ranges): so each result is the CLI's own,
    diagnostics included, and what was read is kept for the next call.
    """
    native, warnings = _gpuroof.open(_os.fspath(path), threads)
    _warn_all(warnings)
    return Trace(native)


class Trace:
    """A loaded trace; each method is the CLI command of the same name on this one trace.
    ``devices``, ``streams``, ``metadata`` and ``diagnostics`` are those of the first read."""

    def __init__(self, native):
        self._native = native

    path = property(lambda self: self._native.source)
    format = property(lambda self: self._native.format)
    metadata = property(lambda self: dict(self._native.metadata))
    devices = property(lambda self: self._native.devices, doc="[{'id', 'name'}] as the file lists them")
    streams = property(lambda self: self._native.streams,
                       doc="[{'process_id', 'device', 'context', 'stream'}]")

    @property
    def diagnostics(self):
        """The JSON reports' "diagnostics" object: records read/used/skipped, skips, notes."""
        return _json.loads(self._native.diagnostics_json)

    def __len__(self):
        return self._native.activity_count

    def __repr__(self):
        return f"<gpuroof.Trace {self.path!r} {self.format}, {len(self)} activities>"

    def _result(self, answer):
        text, notes = answer
        _warn_all(notes, stacklevel=4)
        return Result(_json.loads(text), notes)

    def analyze(self, window="processing", units=None, units_from=None, overlap=False,
                by_stream=False, unit_name="frame", attribute=None):
        """`gpuroof analyze`: per-engine busy time, duty, roofline. Tables: engines, headroom,
        overlaps (with overlap=True)."""
        return self._result(self._native.analyze(
            window=window, units=_text(units), unit_name=unit_name, units_from=_text(units_from),
            overlap=overlap, by_stream=by_stream, attribute=_text(attribute)))

    def kernels(self, key="name", top=None, window="processing", attribute=None):
        """`gpuroof kernels`: per-kernel statistics. Table: kernels."""
        return self._result(self._native.kernels(key=key, top=_text(top), window=window,
                                                 attribute=_text(attribute)))

    def copies(self, contention=False, window="processing", attribute=None):
        """`gpuroof copies [--contention]`. Table: copies (or directions with contention)."""
        return self._result(self._native.copies(window=window, contention=contention,
                                                attribute=_text(attribute)))

    def gaps(self, min="1ms"):  # noqa: A002 - the CLI's option name
        """`gpuroof gaps --min`: idle stretches of the GPU. Table: gaps."""
        return self._result(self._native.gaps(min=_text(min)))

    def ranges(self, name=None, attribute=None):
        """`gpuroof ranges [--name]`: NVTX ranges and their GPU work. Table: ranges."""
        return self._result(self._native.ranges(name=_text(name), attribute=_text(attribute)))

    def ops(self, engine=None, correlation=False):
        """Every GPU activity, columnar (docs/python.md, "Raw ops"): start_ns, end_ns, device,
        stream, engine, bytes, name, and with ``correlation=True`` the launch correlation ids
        (which read the file once more, with full detail; without, nothing more is read).

        A DataFrame with pandas (engine and name categorical), else a dict of NumPy arrays with
        ``engine``/``name`` as codes into ``engine_categories``/``name_categories``.
        """
        columns, warnings = self._native.ops(engine=engine, correlation=correlation)
        _warn_all(warnings)
        pd = pandas()
        if pd is None:
            return columns
        engines = columns.pop("engine_categories")
        names = columns.pop("name_categories")
        columns["engine"] = pd.Categorical.from_codes(columns["engine"], engines)
        columns["name"] = pd.Categorical.from_codes(columns["name"], names)
        return pd.DataFrame(columns, copy=False)

    def api(self, **options):
        """`gpuroof api` on this trace's file: gpuroof.api(trace, ...)."""
        return api(self, **options)

    def launches(self, **options):
        """`gpuroof launches` on this trace's file: gpuroof.launches(trace, ...)."""
        return launches(self, **options)

    def findings(self, **options):
        """`gpuroof findings` on this trace's file: gpuroof.findings(trace, ...)."""
        return findings(self, **options)


def _option_args(options):
    """{'kernel_key': 'name', 'gate_copies': True} -> ['--kernel-key', 'name', '--gate-copies']"""
    args = []
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            args.append(flag)
        elif isinstance(value, (list, tuple)):
            for item in value:
                args += [flag, _text(item)]
        else:
            args += [flag, _text(value)]
    return args


def _paths(paths):
    """File paths from paths or loaded Traces (which are read again by the command)."""
    if isinstance(paths, (str, _os.PathLike, Trace)):
        paths = [paths]
    return [p.path if isinstance(p, Trace) else _os.fspath(p) for p in paths]


class CompareResult(Result):
    """`gpuroof compare`: ``verdict``, ``exit_code``, ``metrics`` (a DataFrame),
    ``to_markdown()``, ``to_dict()`` (gpuroof.compare/1), ``text`` (the CLI's table)."""

    def __init__(self, report, markdown, text, exit_code):
        super().__init__(report)
        self._markdown = markdown
        self.text = text
        self.exit_code = exit_code

    verdict = property(lambda self: self._report.get("verdict"))

    @property
    def tables(self):
        return [k for k, v in self._report.items() if v and _is_table(v)]

    def table(self, name):
        return _frame([_flatten(row) for row in self._report.get(name) or []])

    def to_markdown(self):
        return self._markdown


def compare(baseline, current, iteration_range=None, **options):
    """`gpuroof compare --baseline ... --current ...` (options as the CLI's, with _ for -)."""
    with _tempfile.TemporaryDirectory(prefix="gpuroof-") as folder:
        json_path = _os.path.join(folder, "compare.json")
        markdown_path = _os.path.join(folder, "compare.md")
        args = ["compare", "--baseline", *_paths(baseline), "--current", *_paths(current),
                "--json", json_path, "--markdown", markdown_path]
        args += _option_args({"iteration_range": iteration_range, **options})
        exit_code, text = _gpuroof.run_cli(args)
        if not _os.path.exists(json_path):  # refused without an error line (not seen so far)
            raise InputError(f"compare: exit code {exit_code}, no result: {text.strip()}")
        with open(json_path, encoding="utf-8") as f:
            report = _json.load(f)
        with open(markdown_path, encoding="utf-8") as f:
            markdown = f.read()
    return CompareResult(report, markdown, text, exit_code)


class Report:
    """`gpuroof report`: one self-contained HTML page; shows inline in Jupyter."""

    def __init__(self, html):
        self.html = html

    def _repr_html_(self):
        return self.html

    def save(self, path):
        with open(_os.fspath(path), "w", encoding="utf-8") as f:
            f.write(self.html)
        return path


def report(traces, **options):
    """`gpuroof report TRACES [options]` (units=, units_from=, window=, gap_min=, top=, ...)."""
    _, html = _gpuroof.run_cli(["report", *_paths(traces), *_option_args(options)])
    return Report(html)


class CommandResult(Result):
    """A CLI command's JSON result (``to_dict()``) run in-process, with its ``exit_code`` (0; 1
    for ``findings`` when a ``fail_on`` rule fired)."""

    def __init__(self, report, exit_code):
        super().__init__(report)
        self.exit_code = exit_code


def _json_command(command, traces, options, result=CommandResult):
    """`gpuroof COMMAND TRACES --format json [options]` in-process, as a CommandResult."""
    args = [command, *_paths(traces), "--format", "json", *_option_args(options)]
    exit_code, text = _gpuroof.run_cli(args)
    return result(_json.loads(text), exit_code)


def api(traces, window=None, threads=None, strict=False, quiet=False):
    """`gpuroof api`: per CUDA runtime/driver function, count and time (nsys cuda_api_sum).
    Table: functions. ``window`` as the CLI's (default ``all``: every call)."""
    return _json_command("api", traces, {"window": window, "threads": threads,
                                         "strict": strict, "quiet": quiet})


def launches(traces, key=None, per_launch=False, window=None, threads=None, strict=False,
             quiet=False):
    """`gpuroof launches`: per kernel key, launch overhead, queue time and launch-to-start
    latency. Table: kernels (per key), or records (per launch) with ``per_launch=True``."""
    return _json_command("launches", traces, {
        "key": key, "per_launch": per_launch, "window": window, "threads": threads,
        "strict": strict, "quiet": quiet})


def findings(traces, window=None, min_cost_pct=None, gap_min=None, launch_bound_share=None,
             launch_bound_min=None, low_occupancy=None, fail_on=None, iteration_range=None,
             threads=None, strict=False, quiet=False):
    """`gpuroof findings`: what to fix, costliest first (docs/findings.md). Table: findings
    (id, title, device, cost_ns, count, evidence, advice, examples, ...). ``fail_on`` (a rule id
    or a list of them) sets ``exit_code`` to 1 when one fires, as the CLI's --fail-on."""
    if isinstance(fail_on, str):
        fail_on = [fail_on]
    return _json_command("findings", traces, {
        "window": window, "min_cost_pct": min_cost_pct, "gap_min": gap_min,
        "launch_bound_share": launch_bound_share, "launch_bound_min": launch_bound_min,
        "low_occupancy": low_occupancy, "fail_on": fail_on, "iteration_range": iteration_range,
        "threads": threads, "strict": strict, "quiet": quiet})


class RanksResult(CommandResult):
    """`gpuroof ranks`: the job's ranks side by side (gpuroof.ranks/1). Tables: ``ranks`` (one
    row per rank), ``outliers``, ``stragglers`` and ``collectives`` (one row per collective
    instance matched across ranks); ``world_size`` and ``failed`` (the traces not analysed)."""

    _TABLES = ("ranks", "outliers", "stragglers", "collectives")

    @property
    def tables(self):
        return list(self._TABLES)

    def table(self, name):
        if name == "collectives":
            rows = (self._report.get("collectives") or {}).get("instances") or []
        elif name in self._TABLES:
            rows = self._report.get(name) or []
        else:
            raise AttributeError(f"RanksResult has no table '{name}' (tables: {self.tables})")
        return _frame([_flatten(row) for row in rows])

    world_size = property(lambda self: self._report.get("world_size"))
    failed = property(lambda self: list(self._report.get("failed") or []))


def ranks(traces, iteration_range=None, jobs=None, strict=False, quiet=False):
    """`gpuroof ranks`: the traces of one distributed job (files, or directories searched
    recursively) compared rank by rank: step time, compute, communication hidden and exposed,
    idle breakdown, stragglers and collective skew (docs/metrics.md, "Ranks"). ``strict``: a
    trace not analysed, or with records lost, sets ``exit_code`` to 1, as the CLI's --strict."""
    return _json_command("ranks", traces, {
        "iteration_range": iteration_range, "jobs": jobs, "strict": strict, "quiet": quiet},
        RanksResult)
