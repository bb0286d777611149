"""`hw show`, `models show` and `engines show` wrap a profile's free text at TEXT_WIDTH (qa454: vllm's source, a folded
YAML scalar, printed as one line of 11,504 characters), keeping the lines its author broke and every word."""

import pytest

from roofline.tables import TEXT_WIDTH, _text_block


def test_a_long_line_is_wrapped_at_its_spaces_and_loses_no_word():
    text = " ".join(f"word{i}" for i in range(400))
    block = _text_block("source", text)
    lines = block.splitlines()
    assert len(lines) > 20 and all(len(line) <= TEXT_WIDTH for line in lines)
    assert lines[0].startswith("  source: word0 ") and all(line.startswith("    ") for line in lines[1:])
    assert " ".join(block.split()[1:]) == text  # every word, in order


def test_the_authors_line_breaks_stay_and_a_word_longer_than_a_line_is_not_cut():
    url = "https://example.org/" + "x" * 150
    lines = _text_block("notes", f"first line\nsecond {url} end\n\nthird").splitlines()
    assert lines == ["  notes: first line", "    second", f"    {url}", "    end", "    third"], lines


@pytest.mark.slow
def test_engines_show_prints_no_line_of_its_sources_longer_than_the_width(roofline):
    code, out, _ = roofline("engines", "show", "vllm")
    at = out.index("  source: ")
    assert code == 0 and max(len(line) for line in out[at:].splitlines()) <= TEXT_WIDTH
