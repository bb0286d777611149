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


def test_the_engine_is_said_with_the_versions_its_profile_describes():
    """qa454: the report said 'vllm' where predict says 'vllm (0.8-0.17)'; an engine without a version, by name."""
    from roofline.report import _assumptions, _with_version
    from roofline.serving import load_engine

    version = load_engine("vllm").version
    assert version and _with_version("vllm", ()) == f"vllm ({version})"
    assert _with_version("ideal", ()) == "ideal" and _with_version("no-such-engine", ()) == "no-such-engine"
    assert any(line.startswith(f"Serving engine: `vllm` ({version}) unless a scenario names another")
               for line in _assumptions([])), _assumptions([])
