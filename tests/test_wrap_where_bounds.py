"""Found by mutation testing of session 72's diff (qa482): panel-title wrapping (plots._wrap_parts) at its boundary and a --where miss of exactly 12 values (plot_jobs)."""
import pandas as pd
import pytest

from roofline.errors import RooflineError


def test_a_title_of_exactly_the_line_width_stays_on_one_line():
    """kills pl_le: 'abcde, fghi' is 11 characters: at 11 a line it is one line."""
    from roofline.plots import _wrap_parts

    assert _wrap_parts("abcde, fghi", 11) == "abcde, fghi"
    assert _wrap_parts("abcde, fghij", 11) == "abcde,\nfghij"


def test_a_where_miss_of_twelve_values_lists_them_all_without_a_count():
    """kills pj_gt12: 12 values are all listed, so no '... (12 in all)'."""
    from roofline.plot_jobs import select_rows

    df = pd.DataFrame({"batch": list(range(1, 13)), "hardware": ["h100-sxm"] * 12})
    with pytest.raises(RooflineError, match=r"\(values: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12\)$"):
        select_rows(df, ("batch=99",), "t.csv")
