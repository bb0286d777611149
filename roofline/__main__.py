"""`python -m roofline`: the `roofline` command (qa128: 'No module named roofline.__main__')."""

from roofline.launch import run

if __name__ == "__main__":  # importing this module (a doc tool, --doctest-modules) runs nothing (qa129)
    run()
