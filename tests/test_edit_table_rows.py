"""Yamlio.check_text_table's last-row check (qa135) at its edges: a row one field short, the line it names with and
without a final newline, and a last row whose quoted cell spans lines (not judged). (qa452's mutation round)"""

import pytest

from roofline.errors import RooflineError
from roofline.yamlio import check_text_table


@pytest.mark.parametrize("content", [b"a,b,c\n1,2,3\n4,5\n", b"a,b,c\n1,2,3\n4,5"])
def test_a_last_row_one_field_short_is_refused_at_its_line(tmp_path, content):
    path = tmp_path / "results.csv"
    path.write_bytes(content)
    with pytest.raises(RooflineError) as err:
        check_text_table(path)
    assert str(err.value) == f"{path}: line 3: expected 3 fields as the header has, found 2 (a row cut short?)"


@pytest.mark.parametrize("content", [
    b'a,b\n1,"two\nlines"\n',  # a quoted cell holding a newline: its second line alone is no row
    b"a,b,c\n1,2,3\n4,5,6\n",
    b"\xef\xbb\xbfa,b\r\n1,2\r\n",  # a BOM and Windows line ends
])
def test_a_whole_last_row_passes(tmp_path, content):
    path = tmp_path / "results.csv"
    path.write_bytes(content)
    check_text_table(path)  # no error
