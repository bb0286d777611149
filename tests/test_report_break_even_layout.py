"""The break-even finding and its report figure over GPUs whose break-evens go against their ridge points (qa485:
three GPUs, MI300X's lower ridge paying to a larger batch, said 'the higher the ridge point, the larger the batch';
its figure's two long x labels ran into each other and past the page, a '≥4096' label over the frame)."""
import pandas as pd
import pytest

from roofline.findings import _ridge_order, ridge_ordered
from roofline.report import run_scenario

pytestmark = pytest.mark.slow


def _free(rows):
    return pd.DataFrame(rows, columns=["hardware", "break_even_batch", "ridge"]).set_index("hardware")


def test_the_rule_is_said_only_where_no_pair_goes_against_it():
    ordered = _free([("b200", 255, 267), ("h200", 172, 194), ("mi300x", 144, 167)])
    crossed = _free([("mi355x", 2972, 488), ("mi300x", 2669, 302), ("h200", 2352, 354)])
    rho = float(crossed["break_even_batch"].rank().corr(crossed["ridge"].rank()))
    assert rho == pytest.approx(0.5)  # 1 - 6 x (0 + 1 + 1) / (3 x 8)
    assert ridge_ordered(1.0, ordered) and not ridge_ordered(rho, crossed)
    name = lambda h, r: h.upper()  # noqa: E731
    assert _ridge_order(1.0, ordered, name) == "the higher the ridge point, the larger the batch it pays to"
    assert _ridge_order(rho, crossed, name) == ("the order follows the ridge points only in part (MI300X pays to a larger "
                                                "batch than H200, whose ridge point is higher)")
    assert _ridge_order(-0.5, crossed.iloc[::-1], name) == "the order does not follow the ridge points"
    tied = _free([("a", 300, 200), ("b", 300, 150), ("c", 100, 150)])  # ties either way follow
    assert ridge_ordered(float(tied["break_even_batch"].rank().corr(tied["ridge"].rank())), tied)


@pytest.fixture(scope="module")
def amd_run(tmp_path_factory):
    path = tmp_path_factory.mktemp("be") / "be-amd.yaml"
    path.write_text("name: be-amd\nquestion: break-even-batch\nhardware: [mi300x, mi355x, h200]\nmodel: deepseek-r1\n"
                    "method: mtp\nengine: sglang\nlayouts: [{dp_attention: 8, ep: 8}]\n"
                    "axes:\n  batch: {start: 1, stop: 4096, num: 13, log: true}\n  context: [256]\n  k: [1, 2]\n"
                    "  alpha: [0.6, 0.8]\n")
    return run_scenario(str(path), echo=False)


def test_the_finding_says_the_order_in_part_with_the_pair_against_it(amd_run):
    from roofline.findings import break_even_batch

    f = break_even_batch(amd_run.df, amd_run.ops, amd_run.meta)
    assert "the higher the ridge point" not in f.text, f.text
    assert "only in part (MI300X pays to a larger batch than H200 SXM, whose ridge point is higher)" in f.text, f.text
    assert "The verify pass turns compute-bound once" not in f.text  # the why of an order the batches do not follow
    assert "the larger the higher the GPU's derated ridge point" not in f.headline


def test_the_figure_keeps_its_labels_apart_on_the_page_and_inside_the_frames(amd_run):
    from roofline.plots import arrange
    from roofline.report_figures import REPORT_PLOTTERS

    fig = REPORT_PLOTTERS["break-even-batch"](amd_run.df, amd_run.ops, amd_run.meta)
    arrange(fig)
    renderer = fig.canvas.get_renderer()
    page = fig.bbox
    panels = [ax for ax in fig.axes if ax.get_visible() and ax.get_subplotspec() is not None]
    assert len(panels) == 2
    boxes = [ax.xaxis.label.get_window_extent(renderer) for ax in panels]
    for box in boxes:
        assert page.x0 <= box.x0 and box.x1 <= page.x1, box  # on the page
    assert boxes[0].x1 < boxes[1].x0, boxes  # side by side, apart
    assert "routed experts' fp8 GEMMs" in panels[0].get_xlabel() and "\n" in panels[0].get_xlabel()
    for ax in panels:
        frame = ax.get_window_extent(renderer)
        tops = [t.get_window_extent(renderer).y1 for t in ax.texts]  # the bars' labels
        assert tops and max(tops) <= frame.y1, (max(tops), frame.y1)
    assert any(t.get_text() == "≥4096" for t in panels[1].texts)
    # the axis runs 1 + half an octave a character over the tallest bars' longest label ('≥4096', 5: 3.5 octaves)
    assert panels[0].get_ylim()[1] == pytest.approx(4096 * 2 ** 3.5)  # shared y: every panel (qa490: r3, r4 free)
