"""qa449: the report's Markdown header says findings also read points computed now, outside tables/."""
from roofline.report import _html, _markdown


def test_the_markdown_header_says_points_computed_now_are_not_in_the_tables():
    """'computed now' points (between the swept batches) are named in the header beside tables/."""
    text = " ".join(_markdown([], 1.0).split("\n")[:8])
    assert 'where it says "computed now", from points between the swept batches' in text, text
    assert "not in the tables: `roofline predict` gives each" in text, text


def test_the_html_header_says_the_same():
    """qa449: report.html's header still said the tables alone where its text says 'computed now' twice."""
    page = _html([], {}, 1.0)
    assert "where it says &quot;computed now&quot;, from points between the swept batches" in page, page[:1500]
    assert "not in the tables: <code>roofline predict</code> gives each" in page
