"""The reader's documented bounds hold exactly at their edges (yamlio's docstring: depth <= MAX_DEPTH, aliases <=
MAX_ALIASES, expanded values <= MAX_EXPANDED_NODES), with LibYAML and with the pure-Python loader alike. (qa452's
mutation round)"""

import pytest

from roofline import yamlio
from roofline.errors import RooflineError
from roofline.yamlio import load_yaml_text


@pytest.fixture(params=["libyaml", "pure-python"])
def loader(request, monkeypatch):
    if request.param == "pure-python":
        monkeypatch.setattr(yamlio, "_CSafeLoader", None)
    return request.param


def test_nesting_of_32_levels_reads_and_33_is_refused(loader):
    # the top mapping is one level, each list one more: 1 + 31 = 32 levels read, 1 + 32 = 33 refused ("deeper than 32")
    data = load_yaml_text("a: " + "[" * 31 + "]" * 31 + "\n", "f.yaml")
    depth, node = 1, data
    while isinstance(node, (dict, list)) and node:
        node = node["a"] if isinstance(node, dict) else node[0]
        depth += 1
    assert depth == 32
    with pytest.raises(RooflineError, match=r"^f\.yaml: line 1: not valid YAML: nesting deeper than 32 levels$"):
        load_yaml_text("a: " + "[" * 32 + "]" * 32 + "\n", "f.yaml")


def test_64_aliases_read_and_the_65th_is_refused_at_its_line(loader):
    text = "a: &a [x]\n" + "".join(f"b{i}: *a\n" for i in range(64))
    data = load_yaml_text(text, "f.yaml")
    assert len(data) == 65 and all(data[f"b{i}"] == ["x"] for i in range(64))
    with pytest.raises(RooflineError, match=r"^f\.yaml: line 66: not valid YAML: more than 64 aliases \(\*name\)$"):
        load_yaml_text(text + "b64: *a\n", "f.yaml")


def test_a_document_of_exactly_100000_values_once_expanded_reads_and_one_more_is_refused(loader):
    # nodes: the top mapping 1; key a 1, its list 1 + n scalars; key b 1, its list 1 + m aliases of (n + 1) each:
    # 4 + (m + 1)(n + 1) = 100,000 with m = 51 aliases, n = 1,922 scalars (52 x 1,923 = 99,996)
    n, m = 1922, 51
    text = "a: &a [" + ", ".join(["x"] * n) + "]\nb: [" + ", ".join(["*a"] * m) + "]\n"
    data = load_yaml_text(text, "f.yaml")
    assert len(data["a"]) == n and len(data["b"]) == m
    with pytest.raises(RooflineError, match=r"^f\.yaml: not valid here: more than 100,000 values once aliases are expanded$"):
        load_yaml_text(text + "c: x\n", "f.yaml")  # two values more: 100,002


def test_both_loaders_read_31_nested_lists_holding_a_scalar(monkeypatch):
    """qa452: 1 mapping and 31 lists are 32 levels, which LibYAML's event pass reads; the pure-Python composer counted
    the scalar inside as a 33rd and refused it."""
    from roofline import yamlio
    from roofline.yamlio import load_yaml_text

    text = "a: " + "[" * 31 + "x" + "]" * 31 + "\n"
    fast = load_yaml_text(text, "f.yaml")
    monkeypatch.setattr(yamlio, "_CSafeLoader", None)
    assert load_yaml_text(text, "f.yaml") == fast
