"""gpuroof.api(), launches() and findings(): each result's to_dict() is the CLI's --format json
for the same options (on every shared fixture and the bundled example), the tables are
DataFrames with the documented columns, findings' fail_on gives the CLI's exit code, and bad
options raise InputError with the CLI's message."""

import numpy as np
import pandas as pd
import pytest

import gpuroof
from conftest import EXAMPLE, FIXTURES, run_cli, shared_fixtures
from test_cli_parity import check_parity

# (CLI arguments, the same call on a loaded gpuroof.Trace)
CASES = [
    (["api"], lambda t: gpuroof.api(t)),
    (["api", "--window", "processing"], lambda t: t.api(window="processing")),
    (["launches"], lambda t: gpuroof.launches(t)),
    (["launches", "--key", "demangled", "--per-launch"],
     lambda t: t.launches(key="demangled", per_launch=True)),
    (["findings"], lambda t: gpuroof.findings(t)),
    (["findings", "--window", "all", "--min-cost-pct", "0", "--gap-min", "10us"],
     lambda t: t.findings(window="all", min_cost_pct=0, gap_min="10us")),
]
CASE_IDS = [" ".join(args) for args, _ in CASES]

SAXPY = FIXTURES / "nsys" / "nsys2021_5_saxpy_rank0.sqlite"


@pytest.mark.parametrize("path", shared_fixtures() + [EXAMPLE])
@pytest.mark.parametrize("args,call", CASES, ids=CASE_IDS)
def test_to_dict_is_the_cli_json(path, args, call):
    check_parity(path, args, call)  # test_cli_parity.py's, on a loaded Trace


def saxpy():
    if not SAXPY.exists():
        pytest.skip(f"shared fixtures not found in {FIXTURES}")
    return SAXPY


def test_findings_table_is_sorted_by_cost_with_typed_columns():
    result = gpuroof.findings(saxpy(), window="all")
    assert result.schema == "gpuroof.findings/1"
    table = result.findings
    assert isinstance(table, pd.DataFrame)
    assert {"trace", "id", "title", "device", "cost_ns", "count", "evidence", "advice",
            "examples"} <= set(table.columns)
    assert table["cost_ns"].dtype == np.int64
    assert list(table["cost_ns"]) == sorted(table["cost_ns"], reverse=True)
    assert "sync-call" in set(table["id"])


def test_api_functions_table_matches_the_cli_counts():
    cli = run_cli("api", saxpy(), "--format", "json").json()
    functions = gpuroof.api(saxpy()).functions
    assert isinstance(functions, pd.DataFrame)
    expected = {row["function"]: row["calls"] for row in cli["results"][0]["functions"]}
    assert dict(zip(functions["function"], functions["calls"])) == expected
    assert functions["calls"].dtype == np.int64


def test_trace_methods_are_the_module_functions():
    path = saxpy()
    trace = gpuroof.load(path)
    assert trace.api().to_dict() == gpuroof.api(path).to_dict()
    assert trace.launches().to_dict() == gpuroof.launches(path).to_dict()
    assert trace.findings(window="all").to_dict() == gpuroof.findings(path,
                                                                     window="all").to_dict()


def test_fail_on_gives_the_cli_exit_code():
    cli = run_cli("findings", saxpy(), "--window", "all", "--fail-on", "sync-call,gpu-gap",
                  "--format", "json", "-q")
    assert cli.returncode == 1
    result = gpuroof.findings(saxpy(), window="all", fail_on=["sync-call", "gpu-gap"])
    assert result.exit_code == 1
    assert result.to_dict() == cli.json()
    assert gpuroof.findings(saxpy(), window="all", fail_on="low-occupancy").exit_code == 0


@pytest.mark.parametrize("args,call", [
    (["findings", "--fail-on", "nope"], lambda p: gpuroof.findings(p, fail_on="nope")),
    (["findings", "--gap-min", "0"], lambda p: gpuroof.findings(p, gap_min=0)),
    (["launches", "--key", "bogus"], lambda p: gpuroof.launches(p, key="bogus")),
    (["api", "--window", "nvtx:nope"], lambda p: gpuroof.api(p, window="nvtx:nope")),
], ids=["fail-on", "gap-min", "key", "window"])
def test_bad_options_raise_the_cli_message(args, call):
    cli = run_cli(*args, EXAMPLE)
    assert cli.returncode == 2
    with pytest.raises(gpuroof.InputError) as raised:
        call(EXAMPLE)
    assert str(raised.value) == cli.error_line()


def test_kineto_kernel_keys_are_short_names():
    """A Kineto kernel's name is its signature: kernels() and findings name kernels by the short
    name, template instances folded (docs/metrics.md, "Kernel summary"), as on nsys."""
    source = FIXTURES / "kineto" / "kineto_rn50_pt18.json.gz"
    if not source.exists():
        pytest.skip(f"shared fixtures not found in {FIXTURES}")
    trace = gpuroof.load(source)
    device = trace.kernels().to_dict()["results"][0]
    assert device["keys"] == 49  # 62 signatures
    names = {row["key"]: row["name"] for row in device["kernels"]}
    assert all(key == name and "(" not in key for key, name in names.items())
    assert "vectorized_elementwise_kernel" in names
    demangled = trace.kernels(key="demangled").to_dict()["results"][0]
    assert demangled["keys"] == 62
    assert all("(" not in row["name"] for row in demangled["kernels"])
    findings = gpuroof.findings(trace).to_dict()
    for result in findings["results"]:
        for finding in result["findings"]:
            assert "void at::" not in finding["evidence"]
            assert all("void at::" not in example["label"] for example in finding["examples"])
