"""Shared fixtures: run the CLI in-process with strict failure output, and the golden-file switch."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

import pytest
from click.testing import CliRunner, Result

from jobschema.cli import main
from jobschema.secrets.mask import KEY_VARIABLE, use_mask_key

#: The mask key of the whole suite (and of the README's examples, which tests/test_docs.py runs):
#: masks are keyed hashes, byte-stable only under one key. Set here, before anything is masked, and
#: for the subprocesses the tests start.
MASK_KEY = "jobschema-example"
os.environ[KEY_VARIABLE] = MASK_KEY
use_mask_key(None)


def _draws_independent_of_loaded_modules() -> None:
    """Hypothesis mixes constants from the source of every local module loaded so far into its draws,
    so a derandomized test would draw other values whenever another test file imported one more
    module. The suite's draws must not depend on test order: no local constants (hypothesis is
    pinned exactly in the test extra, so this private hook is known)."""
    from hypothesis.internal.conjecture import providers

    none = providers.Constants(
        integers=providers.SortedSet(),
        floats=providers.SortedSet(key=providers.float_to_int),
        bytes=providers.SortedSet(),
        strings=providers.SortedSet(),
    )
    providers._get_local_constants = lambda: none


_draws_independent_of_loaded_modules()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        help="Rewrite the golden files under tests/golden/ from the current output instead of comparing.",
    )


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))


RunCli = Callable[..., Result]


@pytest.fixture
def run_cli() -> RunCli:
    """Invoke ``jobschema ARGS``; assert the exit code when ``code`` is given, showing both streams."""

    def run(args: Sequence[str], code: int | None = None, input: str | bytes | None = None) -> Result:
        result = CliRunner().invoke(main, list(args), input=input, catch_exceptions=False)
        if code is not None:
            assert result.exit_code == code, (
                f"exit code {result.exit_code}, expected {code}\n"
                f"--- stdout ---\n{result.stdout}\n--- stderr ---\n{result.stderr}"
            )
        return result

    return run
