"""Every result's to_dict() is the CLI's --format json for the same options, on every fixture;
where the CLI refuses the input, the module raises InputError with the CLI's message."""

import warnings

import pytest

import gpuroof
from conftest import EXAMPLE, load_quietly, run_cli, shared_fixtures

# (CLI arguments, the same call on a gpuroof.Trace)
CASES = [
    (["analyze"], lambda t: t.analyze()),
    (["analyze", "--window", "all"], lambda t: t.analyze(window="all")),
    (["analyze", "--overlap"], lambda t: t.analyze(overlap=True)),
    (["analyze", "--by-stream"], lambda t: t.analyze(by_stream=True)),
    (["analyze", "--units", "100", "--unit-name", "step"],
     lambda t: t.analyze(units=100, unit_name="step")),
    (["kernels"], lambda t: t.kernels()),
    (["kernels", "--top", "3", "--key", "launch"], lambda t: t.kernels(key="launch", top=3)),
    (["copies"], lambda t: t.copies()),
    (["copies", "--contention"], lambda t: t.copies(contention=True)),
    (["gaps"], lambda t: t.gaps()),
    (["gaps", "--min", "10us"], lambda t: t.gaps(min="10us")),
    (["ranges"], lambda t: t.ranges()),
]
CASE_IDS = [" ".join(args) for args, _ in CASES]


def check_parity(path, args, call):
    cli = run_cli(*args, path, "--format", "json", "--quiet")
    trace = load_quietly(str(path))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gpuroof.GpuroofWarning)
        if cli.returncode != 0:
            assert cli.returncode == 2, cli.stderr
            with pytest.raises(gpuroof.InputError) as raised:
                call(trace)
            assert str(raised.value) == cli.error_line()
            return
        result = call(trace)
    assert result.to_dict() == cli.json()


@pytest.mark.parametrize("path", shared_fixtures())
@pytest.mark.parametrize("args,call", CASES, ids=CASE_IDS)
def test_to_dict_is_the_cli_json_on_shared_fixtures(path, args, call):
    check_parity(path, args, call)


@pytest.mark.parametrize("args,call", CASES, ids=CASE_IDS)
def test_to_dict_is_the_cli_json_on_the_bundled_example(args, call):
    check_parity(EXAMPLE, args, call)


def test_nvtx_window_and_units_from_match_the_cli():
    check_parity(EXAMPLE, ["analyze", "--units-from", "kernel:process_frame"],
                 lambda t: t.analyze(units_from="kernel:process_frame"))
