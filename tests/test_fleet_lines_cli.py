"""Session 69's changes at their edges (qa456, mutation-testing tables._fleet_lines' wiring): `cheapest --users` on a
table without speculative rows says so in the fleet lines, as the rows --where selects where --where is given
(test_fleet_lines calls _fleet_lines alone)."""

import pytest

pytestmark = pytest.mark.slow  # a sweep and two cheapest runs: 2-4 s


def _fleet_speculation_line(out: str) -> str:
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("cheapest fleet for 100 users"))
    return next(line for line in lines[start:] if line.startswith("  speculation"))


def test_a_plain_only_tables_fleet_lines_say_it_has_no_speculative_rows(roofline, tmp_path):
    (tmp_path / "pl.yaml").write_text("name: pl\nhardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\naxes:\n"
                                      "  batch: [1, 8, 64]\n  context: [1024]\n  k: [0]\n  alpha: [0.8]\n")
    assert roofline("sweep", tmp_path / "pl.yaml", "--out", tmp_path / "sw", "--no-plots")[0] == 0
    code, out, err = roofline("cheapest", tmp_path / "sw", "--users", "100", "--min-tokens-per-user", "30")
    assert _fleet_speculation_line(out) == "  speculation  the table has no speculative rows (method none, or k 0 alone)", out
    code, out, err = roofline("cheapest", tmp_path / "sw", "--users", "100", "--min-tokens-per-user", "30",
                              "--where", "context=1024")
    assert _fleet_speculation_line(out) == ("  speculation  the rows --where selects have no speculative rows (method "
                                            "none, or k 0 alone)"), out
