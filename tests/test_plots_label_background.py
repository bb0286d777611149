"""place_labels keeps a label off the axes' scatter dots where its ring has a place that does (qa479: a pareto label
placed over pareto's grey cloud, beside a dot it read as labelling), and never moves it further for them."""
import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from roofline.plots import place_labels

pytestmark = pytest.mark.slow


def _placed(dots_xy, point=(0.5, 0.5), text="B=64, k=5"):
    fig = Figure(figsize=(4, 3), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    if len(dots_xy):
        ax.scatter(*np.asarray(dots_xy, dtype=float).T, s=5, color="0.75", zorder=1)
    ax.plot([point[0]], [point[1]], "o", ms=3)
    place_labels(fig, [(ax, point[0], point[1], text)])
    label = ax.texts[-1]
    renderer = fig.canvas.get_renderer()
    return ax, label, label.get_window_extent(renderer)


def _covered(ax, box) -> int:
    xy = ax.collections[0].get_offset_transform().transform(ax.collections[0].get_offsets())
    return int(np.count_nonzero((box.x0 <= xy[:, 0]) & (xy[:, 0] <= box.x1) & (box.y0 <= xy[:, 1]) & (xy[:, 1] <= box.y1)))


def test_a_label_leaves_the_first_place_to_a_dot_there_and_stays_on_its_ring():
    ax, label, first = _placed([])  # no dots: the first place tried (up and right, 7 pt)
    centre = ax.transData.inverted().transform(((first.x0 + first.x1) / 2, (first.y0 + first.y1) / 2))
    ax, label, box = _placed([centre])
    assert _covered(ax, box) == 0, box
    assert tuple(np.round(label.xyann, 6)) != tuple(np.round(_placed([])[1].xyann, 6))  # it moved
    assert np.isclose(np.hypot(*label.xyann), 7.0), label.xyann  # to another place on the same ring, no leader


def test_a_label_among_dots_everywhere_covers_the_fewest_without_going_further():
    grid = [(x, y) for x in np.linspace(0.2, 0.8, 25) for y in np.linspace(0.2, 0.8, 25)
            if np.hypot(x - 0.5, y - 0.5) > 0.03]  # dots all round, none on the point
    dense = [(x, y) for x in np.linspace(0.5, 0.8, 40) for y in np.linspace(0.5, 0.8, 40)]  # more up and to the right
    dots = grid + dense
    _, _, first = _placed([])  # where the label goes with no dots: up and to the right
    ax, label, box = _placed(dots)
    assert np.isclose(np.hypot(*label.xyann), 7.0), label.xyann  # dots never push a label out to a leader
    assert 0 < _covered(ax, box) < _covered(ax, first), (_covered(ax, box), _covered(ax, first))
