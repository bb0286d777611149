"""Bounds (limits.py) said with their documented numbers, found by mutation testing (qa476): each bound a user can reach is said with its true number, the one the
docs give (docs/PROFILES.md: batch 1..1e8, context 0..1e9, k 0..64, parallel degrees 1..4096, prompt 1..1e9) or the
option's help; a test that reads the constant back (BATCH_MAX) passes whatever the constant is, so these spell it."""

import pytest

pytestmark = pytest.mark.slow  # CLI runs and sweeps: 20-700 ms a test


@pytest.mark.parametrize("args, said", [
    (("predict", "--batch", "100000001"), "--batch: expected a whole number from 1 to 100,000,000, found '100000001'"),
    (("predict", "--context", "1000000001"), "--context: expected a whole number from 0 to 1,000,000,000, found '1000000001'"),
    (("predict", "--method", "eagle", "--k", "65"), "--k: expected a whole number from 0 to 64, found '65'"),
    (("predict", "--tp", "4097"), "--tp: expected a whole number from 1 to 4,096, found '4097'"),
    (("predict", "--method", "eagle", "--tree-nodes", "4097"), "--tree-nodes: expected a whole number from 1 to 4,096, found '4097'"),
    (("predict", "--method", "eagle", "--draft-vocab", "10000001"),
     "--draft-vocab: expected a whole number from 1 to 10,000,000, found '10000001'"),
    (("cheapest", "x.csv", "--min-tokens-per-user", "3", "--users", "1000000001"),
     "--users: expected a whole number from 1 to 1,000,000,000, found '1000000001'"),
    (("measurements", "convert", "x.json", "--hardware", "h100", "--model", "llama-3.1-8b", "--out", "m.csv", "--gpus", "65537"),
     "--gpus: expected a whole number from 1 to 65,536, found '65537'"),
])
def test_each_counts_bound_is_said_with_its_documented_number(roofline, args, said):
    if args[0] == "predict":
        args = (*args[:1], "--hardware", "h100", "--model", "llama-3.1-8b", *args[1:])
    code, out, err = roofline(*args)
    assert code == 2 and err.strip() == f"error: command line: {said}", err

