"""Shared fixtures: profiles loaded once per session; whole suites that belong to the slow loop."""

from pathlib import Path

import pytest

from roofline.hardware import load_hardware
from roofline.model import load_model


@pytest.fixture(scope="session")
def h100():
    return load_hardware("h100-sxm")


@pytest.fixture(scope="session")
def h200():
    return load_hardware("h200")


@pytest.fixture(scope="session")
def llama8b():
    return load_model("llama-3.1-8b")


@pytest.fixture(scope="session")
def deepseek_v3():
    return load_model("deepseek-v3")


# Suites that exercise input handling and tooling broadly (generated and hand-written bad inputs, profile
# editing through the CLI, fitting, the accuracy report): CI runs them, `pytest -m "not slow"` (the quick
# loop of the analytical core) does not.
SLOW_SUITES = {"test_fuzz.py", "test_bad_inputs.py", "test_editing.py", "test_fit.py", "test_measurements.py",
               "test_accuracy.py", "test_report.py", "test_findings.py", "test_plots.py"}


def pytest_collection_modifyitems(config, items):
    for item in items:
        if Path(str(item.fspath)).name in SLOW_SUITES:
            item.add_marker(pytest.mark.slow)
