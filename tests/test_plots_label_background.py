"""place_labels keeps a label off the axes' scatter dots where its ring has a place that does (qa479: a pareto label
placed over pareto's grey cloud, beside a dot it read as labelling), and never moves it further for them."""
import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from roofline.plots import LABEL_CLEARANCE_PT, place_labels

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


def test_a_dot_within_the_clearance_of_the_first_place_moves_the_label_too():
    """A dot just off the first place's box, but nearer than LABEL_CLEARANCE_PT, counts as covered: the padded box is
    held against the dots, as against the markers (qa490's survivor: the unpadded box, the label left touching it)."""
    ax, label, first = _placed([])
    px = ax.figure.dpi / 72.0
    half = np.sqrt(1.0) * px / 2  # a dot of s = 1: its box's half side
    beyond = first.x1 + half + 0.5 * LABEL_CLEARANCE_PT * px  # clear of the box, inside its clearance
    dot = ax.transData.inverted().transform((beyond, (first.y0 + first.y1) / 2))
    fig = Figure(figsize=(4, 3), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.scatter([dot[0]], [dot[1]], s=1, color="0.75", zorder=1)
    ax.plot([0.5], [0.5], "o", ms=3)
    place_labels(fig, [(ax, 0.5, 0.5, "B=64, k=5")])
    moved = ax.texts[-1]
    assert tuple(np.round(moved.xyann, 6)) != tuple(np.round(label.xyann, 6)), moved.xyann
    assert np.isclose(np.hypot(*moved.xyann), 7.0), moved.xyann


def test_of_a_ring_covering_dots_everywhere_the_place_covering_fewest_is_taken():
    """Where each place of the nearest ring covers a dot, the one covering fewest is taken, not the first or the last
    tried (qa490's survivor: the ring's last clear place). Dots are denser up and to the right (the first places tried)
    and below (the last), so neither end of the order covers fewest."""
    from roofline.plots import ANGLES_DEG, _extents, _offset_box, _overlaps, _scatter_boxes

    grid = [(x, y) for x in np.linspace(0.2, 0.8, 25) for y in np.linspace(0.2, 0.8, 25)
            if np.hypot(x - 0.5, y - 0.5) > 0.03]
    up_right = [(x, y) for x in np.linspace(0.5, 0.8, 40) for y in np.linspace(0.5, 0.8, 40)]
    below = [(x, y) for x in np.linspace(0.35, 0.65, 40) for y in np.linspace(0.2, 0.5, 40)]
    ax, label, box = _placed(grid + up_right + below)
    px = ax.figure.dpi / 72.0
    dots = _extents(_scatter_boxes(ax))
    anchor = ax.transData.transform((0.5, 0.5))
    size = (box.width, box.height)
    counts = []
    for angle in ANGLES_DEG:
        dx, dy = 7 * np.cos(np.radians(angle)), 7 * np.sin(np.radians(angle))
        where = (dx, dy, "left" if dx > 1 else "right" if dx < -1 else "center",
                 "bottom" if dy > 1 else "top" if dy < -1 else "center")
        counts.append(_overlaps(_offset_box(anchor, size, where, px).padded(LABEL_CLEARANCE_PT * px), dots))
    assert np.isclose(np.hypot(*label.xyann), 7.0), label.xyann
    taken = _overlaps(box.padded(LABEL_CLEARANCE_PT * px), dots)
    assert min(counts) > 0 and taken == min(counts) < min(counts[0], counts[-1]), (taken, counts)
