"""cheapest --users: the fleet lines say what is so (qa455): a table without speculative rows said as such, not as
rows too slow; replicas running fewer sequences than the row's batch said faster a user, not dearer a token (one
fewer sequence below a GEMM tile's edge costs less: 128 at $0.507, 129 at $0.511 on 4 MI300X)."""

import pandas as pd

from roofline.tables import _fewer_than_batch_text, _fleet_lines


def _lines(kind_rows, rows_named="the table has"):
    return _fleet_lines({"plain": None, "speculation": None}, 100, 30.0, pd.DataFrame({"decoding": []}), set(), None,
                        "", None, True, kind_rows, rows_named)


def test_a_table_without_speculative_rows_says_so_in_the_fleet_lines():
    lines = _lines({"plain": 3, "speculation": 0})
    assert lines[2] == "  speculation  the table has no speculative rows (method none, or k 0 alone)", lines
    assert lines[1] == "  plain        no row of this kind that fits, is priced and loads reaches this speed", lines
    assert _lines({"plain": 3, "speculation": 0}, "the rows --where selects have")[2].endswith(
        "the rows --where selects have no speculative rows (method none, or k 0 alone)")


def test_speculative_rows_too_slow_keep_the_reaches_line():
    assert _lines({"plain": 3, "speculation": 5})[2] == ("  speculation  no row of this kind that fits, is priced and "
                                                         "loads reaches this speed")
    assert _lines(None)[2].endswith("reaches this speed")


def test_fewer_sequences_are_said_faster_a_user_and_never_dearer():
    assert _fewer_than_batch_text(5000, 39, 129) == " (8 of the 39 replicas run this batch, 31 run 128: a little faster a user there)"
    assert _fewer_than_batch_text(60, 2, 32) == " (each replica runs 30 of the 60 users, fewer than this batch: faster a user than this row)"
