"""The `roofline` executable (roofline.launch): which commands start their figure workers before anything heavy
is imported, the hand-over of those workers to the command, and the executable end to end."""

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from roofline import plot_jobs
from roofline.launch import command_of, draws

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("argv, command, drawing", [
    (["sweep", "eagle-on-hopper", "--out", "o"], "sweep", True),
    (["--profiles", "my-dir", "plot", "out/x"], "plot", True),
    (["--profiles=my-dir", "sweep", "s.yaml"], "sweep", True),
    (["sweep", "eagle-on-hopper", "--no-plots"], "sweep", False),
    (["sweep", "--help"], "sweep", False),
    (["report", "--out", "o"], "report", False),  # computes for seconds: it starts its workers itself
    (["--help"], None, False),
    ([], None, False),
])
def test_only_sweep_and_plot_with_plots_start_their_workers_first(argv, command, drawing):
    assert command_of(argv) == command and draws(argv) is drawing


@pytest.mark.slow
def test_workers_started_early_are_handed_over_once_and_ended_when_no_command_takes_them():
    import signal

    plot_jobs.start_early(2)
    early = plot_jobs._EARLY
    with plot_jobs.early_or_new(2) as pool:
        assert pool is early
    assert plot_jobs._EARLY is None and plot_jobs.early_or_new(1)._seed is None  # a new pool, one worker: no processes
    plot_jobs.start_early(2)
    seed = plot_jobs._EARLY._seed
    plot_jobs.stop_early()
    assert plot_jobs._EARLY is None and seed.exitcode == -signal.SIGTERM


@pytest.mark.slow
def test_the_executable_sweeps_with_plots_and_a_bad_command_is_one_line(tmp_path):
    def roofline(*args):
        code = "from roofline.launch import run; run()"
        return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=ROOT)

    done = roofline("sweep", "flops-vs-time", "--out", str(tmp_path / "s"))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "s" / "results.csv").is_file() and list((tmp_path / "s").glob("*.png"))
    bad = roofline("sweep", "no-such-scenario", "--out", str(tmp_path / "b"))
    assert bad.returncode == 2 and bad.stderr.startswith("error: unknown scenario") and len(bad.stderr.splitlines()) == 1
    assert not (tmp_path / "b").exists()


@pytest.mark.slow
@pytest.mark.parametrize("signame, entry", [("SIGTERM", "launch"), ("SIGHUP", "launch"),  # SIGHUP: a closed terminal
                                            ("SIGTERM", "cli.py")])  # qa372: `python cli.py` left staging folders, silent
def test_sigterm_mid_sweep_removes_the_staged_output_like_ctrl_c(tmp_path, signame, entry):
    import signal
    import time

    scenario = tmp_path / "big.yaml"
    scenario.write_text("name: big\nhardware: [h100-sxm, h200]\nmodel: llama-3.1-8b\nmethod: eagle\naxes:\n"
                        "  batch: {start: 1, stop: 256, num: 256}\n  context: [1024, 2048, 4096, 8192]\n"
                        "  k: [1, 2, 3, 4, 5, 6, 7, 8]\n  alpha: {start: 0.5, stop: 0.9, num: 400}\n")
    # 6.5 million points, written in 1-million-point chunks: about 16 s here, so that a signal this (starved) test
    # process sends late still lands mid-sweep (CI once saw the 1.6-million-point sweep finish first: exit 0); the
    # signal ends it within a chunk, so a passing run takes about a second
    start = ["-c", "from roofline.launch import run; run()"] if entry == "launch" else [str(ROOT / "cli.py")]
    proc = subprocess.Popen([sys.executable, *start, "sweep", str(scenario), "--out", str(tmp_path / "o"), "--no-plots"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not list(tmp_path.glob(".o.*")) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)  # until the staging folder exists: the sweep is under way
    assert proc.poll() is None, "the sweep ended before it could be stopped"
    proc.send_signal(getattr(signal, signame))
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + getattr(signal, signame) and err.splitlines()[-1] == "terminated"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.yaml"]


@pytest.mark.slow
def test_python_dash_m_roofline_runs_the_command():
    """qa128: `python -m roofline` said 'No module named roofline.__main__'."""
    out = subprocess.run([sys.executable, "-m", "roofline", "--version"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.strip().startswith("roofline ")
    # importing the module runs nothing (qa129: it printed the help and exited, for any tool that imports every module)
    out = subprocess.run([sys.executable, "-c", "import roofline.__main__; print('imported')"], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0 and out.stdout == "imported\n", out


def test_ctrl_c_while_the_figure_workers_start_is_one_line_not_a_traceback(monkeypatch, capsys):
    """qa189: Ctrl-C in the first imports of a drawing command (pandas, the workers' start) gave a traceback: only the
    CLI's import was inside the handler."""
    import signal

    from roofline import launch

    def interrupted(count):
        raise KeyboardInterrupt

    monkeypatch.setattr(sys, "argv", ["roofline", "sweep", "eagle-on-hopper"])
    monkeypatch.setattr(plot_jobs, "start_early", interrupted)
    previous = {n: signal.getsignal(n) for n in (signal.SIGTERM, signal.SIGINT)}
    try:
        with pytest.raises(SystemExit) as stopped:
            launch.run()
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
    assert stopped.value.code == 130 and capsys.readouterr().err == "interrupted\n"


@pytest.mark.slow
def test_ctrl_c_while_cli_py_loads_is_one_line_and_python_s_handler_is_back_for_the_command(tmp_path):
    """qa376: a Ctrl-C in the first ~80 ms of `python cli.py` (its own imports, before roofline.launch runs) printed a
    traceback. Made deterministic: a `typer` found first on the path interrupts the process as cli.py imports it."""
    for folder, after in (("typer", "time.sleep(5)"), ("ig/typer", "print('still here')\nraise SystemExit(3)")):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "__init__.py").write_text(f"import os, signal, time\nos.kill(os.getpid(), signal.SIGINT)\n{after}\n")
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT}"}
    out = subprocess.run([sys.executable, "cli.py", "--version"], capture_output=True, text=True, cwd=ROOT, env=env,
                         timeout=60)
    assert (out.returncode, out.stderr) == (130, "interrupted\n"), out.stderr
    ignored = subprocess.run([sys.executable, "cli.py", "--version"], capture_output=True, text=True, cwd=ROOT, timeout=60,
                             env={**env, "PYTHONPATH": f"{tmp_path / 'ig'}{os.pathsep}{ROOT}"},
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))  # a background job's
    assert ignored.returncode == 3 and "still here" in ignored.stdout, ignored.stderr  # Ctrl-C stays ignored
    probe = ("import signal\nfrom roofline import launch\nseen = []\n"  # the command runs under the installed
             "def early(*a): pass\n"  # executable's handler (stop_on_sigterm's), or SIG_IGN where it was ignored
             "class Cli:\n    _interrupted_while_loading = staticmethod(early)\n"
             "    @staticmethod\n    def run(): seen.append(signal.getsignal(signal.SIGINT))\n"
             "for before in (early, signal.SIG_IGN):\n    signal.signal(signal.SIGINT, before)\n    launch.run(Cli)\n"
             "print(getattr(seen[0], '__name__', seen[0]), seen[1] is signal.SIG_IGN)\n")
    out = subprocess.run([sys.executable, "-c", probe, "--version"], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert out.stdout.strip() == "terminate True", out.stderr


def test_matplotlib_gets_a_config_folder_of_its_own_where_homes_cannot_be_written(tmp_path, monkeypatch):
    """qa394: under a read-only HOME matplotlib said two lines of its own and left /tmp/matplotlib-* behind each run;
    the launcher gives it a temp folder (MPLCONFIGDIR, before the figure workers start) and removes it at the end."""
    import os
    import sys
    from pathlib import Path

    from roofline.launch import remove_matplotlib_config, writable_matplotlib_config

    monkeypatch.setattr(sys, "argv", ["roofline", "sweep", "x"])  # a command that draws (qa401: `hw list` made one too)
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the config folder's parent should be")
    monkeypatch.delenv("MPLCONFIGDIR", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(blocked))
    writable_matplotlib_config()
    made = Path(os.environ["MPLCONFIGDIR"])
    assert made.is_dir() and made.name.startswith("roofline-matplotlib-")
    remove_matplotlib_config()
    assert not made.exists()
    monkeypatch.delenv("MPLCONFIGDIR")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))  # writable: matplotlib's own, nothing made
    writable_matplotlib_config()
    assert "MPLCONFIGDIR" not in os.environ and (tmp_path / "config" / "matplotlib").is_dir()
    monkeypatch.setenv("MPLCONFIGDIR", str(tmp_path / "mine"))  # the user's own: left alone
    writable_matplotlib_config()
    assert os.environ["MPLCONFIGDIR"] == str(tmp_path / "mine")
    monkeypatch.delenv("MPLCONFIGDIR")
    monkeypatch.setattr(sys, "argv", ["roofline", "hw", "list"])  # draws nothing: no folder probed or made
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "other"))
    writable_matplotlib_config()
    assert "MPLCONFIGDIR" not in os.environ and not (tmp_path / "other").exists()
    import pwd

    monkeypatch.setattr(sys, "argv", ["roofline", "report"])  # qa401: HOME set empty made /.config/matplotlib
    monkeypatch.delenv("XDG_CONFIG_HOME")
    monkeypatch.setenv("HOME", "")
    writable_matplotlib_config()
    assert os.environ["MPLCONFIGDIR"] == str(Path(pwd.getpwuid(os.getuid()).pw_dir) / ".config" / "matplotlib")
