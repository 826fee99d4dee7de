"""Shared pieces of the Python module's tests: the built CLI binary, the fixtures, a CLI runner.

Run by ctest (tests/CMakeLists.txt) as `/usr/bin/python3 -m pytest` with PYTHONPATH at the built
package, GPUROOF_BINARY at the built CLI and GPUROOF_SHARED_FIXTURES_DIR at ../shared/fixtures.
"""

import json
import os
import pathlib
import subprocess
import sys
import warnings

import pytest

BINARY = os.environ.get("GPUROOF_BINARY", "gpuroof")
SOURCE_DIR = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = pathlib.Path(os.environ.get("GPUROOF_SHARED_FIXTURES_DIR",
                                       SOURCE_DIR.parent / "shared" / "fixtures"))
EXAMPLE = SOURCE_DIR / "examples" / "frame_pipeline.sqlite"


def shared_fixtures():
    """Every nsys export and Kineto trace in the shared folder; a loud skip when it is absent."""
    paths = sorted(FIXTURES.glob("nsys/*.sqlite")) + sorted(FIXTURES.glob("kineto/*.json.gz"))
    if not paths:
        sys.stderr.write(f"\nSKIPPED: shared fixtures not found in {FIXTURES}\n")
        return [pytest.param(None, marks=pytest.mark.skip(
            reason=f"shared fixtures not found in {FIXTURES}"))]
    return [pytest.param(p, id=p.name) for p in paths]


def kineto_pair():
    """The shared Kineto compare pair (HTA's base and test traces); a skip when they are absent."""
    base = FIXTURES / "kineto" / "hta_compare_base.json.gz"
    current = FIXTURES / "kineto" / "hta_compare_test.json.gz"
    if not base.exists() or not current.exists():
        pytest.skip(f"shared fixtures not found in {FIXTURES}")
    return base, current


class CliRun:
    def __init__(self, completed):
        self.returncode = completed.returncode
        self.stdout = completed.stdout
        self.stderr = completed.stderr

    def json(self):
        return json.loads(self.stdout)

    def error_line(self):
        """The message of the CLI's "gpuroof: error: MESSAGE" line."""
        for line in self.stderr.splitlines():
            if line.startswith("gpuroof: error: "):
                return line[len("gpuroof: error: "):]
        raise AssertionError(f"no error line in: {self.stderr}")


def run_cli(*args):
    completed = subprocess.run([BINARY, *map(str, args)], capture_output=True, text=True,
                               check=False)
    return CliRun(completed)


_loaded = {}


def load_quietly(path):
    """gpuroof.load, once per path for the whole session (fixtures are read many times)."""
    import gpuroof
    if path not in _loaded:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", gpuroof.GpuroofWarning)
            _loaded[path] = gpuroof.load(path)
    return _loaded[path]
