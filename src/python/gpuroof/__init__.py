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
from ._results import Result, _flatten, _frame, pandas

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
    it. Raises InputError (ValueError for a path with a NUL byte). The GIL is released while
    reading; skipped records are reported as a GpuroofWarning.

    The file is named by its absolute path from here on (``Trace.absolute_path``): later reads
    read it whatever the working directory is then, and raise InputError if it changed since.

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

    path = property(lambda self: self._native.source,
                    doc="The path as given to load(); the file is read from ``absolute_path``")
    absolute_path = property(lambda self: self._native.absolute_path,
                             doc="The file's absolute path, made at load(): what every later "
                                 "read uses, whatever the working directory is then")
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
        # notes: the reader's messages of the trace it was computed from, then the analysis'
        # own; warn: those not already warned by an earlier read of this trace (load()).
        text, notes, warn = answer
        _warn_all(warn, stacklevel=4)
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
    """File paths from paths or loaded Traces. A Trace is read again by the command from its
    absolute path, after checking that the file is still the one loaded (InputError if not)."""
    if isinstance(paths, (str, bytes, _os.PathLike, Trace)):
        paths = [paths]
    out = []
    for p in paths:
        if isinstance(p, Trace):
            p._native.check_unchanged()
            out.append(p.absolute_path)
        else:
            out.append(_os.fsdecode(_os.fspath(p)))
    return out


def _run_cli(args, capture_stdout=False):
    """Runs the CLI command in-process: (exit code, stdout if captured, else "", messages). The
    messages are what the CLI would print on stderr, as notes (_message_notes): the command
    prints nothing, so each arrives once, as the caller's GpuroofWarning."""
    exit_code, text, messages = _gpuroof.run_cli(args, capture_stdout=capture_stdout)
    return exit_code, text, _message_notes(messages)


def _message_notes(text):
    """The CLI's stderr lines as notes: "gpuroof: warning: X" and "gpuroof: note: X" give X,
    "gpuroof: error: X" gives X, "gpuroof: check failed: X" stays "check failed: X"; a line
    that does not start with "gpuroof: " continues the note before it."""
    notes = []
    for line in text.splitlines():
        if not line.strip():
            continue
        if line.startswith("gpuroof: "):
            line = line[len("gpuroof: "):]
            for kind in ("warning: ", "note: ", "error: "):
                if line.startswith(kind):
                    line = line[len(kind):]
                    break
            notes.append(line)
        elif notes:
            notes[-1] += "\n" + line
        else:
            notes.append(line)
    return notes


def _merge_notes(notes, said):
    """`notes` (from a result's JSON) and then each of `said` (the CLI's messages) that is not
    among them: every message once."""
    merged = list(notes)
    for note in said:
        if note not in merged:
            merged.append(note)
    return merged


def _read_text(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def _skip_summary(diagnostics):
    """A JSON ``diagnostics`` object as the CLI words it (Diagnostics::Summary): "read N records,
    used M, skipped K (2 end before start in TABLE; ...)"."""
    line = (f"read {diagnostics.get('records_read')} records, used "
            f"{diagnostics.get('records_used')}, skipped {diagnostics.get('records_skipped')}")
    skips = "; ".join(f"{s.get('count')} {s.get('reason')} in {s.get('table')}"
                      for s in diagnostics.get("skipped") or [])
    return f"{line} ({skips})" if skips else line


def _report_notes(report):
    """What a CLI-backed call's JSON says besides its figures, worded as the CLI's stderr lines
    without their "gpuroof: warning:"/"gpuroof: note:" prefix: per input its skipped records
    (as Diagnostics::Summary) and the reader's notes; per result its window note and its
    ``notes`` (findings); the report's own ``warnings`` and ``notes`` (ranks, compare)."""
    notes = []
    if "results" in report:  # api, launches, findings: the inputs' diagnostics
        for entry in report.get("inputs") or []:
            if not isinstance(entry, dict):
                continue
            path = entry.get("path")
            diagnostics = entry.get("diagnostics") or {}
            if diagnostics.get("records_skipped"):
                notes.append(f"{path}: {_skip_summary(diagnostics)}")
            notes += [f"{path}: {note}" for note in diagnostics.get("notes") or []]
    for result in report.get("results") or []:
        trace = result.get("trace")
        window = result.get("window")
        if isinstance(window, dict) and window.get("note"):
            where = f"device {result['device']}: " if "device" in result else ""
            notes.append(f"{trace}: {where}{window['note']}")
        notes += [f"{trace}: {note}" for note in result.get("notes") or []
                  if isinstance(note, str)]
    for key in ("warnings", "notes"):
        value = report.get(key)
        if isinstance(value, list):
            notes += [str(note) for note in value]
    return notes


class CompareResult(Result):
    """`gpuroof compare`: ``mode``, ``verdict``, ``exit_code``, ``metrics`` (a DataFrame),
    ``to_markdown()``, ``to_dict()`` (gpuroof.compare/1), ``text`` (what the CLI prints),
    ``notes`` (the report's ``warnings``, also given as GpuroofWarning)."""

    def __init__(self, report, markdown, text, exit_code, mode="gate", verdict=None):
        super().__init__(report, _report_notes(report))
        self._markdown = markdown
        self.text = text
        self.exit_code = exit_code
        self.mode = mode
        self._verdict = verdict

    @property
    def verdict(self):
        return self._report.get("verdict", self._verdict)

    @property
    def tables(self):
        if self.mode != "gate":
            return []
        return ["metrics"]

    def table(self, name):
        if name not in self.tables:
            raise AttributeError(f"CompareResult has no table '{name}' (tables: {self.tables})")
        rows = [_flatten(row) for row in self._report.get(name) or []]
        return _frame(rows, "gpuroof.compare/1", name)

    def to_markdown(self):
        return self._markdown


def _compare_mode(profiles, baseline, current, epochs, calibrate):
    """The mode the CLI will run (src/cli/compare_command.cc): epochs, calibrate, job or gate."""
    if epochs is not None and epochs is not False and _text(epochs) != "":
        return "epochs"
    if calibrate:
        return "calibrate"
    pair = profiles if profiles and not baseline and not current else [*baseline, *current]
    if len(pair) == 2 and (profiles or (len(baseline) == 1 and len(current) == 1)) and all(
            _os.path.isdir(p) for p in pair):
        return "job"
    return "gate"


def _last_verdict(text, mode):
    """The verdict the CLI printed, for the modes without JSON: job ("verdict: PASS") and epochs
    ("PASS: ..."); None when it printed none (calibrate)."""
    for line in reversed(text.splitlines()):
        if mode == "job" and line.startswith("verdict: "):
            return line[len("verdict: "):].strip()
        if mode == "epochs" and line.split(":", 1)[0] in ("PASS", "FAIL"):
            return line.split(":", 1)[0]
    return None


def compare(baseline=None, current=None, iteration_range=None, profiles=None, epochs=None,
            calibrate=False, json=None, markdown=None, **options):  # noqa: A002 - CLI names
    """`gpuroof compare` in each of its modes (options as the CLI's, with _ for -):

    * the statistical gate: ``baseline=[...]``, ``current=[...]`` (or ``profiles=[BASE,
      CURRENT]``), also with ``history=``; ``to_dict()`` is gpuroof.compare/1;
    * the job-level compare: ``baseline`` and ``current`` one directory each;
    * simple mode: ``epochs=N`` with one baseline and one current profile (or ``profiles``);
    * A/A calibration: ``calibrate=True, profiles=[...]`` (two or more of the same code).

    The last three write no JSON (as the CLI): their result is ``text``, ``exit_code`` and, for
    the job-level and simple modes, the ``verdict`` the CLI printed. ``json=``/``markdown=``
    (gate only) also keep those files where given.
    """
    baseline = _paths(baseline) if baseline is not None else []
    current = _paths(current) if current is not None else []
    profiles = _paths(profiles) if profiles is not None else []
    mode = _compare_mode(profiles, baseline, current, epochs, calibrate)
    if mode in ("epochs", "calibrate"):
        if baseline or current:
            if profiles:
                raise InputError("compare: give profiles= or baseline=/current=, not both")
            if mode == "calibrate":
                raise InputError("compare: calibrate=True takes profiles=[...] (two or more "
                                 "profiles of the same code), not baseline=/current=")
            profiles = baseline + current  # --epochs BASE CURRENT
            baseline, current = [], []
    if mode != "gate":
        given = [name for name, value in (("json", json), ("markdown", markdown),
                                          ("html", options.get("html"))) if value]
        if given:
            what = {"epochs": "simple mode (epochs=)", "calibrate": "calibrate=True",
                    "job": "the job-level compare (directories)"}[mode]
            raise InputError(f"compare: {what} writes no {', '.join(given)} (only the "
                             "statistical gate does)")
    args = ["compare"]
    if baseline:
        args += ["--baseline", *baseline]
    if current:
        args += ["--current", *current]
    args += _option_args({"iteration_range": iteration_range, "epochs": epochs,
                          "calibrate": calibrate, **options})
    if profiles:
        args += ["--", *profiles]
    if mode != "gate":
        exit_code, text, said = _run_cli(args, capture_stdout=True)
        result = CompareResult({}, "", text, exit_code, mode, _last_verdict(text, mode))
        result.notes = said
        _warn_all(result.notes)
        return result
    with _tempfile.TemporaryDirectory(prefix="gpuroof-") as folder:
        json_path = _os.fspath(json) if json else _os.path.join(folder, "compare.json")
        markdown_path = _os.fspath(markdown) if markdown else _os.path.join(folder, "compare.md")
        for path in (json_path, markdown_path, options.get("html")):
            if path is not None and _os.fspath(path) == "-":
                raise InputError("compare: json=, markdown= and html= take a file path, not '-'")
        args[1:1] = ["--json", json_path, "--markdown", markdown_path]
        before = {p: _stamp(p) for p in (json_path, markdown_path)}
        exit_code, text, said = _run_cli(args, capture_stdout=True)
        written = [p for p in (json_path, markdown_path) if _stamp(p) not in (None, before[p])]
        if json_path not in written:
            # --history-append with no baseline seeds the history and compares nothing.
            result = CompareResult({}, "", text, exit_code, "gate")
            result.notes = said
            _warn_all(result.notes)
            return result
        report = _json.loads(_read_text(json_path))
        markdown_text = _read_text(markdown_path) if markdown_path in written else ""
    result = CompareResult(report, markdown_text, text, exit_code)
    result.notes = _merge_notes(result.notes, said)
    _warn_all(result.notes)
    return result


def _stamp(path):
    """(inode, size, mtime) of a file, or None: tells whether a run wrote it."""
    try:
        st = _os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


class Report:
    """`gpuroof report`: one self-contained HTML page; shows inline in Jupyter. ``html`` is the
    page; ``path`` is the file the CLI wrote it to when ``output=`` was given, else None;
    ``notes`` what the CLI says on stderr (also given as GpuroofWarning)."""

    def __init__(self, html, path=None, notes=()):
        self.html = html
        self.path = path
        self.notes = list(notes)

    def _repr_html_(self):
        return self.html

    def save(self, path):
        with open(_os.fspath(path), "w", encoding="utf-8") as f:
            f.write(self.html)
        return path


def report(traces, output=None, **options):
    """`gpuroof report TRACES [options]` (units=, units_from=, window=, gap_min=, top=, ...).
    ``output=PATH`` also keeps the page there (written atomically by the CLI, as its -o)."""
    paths = _paths(traces)
    if output is not None and _os.fspath(output) == "-":
        output = None  # stdout: the page is returned
    # quiet is this call's own (no warnings), not the CLI's: .notes is the same either way.
    quiet = options.pop("quiet", False)
    with _tempfile.TemporaryDirectory(prefix="gpuroof-") as folder:
        page = _os.fspath(output) if output is not None else _os.path.join(folder, "report.html")
        _, _, said = _run_cli(["report", *paths, *_option_args(options), "-o", page])
        html = _read_text(page)
    if not quiet:
        _warn_all(said)
    return Report(html, page if output is not None else None, said)


class CommandResult(Result):
    """A CLI command's JSON result (``to_dict()``) run in-process, with its ``exit_code`` (0; 1
    for ``findings`` when a ``fail_on`` rule fired) and ``notes``: what the JSON says besides
    the figures (skipped records, reader notes, window notes, the rules' notes, the report's
    warnings and notes), each also given as a GpuroofWarning."""

    def __init__(self, report, exit_code):
        super().__init__(report, _report_notes(report))
        self.exit_code = exit_code


def _strict_failures(report):
    """The CLI's --strict messages for the inputs of an api/launches/findings report that lost
    records (a skip whose severity is not "info"), one per input."""
    failures = []
    for entry in report.get("inputs") or []:
        diagnostics = (entry or {}).get("diagnostics") or {}
        skips = diagnostics.get("skipped") or []
        if not any(s.get("severity") != "info" and s.get("count") for s in skips):
            continue
        failures.append(f"{entry.get('path')}: --strict: {diagnostics.get('records_skipped')} "
                        f"record(s) could not be used ({_skip_summary(diagnostics)})")
    return failures


def _json_command(command, traces, options, result=CommandResult):
    """`gpuroof COMMAND TRACES --format json -o TMP [options]` in-process, as a CommandResult:
    the command writes its JSON to a file of this call's own, read back here.

    ``strict`` is one thing in every call (docs/python.md, "strict"): the result is returned,
    whole, and ``exit_code`` is 1 when a trace lost records (ranks: or was not analysed). The
    CLI's api/launches/findings --strict stop at the first such trace (an error, exit 1), so for
    them --strict is not passed: the lost records are found in the JSON's diagnostics."""
    options = dict(options)
    strict_here = command != "ranks" and options.get("strict")
    if strict_here:
        options["strict"] = False
    paths = _paths(traces)
    with _tempfile.TemporaryDirectory(prefix="gpuroof-") as folder:
        out = _os.path.join(folder, command + ".json")
        # quiet is this call's own (no warnings), not the CLI's: .notes is the same either way.
        cli_options = {key: value for key, value in options.items() if key != "quiet"}
        args = [command, *paths, "--format", "json", *_option_args(cli_options), "-o", out]
        exit_code, _, said = _run_cli(args)
        if not _os.path.exists(out):
            raise InputError(f"{command}: exit code {exit_code} and no result written")
        text = _read_text(out)
    answer = result(_json.loads(text), exit_code)
    # What the CLI said beside the JSON (ranks: the traces not analysed, the files left out).
    answer.notes = _merge_notes(answer.notes, said)
    if strict_here:
        failures = _strict_failures(answer._report)
        if failures:
            answer.notes += failures
            answer.exit_code = max(answer.exit_code, 1)
    if not options.get("quiet"):
        _warn_all(answer.notes, stacklevel=4)
    return answer


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
        return _frame([_flatten(row) for row in rows], "gpuroof.ranks/1", name)

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
