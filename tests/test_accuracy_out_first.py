"""`accuracy` refuses an --out it may not replace before it reads and predicts the rows: one line, no warnings of the
rows before it (qa497: the fit split's in-sample warning, then the refusal)."""
import pytest

pytestmark = pytest.mark.slow


def test_an_occupied_out_is_refused_in_one_line_before_any_row_is_read(roofline, tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("mine\n")
    code, stdout, err = roofline("accuracy", "--split", "fit", "--out", str(out))
    assert code == 2 and stdout == ""
    assert err.strip().count("\n") == 0 and err.startswith(f"error: --out: {out} holds files roofline did not write"), err
    assert (out / "notes.txt").read_text() == "mine\n"
