"""Mutation testing (qa470) of speculation.py's break-even searches of the last two sessions (_refined_break_even,
_dip_below's grid path, _losing_batches' edge, _longest_paying_k's own memory limits), on synthetic curves whose
answers are known by construction; each test names the mutants it kills."""

from __future__ import annotations

import numpy as np

import roofline.speculation as spec
from roofline.speculation import EXACT_DIP_SEARCH_MAX, _dip_below, _refined_break_even, _search_grid, pays


def test_the_refined_break_even_reads_past_the_next_grid_gap_to_twice_the_last_grid_batch_that_pays():
    """Pays to 1,000 and again at 1,100-1,102 (no grid batch there): the last grid batch that pays is g <= 1,000, and
    every batch from g to 2g + 64 is read, so the break-even is 1,102 (mutant: g + 64 alone, 1,000), with the speedup
    at 1,102 itself, 1.2 - 1,102e-4 (mutant: the speedup at g)."""
    def speedup_at(b):
        b = np.asarray(b)
        return np.where((b <= 1000) | ((b >= 1100) & (b <= 1102)), 1.2 - b * 1e-4, 0.9)

    grid = _search_grid(10_000)
    assert not ((grid >= 1100) & (grid <= 1102)).any()
    last = int(grid[pays(speedup_at(grid))].max())
    assert last <= 1000 and 1102 > last + 64 and 1102 <= 2 * last + 64
    be, be_speedup = _refined_break_even(grid, last, 10_000, speedup_at)
    assert be == 1102 and be_speedup == 1.2 - 1102 * 1e-4


def test_the_grid_dip_search_says_whether_every_batch_between_its_first_and_last_loses():
    """Past EXACT_DIP_SEARCH_MAX (the grid path): losing at 100-120 and 1,000-1,100, paying between, so the dip is
    [100, 1,100] and not every batch between loses (mutant: always True)."""
    def speedup_at(b):
        b = np.asarray(b)
        return np.where(((b >= 100) & (b <= 120)) | ((b >= 1000) & (b <= 1100)), 0.9, 1.1)

    grid = _search_grid(4 * EXACT_DIP_SEARCH_MAX)
    assert _dip_below(grid, speedup_at(grid), EXACT_DIP_SEARCH_MAX + 2, speedup_at) == ([100, 1100], False)


def test_the_grid_dip_search_names_no_last_losing_batch_at_or_past_the_break_even():
    """qa461 on the grid path: losing at 68,000-70,200, paying at 70,201-71,000 (the break-even), losing past it; the
    grid's last losing batch below it is 70,135 and the next, 71,869, lies past the break-even and loses. The dip ends at
    70,200 (mutant: the refined stretch reaching that next grid batch, 71,869, past the break-even)."""
    be = 71_000

    def speedup_at(b):
        b = np.asarray(b)
        return np.where(((b >= 68_000) & (b <= 70_200)) | (b > be), 0.9, 1.1)

    grid = _search_grid(4 * EXACT_DIP_SEARCH_MAX)
    below = grid[(grid < be) & ~pays(speedup_at(grid))]
    assert be - 1 > EXACT_DIP_SEARCH_MAX and len(below) and grid[grid > below.max()].min() > be  # the case arises
    assert _dip_below(grid, speedup_at(grid), be, speedup_at) == ([68_000, 70_200], True)


def test_the_k_that_pays_longest_is_searched_to_its_own_memory_limit(monkeypatch):
    """A synthetic target: k fits 400 - 20 (k - 1) sequences; k 1 pays to batch 200, k 3 at every batch (past its
    memory limit too), every other k nowhere. k 3 pays longest, to its own limit 360, there at its memory limit
    (mutants: the limit of the k that fits most, 400, as its search's end, or as the limit it is read against; the
    grid's batches past a k's limit counted)."""
    def fake(hw, target, batch, context, k, alpha, **kw):
        b, kk = np.broadcast_arrays(np.asarray(batch, dtype=float), np.asarray(k, dtype=float))
        caps = np.maximum(400 - 20 * (np.asarray(k, dtype=float) - 1), 0)
        speedup = np.where(kk == 3, 1.1 - b * 1e-5, np.where((kk == 1) & (b <= 200), 1.2, 0.9))
        return {"max_batch": caps, "speedup": speedup}

    monkeypatch.setattr(spec, "speculative_metrics", fake)
    longest = spec._longest_paying_k(None, None, 1024, 0.8, {})
    assert longest["k"] == 3 and longest["batch"] == 360 and longest["at_memory_limit"] is True
    assert longest["speedup"] == 1.1 - 360 * 1e-5
