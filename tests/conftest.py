"""Shared fixtures: profiles loaded once per session."""

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
