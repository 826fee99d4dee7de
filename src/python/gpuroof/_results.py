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


def _frame(rows):
    pd = pandas()
    if pd is None:
        return rows
    return pd.DataFrame.from_records(rows) if rows else pd.DataFrame()


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
        """Names of the tables this result has (attributes that give DataFrames)."""
        names = []
        for result in self._report.get("results", []):
            for key, value in result.items():
                if value and _is_table(value) and key not in names:
                    names.append(key)
        return names

    @property
    def results(self):
        rows = [
            _flatten({k: v for k, v in r.items() if not (v and _is_table(v))})
            for r in self._report.get("results", [])
        ]
        return _frame(rows)

    def table(self, name):
        rows = []
        for result in self._report.get("results", []):
            lead = _flatten({k: result[k] for k in _ROW_KEYS if k in result})
            for row in result.get(name) or []:
                rows.append({**lead, **_flatten(row)})
        return _frame(rows)

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
