"""The report's few-users-against-many finding says batching alone's best at the most that fits where the batch axis
stops short of it, as the fast tiers' cheapest tier does (qa445: 'reaches at least 9,156 tokens/s' at the swept 512,
where memory held 855 and plain decoding makes 9,346 there)."""

import pytest

from roofline import predict
from roofline.findings import _n

pytestmark = pytest.mark.slow  # a report of one scenario: 2-5 s


def _finding_text(tmp_path, batches: str) -> str:
    from roofline.report import write_report

    path = tmp_path / "bvs.yaml"
    path.write_text("name: bvs\nquestion: batch-vs-speculation\nhardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\n"
                    f"axes:\n  batch: {batches}\n  context: [512]\n  k: [0, 2, 4]\n  alpha: [0.8]\n")
    write_report([str(path)], tmp_path / "rep")
    text = (tmp_path / "rep" / "report.md").read_text()
    return text[text.index("Few users against many"):]


def test_batching_alone_is_said_at_the_most_that_fits_computed_now(tmp_path):
    cap = predict(model="llama-3.1-8b", hardware="h100-sxm", batch=1, context=512)["max_batch"]
    at_cap = predict(model="llama-3.1-8b", hardware="h100-sxm", batch=cap, context=512)
    at_512 = predict(model="llama-3.1-8b", hardware="h100-sxm", batch=512, context=512)
    assert 512 < cap < 1024 and at_cap["tokens_per_s"] > at_512["tokens_per_s"]  # the case: the axis stops short
    text = _finding_text(tmp_path, "[1, 8, 64, 512, 1024]")
    assert (f"growing the batch alone reaches {_n(at_cap['tokens_per_s'])} tokens/s (batch {cap:,}, "
            f"{_n(at_cap['tokens_per_s_per_user'])} tokens/s per user; the largest batch that fits, computed now: the "
            "largest swept batch that fits is 512)") in text, text[:600]
    assert f"{_n(at_512['tokens_per_s'])} tokens/s" not in text.split("\n")[2], text[:600]


def test_the_contents_headline_says_the_point_was_computed_now(tmp_path):
    from roofline.report import write_report

    body = ("question: batch-vs-speculation\nhardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\n"
            "axes:\n  batch: [1, 8, 64, 1024]\n  context: [512]\n  k: [0, 2, 4]\n  alpha: [0.8]\n")
    for name in ("one", "two"):  # two sections: the contents list each headline
        (tmp_path / f"{name}.yaml").write_text(f"name: {name}\n" + body)
    write_report([str(tmp_path / "one.yaml"), str(tmp_path / "two.yaml")], tmp_path / "rep")
    contents = (tmp_path / "rep" / "report.md").read_text().split("\n## ")[0]
    cap = predict(model="llama-3.1-8b", hardware="h100-sxm", batch=1, context=512)["max_batch"]
    at_cap = predict(model="llama-3.1-8b", hardware="h100-sxm", batch=cap, context=512)
    assert contents.count(f"plain batching's best, {_n(at_cap['tokens_per_s'])} tokens/s at batch {cap:,} (the most that "
                          "fits, computed now)") == 2, contents


def test_the_figures_dotted_line_is_batching_alones_best_at_the_most_that_fits(tmp_path, monkeypatch):
    """qa459: the figure's dotted 'batching's best throughput' ran through the swept 512's 9,156 tokens/s under a text
    quoting batch 855's 9,346; the point computed now is drawn (a star) and the line through it."""
    from roofline import report_figures

    drawn = {}
    plotter = report_figures.REPORT_PLOTTERS["batch-vs-speculation"]

    def keep(df, ops, meta):
        drawn["fig"] = plotter(df, ops, meta)
        return drawn["fig"]

    monkeypatch.setitem(report_figures.REPORT_PLOTTERS, "batch-vs-speculation", keep)
    _finding_text(tmp_path, "[1, 8, 64, 512, 1024]")
    cap = predict(model="llama-3.1-8b", hardware="h100-sxm", batch=1, context=512)["max_batch"]
    at_cap = predict(model="llama-3.1-8b", hardware="h100-sxm", batch=cap, context=512)
    ax = drawn["fig"].axes[0]
    flat = [line for line in ax.get_lines() if len(line.get_ydata()) == 2 and line.get_ydata()[0] == line.get_ydata()[1]
            and tuple(line.get_xdata()) == (0, 1)]  # axhline's
    assert [line.get_ydata()[0] for line in flat] == [pytest.approx(at_cap["tokens_per_s"], rel=1e-9)]
    star = [line for line in ax.get_lines() if line.get_marker() == "*"]
    assert len(star) == 1 and star[0].get_xydata().tolist() == [
        [pytest.approx(at_cap["tokens_per_s_per_user"], rel=1e-9), pytest.approx(at_cap["tokens_per_s"], rel=1e-9)]]
