"""Panel-title wrapping (plots.py), found by mutation testing (qa482): plots._wrap_parts let a wrapped part's last row take chars + 1 characters (the room kept
for a row's ending comma), then appends that comma too: 'bbbbb ccccc,' is 12 characters at 10 a line. Before this
session's change textwrap.fill(row, chars + 1) re-wrapped it ('bbbbb' / 'ccccc,')."""
from roofline.plots import _wrap_parts


def test_no_row_of_a_wrapped_title_is_longer_than_a_line_and_its_comma():
    for title, chars in (("aaaa, bbbbb ccccc, d", 10), ("H100, NVIDIA RTX PRO 6000 Blackwell Server Edition, tp 8", 36)):
        rows = _wrap_parts(title, chars).split("\n")
        assert all(len(row) <= chars + 1 for row in rows), rows
        assert all(len(row) <= chars for row in rows if not row.endswith(",")), rows
