"""A profile copy given through `profiles=` that hides a copy in the user folder, which itself hides a built-in, names
both files it hides (qa440: only the built-in was named, the user's own copy passed over)."""

import warnings

import pytest

from roofline import predict
from roofline.profiles import builtin_dir

pytestmark = pytest.mark.slow  # predict twice, hw new four times: 1-3 s a test


def test_a_profiles_copy_names_the_user_copy_and_the_builtin_it_hides(roofline, tmp_path, monkeypatch):
    user, extra = tmp_path / "user", tmp_path / "extra"
    monkeypatch.setenv("ROOFLINE_USER_DIR", str(user))
    for folder in (user, extra):
        code, _, err = roofline("hw", "new", "h100-sxm", "--from", "h100-sxm", "--dir", folder, "--force")
        assert code == 0, err
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        both = predict(model="llama-3.1-8b", hardware="h100-sxm", batch=1, profiles=[extra])["warnings"]
        mine = predict(model="llama-3.1-8b", hardware="h100-sxm", batch=1)["warnings"]
    builtin = builtin_dir("hardware") / "h100-sxm.yaml"
    assert f"hardware h100-sxm is {extra / 'h100-sxm.yaml'}, which shadows {user / 'h100-sxm.yaml'} and the built-in " \
        f"{builtin}" in both, both
    assert f"hardware h100-sxm is {user / 'h100-sxm.yaml'}, which shadows the built-in {builtin}" in mine, mine


def test_a_profiles_copy_of_a_name_no_builtin_has_is_not_noted(roofline, tmp_path, monkeypatch):
    user, extra = tmp_path / "user", tmp_path / "extra"
    monkeypatch.setenv("ROOFLINE_USER_DIR", str(user))
    for folder in (user, extra):
        code, _, err = roofline("hw", "new", "my-gpu", "--from", "h100-sxm", "--dir", folder, "--force")
        assert code == 0, err
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        said = predict(model="llama-3.1-8b", hardware="my-gpu", batch=1, profiles=[extra])["warnings"]
    assert not [w for w in said if "shadows" in w], said
