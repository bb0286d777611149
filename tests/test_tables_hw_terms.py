"""What `hw list` and `hw show` print (tables.py) that the suite did not pin, found by mutation testing (qa496)."""

import pytest

pytestmark = pytest.mark.slow  # CLI commands writing profiles


def _line(text: str, start: str) -> str:
    (line,) = [line for line in text.splitlines() if line.startswith(start)]
    return line


@pytest.fixture
def tiny(roofline, tmp_path, monkeypatch):
    """A copy of h100-sxm with 500 MB of memory and a memory efficiency of four decimals."""
    monkeypatch.setenv("ROOFLINE_USER_DIR", str(tmp_path))
    code, _, err = roofline("hw", "new", "qa496-tiny", "--from", "h100-sxm", "--set", "memory=500 MB",
                            "--set", "efficiency.memory=0.8035")
    assert code == 0, err
    return "qa496-tiny"


def test_hw_list_gives_memory_under_one_gib_to_two_digits(roofline, tiny):
    """500 MB = 5e8 / 2^30 = 0.466 GiB: '0.47', not '0' (whole GiB only from 1 GiB up)."""
    code, out, _ = roofline("hw", "list")
    assert code == 0
    assert round(5e8 / 2**30, 2) == 0.47
    assert _line(out, "qa496-tiny ").split()[1] == "0.47"


def test_hw_show_gives_an_efficiency_of_four_decimals_as_the_profile_does(roofline, tiny):
    """efficiency.memory 0.8035 is shown 0.8035 (two decimals at least, four at most), not rounded to 0.804."""
    code, out, _ = roofline("hw", "show", tiny)
    assert code == 0
    assert _line(out, "  bandwidth ") == "  bandwidth         3.35 TB/s x 0.8035 achievable"


def test_hw_show_says_one_device_per_domain_in_the_singular_and_a_borrowed_scale_out_efficiency(roofline):
    """l4 has a scale-up domain of 1 (PCIe, no NVLink): '1 device per domain'; tpu-v5e sets no efficiency.scale_out, so
    its scale-out link is derated by efficiency.link's 0.75, which the line says."""
    code, out, _ = roofline("hw", "show", "l4")
    assert code == 0 and _line(out, "  link ").endswith(", 1 device per domain")
    code, out, _ = roofline("hw", "show", "tpu-v5e")
    assert code == 0
    assert _line(out, "  scale-out link ").startswith("  scale-out link    3.12 GB/s one direction per device x 0.75 "
                                                      "(efficiency.link's), latency 20 us")


def test_hw_show_says_an_8x16_torus_with_an_and_an_overlap_exponent_to_three_digits(roofline, tmp_path, monkeypatch):
    """'an 8x16 torus' (eight), 4 ports of 200 / 4 = 50 GB/s; an overlap exponent of 1.37 shown 1.37, not 1.4."""
    monkeypatch.setenv("ROOFLINE_USER_DIR", str(tmp_path))
    code, _, err = roofline("hw", "new", "qa496-tor", "--from", "tpu-v5e", "--set", "torus=8x16", "--set", "scale_up_domain=128",
                            "--set", "overlap_exponent=1.37")
    assert code == 0, err
    code, out, _ = roofline("hw", "show", "qa496-tor")
    assert code == 0
    assert "128 devices per domain (an 8x16 torus: 4 ports of 50 GB/s;" in _line(out, "  link ")
    assert _line(out, "  overlap exponent ") == (
        "  overlap exponent  1.37 (compute and memory time combined as a 1.37-norm)")


def test_hw_show_says_its_own_of_one_borrowed_efficiency_and_their_own_of_several(roofline):
    """tpu-v5e's int8 alone takes the general 0.70 ('no measurement of its own'); mi355x's fp8, int8 and fp4 take its 0.62
    ('of their own')."""
    code, out, _ = roofline("hw", "show", "tpu-v5e")
    assert code == 0 and _line(out, "  compute achievable ").endswith(
        "int8 x 0.70 (borrowed from the general figure: no measurement of its own)")
    code, out, _ = roofline("hw", "show", "mi355x")
    assert code == 0 and _line(out, "  compute achievable ").endswith(
        "fp8, int8 and fp4 x 0.62 (borrowed from the general figure: no measurement of their own)")


def test_hw_show_marks_a_price_set_by_hand(roofline, tmp_path, monkeypatch):
    """A copy re-priced by `hw new --set price=...`: '  price             2.50 USD/h  (set by hand)'; the built-in's
    own price line carries no mark."""
    monkeypatch.setenv("ROOFLINE_USER_DIR", str(tmp_path))
    code, _, err = roofline("hw", "new", "qa496-priced", "--from", "h100-sxm", "--set", "price=2.5 USD/h")
    assert code == 0, err
    code, out, _ = roofline("hw", "show", "qa496-priced")
    assert code == 0 and _line(out, "  price ") == "  price             2.50 USD/h  (set by hand)"
    code, out, _ = roofline("hw", "show", "h100-sxm")
    assert code == 0 and _line(out, "  price ") == "  price             3.00 USD/h"


def test_hw_show_wraps_source_and_notes_at_116_characters(roofline):
    """A profile's free text is wrapped to TEXT_WIDTH = 116 characters a line, not narrower: h100-sxm's source and notes
    have lines longer than 100 characters and none longer than 116."""
    code, out, _ = roofline("hw", "show", "h100-sxm")
    assert code == 0
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("  source: "))
    end = next(i for i, line in enumerate(lines) if line.startswith("file: "))
    block = lines[start:end]
    assert max(map(len, block)) <= 116 and max(map(len, block)) > 100


def test_hw_show_marks_a_measured_profile():
    """A calibrated (measured) profile's title line ends '  [measured]'; a datasheet one's does not."""
    import dataclasses

    from roofline.hardware import load_hardware
    from roofline.tables import hardware_table

    h100 = load_hardware("h100-sxm")
    assert hardware_table(dataclasses.replace(h100, measured=True)).splitlines()[0] == (
        "NVIDIA H100 SXM5 80GB (h100-sxm, gpu)  [measured]")
    assert hardware_table(h100).splitlines()[0] == "NVIDIA H100 SXM5 80GB (h100-sxm, gpu)"


def test_hw_show_says_a_socs_usable_share_is_of_its_unified_memory(roofline):
    """apple-m4-max (an SoC): 70% usable, what its GPU may wire of the unified memory; h100-sxm (a GPU) names the
    engines that take the profile's share."""
    code, out, _ = roofline("hw", "show", "apple-m4-max")
    assert code == 0 and _line(out, "  memory ").endswith(
        "70% usable, what its GPU may wire of the unified memory: an engine's own share is taken of that)")
    code, out, _ = roofline("hw", "show", "h100-sxm")
    assert code == 0 and _line(out, "  memory ").endswith(
        "90% usable, where the engine sets no share of its own: of the built-ins ideal and sglang-early)")
