"""plots helpers pinned at their edges (qa490 mutants): _points_meet with every point on the break-even line (a span of
0), _log2_axis given a 0, _scatter_boxes' dot size (a square of sqrt(s) points)."""
import pandas as pd
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from roofline import plots

pytestmark = pytest.mark.slow  # imports matplotlib


def test_points_all_at_one_meet():
    flat = pd.DataFrame({"context": [1024, 1024], "speedup": [1.0, 1.0]})  # two batches' best k 0: one spot at 1
    assert plots._points_meet(flat, "context", "speedup")


def test_a_log2_axis_leaves_out_a_zero():
    fig = Figure(dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    plots._log2_axis(ax, [0, 1024, 4096])
    assert list(ax.get_xticks()) == [1024.0, 4096.0]


def test_a_scatter_dot_box_is_sqrt_s_points_wide():
    fig = Figure(dpi=144)  # 2 px a point
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.scatter([0.5], [0.5], s=25)  # a 5-point dot: 10 px
    (box,) = plots._scatter_boxes(ax)
    assert box.width == pytest.approx(10.0) and box.height == pytest.approx(10.0)
    ax.scatter([0.2], [0.2])  # matplotlib's default s, 36: 6 points, 12 px
    assert plots._scatter_boxes(ax)[1].width == pytest.approx(12.0)
