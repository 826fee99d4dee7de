"""Result objects: the CLI's JSON report as a dict, and its tables as DataFrames.

Nothing here computes a figure. A result holds exactly what ``gpuroof <command> --format json``
prints (docs/formats.md); its tables are the lists of rows inside ``results``, one DataFrame per
list, so a new column in the CLI's JSON appears here with no change.
"""

import copy

import importlib.util

_pandas = None


def pandas():
    """pandas when it is importable (imported on first use: it takes longer than a small
    trace's analysis), else None."""
    global _pandas
    if _pandas is None:
        _pandas = importlib.import_module("pandas") if importlib.util.find_spec("pandas") else False
    return _pandas or None

# The keys that say which trace, device (and, per stream, which stream) a result is about; they
# lead every table's rows.
_ROW_KEYS = ("trace", "device", "device_name", "stream")


def _flatten(row, prefix=""):
    """{"window": {"start_ns": 1}} -> {"window.start_ns": 1}; lists stay as they are."""
    flat = {}
    for key, value in row.items():
        if isinstance(value, dict):
            flat.update(_flatten(value, prefix + key + "."))
        else:
            flat[prefix + key] = value
    return flat


def _is_table(value):
    return isinstance(value, list) and all(isinstance(v, dict) for v in value)


# Each table's declared columns (docs/python.md, "Columns and dtypes"): the JSON writers' own
# types, not what one trace's values happen to be. A table without rows still gets its columns,
# and a column's dtype does not depend on whether it holds nulls:
#   i  int64 (Int64, pandas' nullable integer, when the column holds a null)
#   I  Int64 always (a column that is null where the figure does not exist)
#   f  float64 (NaN where the JSON has null)
#   o  object (text, lists; None where the JSON has null)
#   b  bool (object when it holds a null)
# A leading "?" marks a column only some options write (per stream, overlap, steps): a table
# without rows leaves it out. Columns not listed (a newer CLI's) are typed by their values.
_LEAD = "trace:o device:i device_name:o"
_WINDOW = ("window.policy:o window.spec:o window.start_ns:i window.end_ns:i window.length_ns:i "
           "window.note:o ?window.range:o")
_STREAM = "?stream.stream_id:I ?stream.context_id:I ?stream.process_id:I ?stream.label:o"
_DURATION = ("total_ns:i mean_ns:f median_ns:f min_ns:i max_ns:i stddev_ns:f p95_ns:f "
             "p99_ns:f")
_SIDE = "{0}.n:I {0}.median:f {0}.iqr_rel:f"
_DECLARED = {
    "gpuroof.analyze/1": {
        "engines": f"{_LEAD} {_STREAM} engine:o ops:i sum_ns:i busy_ns:i overlap:f duty_pct:f "
                   "busy_us_per_unit:f bytes:i op_time_ns:i bandwidth_gbps:f "
                   "zero_duration_ops:i zero_duration_bytes:i",
        "headroom": f"{_LEAD} {_STREAM} engine:o gap_us_per_unit:f factor:f",
        "results": f"{_LEAD} {_STREAM} {_WINDOW} unit_name:o units_note:o units:I "
                   "window_us_per_unit:f window_units_per_s:f outside_window.ops:i "
                   "outside_window.busy_ns:i outside_window.in_span_ops:i any.ops:i "
                   "any.busy_ns:i any.duty_pct:f any.busy_us_per_unit:f bottleneck.engine:o "
                   "bottleneck.busy_ns:I bottleneck.roofline_us_per_unit:f "
                   "bottleneck.roofline_units_per_s:f reading:o ?overlap.engines:o "
                   "?overlap.intersection_ns:o ?overlap.idle_ns:i ?overlap.comm_hidden_ns:i "
                   "?overlap.comm_exposed_ns:i ?overlap.other_ops_in_window:i "
                   "?overlap.other_ops_busy_ns:i ?overlap.idle_all_ops_ns:i",
    },
    "gpuroof.kernels/1": {
        "kernels": f"{_LEAD} key:o name:o engine:o instances:i {_DURATION} sum_share_pct:f "
                   "busy_share_pct:f ?grid:o ?block:o",
        "results": f"{_LEAD} {_WINDOW} kernel_ops:i kernel_sum_ns:i kernel_busy_ns:i comm_ops:i "
                   "comm_sum_ns:i comm_busy_ns:i graph_ops:i graph_sum_ns:i graph_busy_ns:i "
                   "keys:i ?omitted.keys:i ?omitted.instances:i ?omitted.total_ns:i",
    },
    "gpuroof.copies/1": {
        "copies": f"{_LEAD} copy:o engine:o src_kind:o dst_kind:o count:i bytes:i total_ns:i "
                  "op_time_ns:i median_ns:f bandwidth_gbps:f median_bandwidth_gbps:f "
                  "pageable:b",
        "results": f"{_LEAD} {_WINDOW} pageable.count:i pageable.bytes:i "
                   "pageable.op_time_ns:i pageable.warning:o zero_duration.count:i "
                   "zero_duration.bytes:i zero_duration.notes:o",
    },
    # Bytes split between the opposite direction's busy and idle time in proportion to each
    # copy's time (docs/metrics.md, "Copy contention"): fractional, so float64.
    "gpuroof.contention/2": {
        "directions": f"{_LEAD} copy:o opposite:o ops:i time_ns:i bytes:f opposite_busy_ns:i "
                      "opposite_busy_bytes:f opposite_busy_gbps:f opposite_idle_ns:i "
                      "opposite_idle_bytes:f opposite_idle_gbps:f busy_share_pct:f loss_pct:f "
                      "reading:o",
        "results": f"{_LEAD} {_WINDOW} zero_time_copies:i zero_time_bytes:i",
    },
    "gpuroof.gaps/2": {
        "gaps": f"{_LEAD} start_ns:i duration_ns:i before_engine:o before:o before_stream:i "
                "after_engine:o after:o after_stream:i",
        "results": f"{_LEAD} span.start_ns:i span.end_ns:i span.length_ns:i gap_count:i "
                   "gap_total_ns:i gap_share_pct:f",
    },
    "gpuroof.ranges/1": {
        "ranges": "trace:o name:o side:o method:o scope:o other_thread_ops:i "
                  "overlapping_instances:i launches_without_gpu_op:i instances:i "
                  + " ".join("duration." + c for c in _DURATION.split())
                  + " gpu_ops:i instances_with_gpu_work:i engines:o bottleneck:o "
                    "roofline_ns_per_instance:f",
        "results": "trace:o method:o method_note:o unmatched_ops:i ?range:o",
    },
    "gpuroof.api/1": {
        "functions": "trace:o function:o calls:i total_ns:i time_share_pct:f mean_ns:f "
                     "median_ns:f p95_ns:f min_ns:i max_ns:i stddev_ns:f",
        "results": "trace:o window.policy:o window.start_ns:I window.end_ns:I calls:i "
                   "total_ns:i outside_calls:i scalar_reads:i window.note:o ?window.range:o",
    },
    "gpuroof.launches/1": {
        "kernels": f"{_LEAD} kernel:o engine:o launches:i overhead_total_ns:i "
                   "overhead_median_ns:f overhead_p95_ns:f overhead_max_ns:i queued:i "
                   "queue_median_ns:f queue_p95_ns:f queue_max_ns:i latency_median_ns:f "
                   "latency_p95_ns:f latency_max_ns:i kernel_median_ns:f "
                   "shorter_than_overhead:i",
        # The queue cells are null where the kernel did not wait after its call returned.
        "records": f"{_LEAD} api_start_ns:i api_dur_ns:i queue_start_ns:I queue_dur_ns:I "
                   "kernel_start_ns:i kernel_dur_ns:i total_dur_ns:i api_function:o kernel:o",
        "results": f"{_LEAD} {_WINDOW} launches:i unmatched:i shared_call_kernels:i "
                   "shared_calls:i graph_launches:i graph_sum_ns:i outside_kernels:i "
                   "early_starts:i",
    },
    "gpuroof.findings/1": {
        # cost_per_step_ns is a mean over steps (a double), null without steps; the steps.*
        # columns are declared always (null without steps), so code reads them on any trace.
        "findings": "trace:o id:o title:o device:i cost_ns:i count:i cost_per_step_ns:f "
                    "steps.label:o steps.count:I steps.with_cost:I steps.first:I "
                    "steps.last:I steps.worst:I steps.first_number:I steps.last_number:I "
                    "steps.worst_number:I steps.worst_cost_ns:I steps.outside_ns:I "
                    "evidence:o advice:o examples:o",
        "results": "trace:o below_min_cost:i steps:o notes:o",
        # Each device's window (docs/formats.md), a table of its own as analyze's results are.
        "windows": f"trace:o device:i {_WINDOW} ?window.counts:o",
    },
    "gpuroof.ranks/1": {
        "ranks": "rank:i rank_from:o format:o device:i device_name:o other_device_ops:i steps:i "
                 "steps_label:o ops_outside_steps:i busy_outside_steps_ns:i records_lost:i "
                 "step_median_ns:f step_p95_ns:f compute_busy_ns:f comm_busy_ns:f "
                 "comm_hidden_ns:f comm_exposed_ns:f copy_busy_ns:f idle_ns:f "
                 "idle_host_bound_ns:f idle_waiting_ns:f idle_other_ns:f "
                 "last_at_collectives:i straggler:o trace:o",
        "outliers": "rank:i metric:o value_ns:f median_ns:f mad_ns:f excess_pct:f robust_z:f "
                    "reading:o",
        "stragglers": "rank:i cause:o summary:o",
        "collectives": "step:i order:i spread_ns:i earliest_arrival_ns:i latest_arrival_ns:i "
                       "last_rank:I name:o",
    },
    "gpuroof.compare/1": {
        "metrics": "id:o level:o name:o unit:o gated:b below_impact:b "
                   + _SIDE.format("baseline") + " " + _SIDE.format("current")
                   + " ratio.estimate:f ratio.ci:o ratio.ci_level:f ratio.method:o "
                     "?median_ratio.estimate:f ?median_ratio.ci:o ?median_ratio.method:o "
                     "test:o p_value:f p_adjusted:f run_mwu_p:f share:f time_ratio:f impact:f "
                     "mde:f delta:f delta_ci:o delta_of_iteration:f floor:f verdict:o "
                     "low_n_over_threshold:b ?warmup.baseline.dropped:I "
                     "?warmup.baseline.of:I ?warmup.baseline.no_steady_state:I "
                     "?warmup.current.dropped:I ?warmup.current.of:I "
                     "?warmup.current.no_steady_state:I",
    },
}


def _declared(schema, table):
    """[(column, type code, optional)] of a table, or None when it is not declared."""
    spec = _DECLARED.get(schema, {}).get(table)
    if spec is None:
        return None
    columns = []
    for item in spec.split():
        name, code = item.rsplit(":", 1)
        columns.append((name.lstrip("?"), code, name.startswith("?")))
    return columns


def declared_tables(schema):
    """The tables `schema` declares (besides "results"), in order."""
    return [name for name in _DECLARED.get(schema, {}) if name != "results"]


_DTYPES = {"i": "int64", "I": "Int64", "f": "float64", "o": "object", "b": "bool"}


def _inferred_code(values):
    """The type code of a column not declared, from its values."""
    present = [v for v in values if v is not None]
    if any(isinstance(v, float) for v in present) and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in present):
        return "f"
    if present and all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        return "i"
    if present and all(isinstance(v, bool) for v in present):
        return "b"
    return "o"


def _conforms(values, code):
    """Whether every non-null value fits the type code (else the values' own type is used: a
    declaration never costs a value its precision)."""
    present = [v for v in values if v is not None]
    if code in ("i", "I"):
        return all(isinstance(v, int) and not isinstance(v, bool) for v in present)
    if code == "f":
        return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present)
    if code == "b":
        return all(isinstance(v, bool) for v in present)
    return True


def _typed(pd, values, code):
    """A column of `values` (Python objects, None for null) with the dtype of its type code."""
    import numpy as np  # with pandas, NumPy is there
    if not _conforms(values, code):
        code = _inferred_code(values)
    has_null = any(v is None for v in values)
    if code == "i" and has_null:
        code = "I"
    if code == "b" and has_null:
        code = "o"
    if code == "f":
        return np.array([np.nan if v is None else v for v in values], dtype=np.float64)
    if code == "I":
        return pd.array(values, dtype="Int64")
    if code == "i":
        return np.array(values, dtype=np.int64)
    if code == "b":
        return np.array(values, dtype=bool)
    array = np.empty(len(values), dtype=object)
    for i, v in enumerate(values):
        array[i] = v  # lists stay lists
    return array


def _frame(rows, schema=None, table=None):
    """A DataFrame of flattened `rows` with the table's declared columns and dtypes (a list of
    dicts without pandas). With no rows, the declared columns (those every run writes), empty.
    A nested object that is null in some rows (``steps``) gives its declared ``steps.*``
    columns, null there, rather than a column of its own."""
    pd = pandas()
    if pd is None:
        return rows
    declared = _declared(schema, table) or []
    codes = {name: code for name, code, _ in declared}
    present = []
    for row in rows:
        for key in row:
            if key not in present:
                present.append(key)
    if rows:
        nested = {name.split(".", 1)[0] for name in codes if "." in name}
        nested |= {key.split(".", 1)[0] for key in present if "." in key}
        extra = [key for key in present if key not in codes and not (
            key in nested and all(row.get(key) is None for row in rows))]
        # Declared order: the columns every run writes, those of the options this run had.
        names = [name for name, _, optional in declared
                 if not optional or name in present] + extra
    else:
        names = [name for name, _, optional in declared if not optional]
    columns = {}
    for name in names:
        values = [row.get(name) for row in rows]
        code = codes.get(name) or _inferred_code(values)
        columns[name] = _typed(pd, values, code)
    return pd.DataFrame(columns, columns=names, index=pd.RangeIndex(len(rows)))


class Result:
    """One command's result: ``to_dict()`` is the CLI's JSON; tables are attributes.

    ``result.results`` has one row per device (or trace) with the scalar fields, nested objects
    flattened as ``window.start_ns``; ``result.<name>`` is every list of rows named ``<name>`` in
    the per-device results (``engines``, ``kernels``, ``copies``, ``gaps``, ``ranges``, ...), each
    row led by the ``trace``/``device``/``device_name`` of its result.
    """

    def __init__(self, report, notes=()):
        self._report = report
        self.notes = list(notes)

    def to_dict(self):
        return copy.deepcopy(self._report)

    @property
    def schema(self):
        return self._report.get("schema")

    @property
    def tables(self):
        """Names of the tables this result has (attributes that give DataFrames): those its
        schema declares that its results hold, even without rows (all of them when there is no
        result at all), then any other list of rows in its results."""
        results = self._report.get("results", [])
        names = [name for name in declared_tables(self.schema)
                 if not results or any(name in result for result in results)]
        for result in results:
            for key, value in result.items():
                if value and _is_table(value) and key not in names:
                    names.append(key)
        return names

    @property
    def results(self):
        tables = set(self.tables)
        rows = [
            _flatten({k: v for k, v in r.items() if not (k in tables or (v and _is_table(v)))})
            for r in self._report.get("results", [])
        ]
        return _frame(rows, self.schema, "results")

    def table(self, name):
        if name not in self.tables:
            raise AttributeError(f"{type(self).__name__} has no table '{name}' "
                                 f"(tables: {self.tables})")
        rows = []
        for result in self._report.get("results", []):
            lead = _flatten({k: result[k] for k in _ROW_KEYS if k in result})
            for row in result.get(name) or []:
                rows.append({**lead, **_flatten(row)})
        return _frame(rows, self.schema, name)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        if name in self.tables:
            return self.table(name)
        raise AttributeError(f"{type(self).__name__} has no table '{name}' (tables: {self.tables})")

    def __repr__(self):
        return f"<gpuroof result {self.schema}: tables {', '.join(self.tables) or 'none'}>"

    def _repr_html_(self):
        if pandas() is None:
            return None
        parts = [f"<p><b>{self.schema}</b></p>"]
        for name in self.tables:
            parts.append(f"<p>{name}</p>" + self.table(name)._repr_html_())
        return "".join(parts)
