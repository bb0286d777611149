"""The step-time figure's compute-bound line is read from every k swept, not the drawn k alone (qa495: with 63 k values
swept and 8 drawn, H200's 'verify compute-bound from 220 tokens' where the table's first compute-bound pass was 196)."""
import warnings

import pytest
from matplotlib import rc_context

from roofline import plots
from roofline.grid import load_configs, operator_table, run_sweep, scenario_meta
from roofline.scenario import scenario_from_dict

pytestmark = pytest.mark.slow


def test_the_compute_bound_line_is_the_narrowest_compute_bound_pass_of_any_k_swept():
    """Llama-3.1-8B on H100 at batch 16, k 1-20 (8 of the 20 drawn: 1, 4, 6, 9, 12, 15, 17, 20): the narrowest
    compute-bound verify pass is 16 x (18 + 1) = 304 tokens, at k 18, which is not drawn; the drawn k reach it at
    16 x (20 + 1) = 336."""
    sc = scenario_from_dict({"name": "n", "hardware": "h100-sxm", "model": "llama-3.1-8b", "method": "ngram",
                             "axes": {"batch": [8, 16], "context": [1024], "k": list(range(1, 21)), "alpha": [0.8]}})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        configs = load_configs(sc)
        df = run_sweep(sc, configs)
    passes = df.drop_duplicates(["batch", "k"])
    tokens = passes["batch"] * (passes["k"] + 1)
    bound = passes["verify_compute_bound"].astype(bool)
    drawn = passes["k"].isin([1, 4, 6, 9, 12, 15, 17, 20])
    assert tokens[bound].min() == 304 and tokens[bound & drawn].min() == 336  # the sweep this test reads
    assert not (tokens[~bound] > 304).any()  # every wider pass compute-bound: 'from N'
    with rc_context(plots.STYLE):
        fig = plots.PLOTTERS["step_time_vs_tokens"](df, operator_table(sc, configs), scenario_meta(sc, configs, len(df)))
    (ax,) = [a for a in fig.axes if a.get_subplotspec() is not None and a.get_visible()]
    assert [list(line.get_xdata()) for line in ax.get_lines() if line.get_color() == "firebrick"] == [[304, 304]]
    assert "verify compute-bound\nfrom 304 tokens" in [t.get_text() for t in ax.texts]
    assert any("8 of 20 k values" in t.get_text().replace("\n", " ") for t in fig.texts)  # the title says k 18 is not drawn
