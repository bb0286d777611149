"""`python -m roofline`: the `roofline` command (qa128: 'No module named roofline.__main__')."""

from roofline.launch import run

run()
