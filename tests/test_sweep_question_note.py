"""`sweep` of a report question's scenario says that `report` draws its figure and finding (qa495: flops-vs-time's
FLOPs-and-time figure looked for among the sweep's, where only the report draws it); a scenario of no question says
nothing of it."""
import pytest

pytestmark = pytest.mark.slow


def test_a_question_scenario_points_to_its_report(roofline, tmp_path):
    code, _, err = roofline("sweep", "flops-vs-time", "--out", str(tmp_path / "q"), "--no-plots")
    assert code == 0
    assert ("note: flops-vs-time is a report question: `roofline report flops-vs-time` draws its figure and states its "
            "finding") in err


def test_a_copy_answering_a_question_names_it_and_a_plain_scenario_none(roofline, tmp_path):
    copy = tmp_path / "mine.yaml"
    copy.write_text("name: mine\nquestion: flops-vs-time\nhardware: h100-sxm\nmodel: llama-3.1-8b\nmethod: eagle\n"
                    "axes: {batch: [1], context: [1024], k: [0, 2], alpha: [0.8]}\n")
    code, _, err = roofline("sweep", str(copy), "--out", str(tmp_path / "c"), "--no-plots")
    assert code == 0
    assert f"note: mine answers the report question flops-vs-time: `roofline report {copy}` draws its figure" in err
    plain = tmp_path / "plain.yaml"
    plain.write_text(copy.read_text().replace("question: flops-vs-time\n", "").replace("mine", "plain"))
    code, _, err = roofline("sweep", str(plain), "--out", str(tmp_path / "p"), "--no-plots")
    assert code == 0 and "report question" not in err
