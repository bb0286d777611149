"""The `roofline` executable: for a command that draws (`sweep`, `plot`), pandas is imported and the figure
workers start, then the CLI runs (`cli.run`).

By the time a command's body runs, this process has imported typer, and typer has imported pydantic
to parse the arguments: about 0.3 s on a 2-core machine, which the workers' own import of matplotlib (about
1 s) would otherwise wait for; the workers inherit pandas rather than import it again. The command is read from the arguments as typer will
read it (the first word that is not an option, `--profiles DIR` skipped); `--no-plots` or `--help` start
nothing. A command that fails before it takes the workers leaves them to `plot_jobs.stop_early`.
"""

from __future__ import annotations

import contextlib
import signal
import sys

DRAWING_COMMANDS = ("sweep", "plot")
MATPLOTLIB_COMMANDS = ("sweep", "plot", "report", "accuracy", "validate", "calibrate", "bench")  # those that import it


def command_of(argv: list[str]) -> str | None:
    """The subcommand `argv` names (its first word that is not an option), or None."""
    words = iter(argv)
    for word in words:
        if word == "--profiles":
            next(words, None)
        elif not word.startswith("-"):
            return word
    return None


def draws(argv: list[str]) -> bool:
    """Whether `roofline ARGV` will draw figures: `sweep` or `plot`, without --no-plots or --help."""
    return command_of(argv) in DRAWING_COMMANDS and not {"--no-plots", "--help"} & set(argv)


class Terminated(SystemExit):
    """SIGTERM, raised in the main thread (stop_on_sigterm)."""


_HELD = {"depth": 0, "pending": None}  # signals_held's state: how deep, and the signal that came meanwhile


def _stop(signum: int) -> BaseException:
    """What a signal raises in the main thread: KeyboardInterrupt for Ctrl-C (SIGINT), as Python's own handler does;
    Terminated(128 + signum) for SIGTERM and SIGHUP."""
    return KeyboardInterrupt() if signum == signal.SIGINT else Terminated(128 + signum)


@contextlib.contextmanager
def signals_held():
    """SIGTERM, SIGHUP and Ctrl-C (stop_on_sigterm's handlers) held back while the block runs and raised when it ends,
    so that what the block makes is known to the cleanup that follows: a staging folder made by mkdtemp, which a
    signal between its mkdir and its return left behind (session 39). The handler defers, whatever thread the signal
    reaches (qa183: a thread's signal mask held it on that thread only)."""
    _HELD["depth"] += 1
    try:
        yield
    finally:
        _HELD["depth"] -= 1
        pending = _HELD["pending"]
        if not _HELD["depth"] and pending is not None:
            _HELD["pending"] = None
            raise _stop(pending)


def stop_on_sigterm() -> None:
    """Make SIGTERM (`kill`, `timeout`, a job scheduler) and SIGHUP (the terminal closed, an ssh session dropped) end a
    command the way Ctrl-C does: a SystemExit raised in the main thread, so output folders still being staged are
    removed, Parquet sinks abandoned and figure workers stopped, with exit code 128 + the signal's number (143 for
    SIGTERM, 129 for SIGHUP) and one line on stderr (`run`). Ctrl-C keeps raising KeyboardInterrupt, through the same
    handler so that signals_held defers it too; where SIGINT is ignored (a job started in the background by a
    non-interactive shell) it stays ignored. Installed after the early workers are forked, which keep the default
    action (they are stopped by their pool)."""

    def terminate(signum, frame):
        if _HELD["depth"]:  # inside signals_held: raised when the block ends (the first signal that came)
            if _HELD["pending"] is None:
                _HELD["pending"] = signum
            return
        raise _stop(signum)

    signal.signal(signal.SIGTERM, terminate)
    if hasattr(signal, "SIGHUP"):  # not on Windows
        signal.signal(signal.SIGHUP, terminate)
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, terminate)


_MATPLOTLIB_CONFIG = {"made": None}  # the config folder writable_matplotlib_config made, removed when the command ends


def writable_matplotlib_config() -> None:
    """Give matplotlib a config folder in the system's temp folder (MPLCONFIGDIR, which the figure workers inherit: set
    before they start) where its own under HOME cannot be written, and remember it for remove_matplotlib_config
    (qa394: under a read-only HOME matplotlib said two lines of its own on stderr and left a temp folder each run, its
    atexit cleanup skipped by the command's os._exit and by the workers' exits). Nothing where its own will do."""
    import os
    import tempfile
    from pathlib import Path

    from roofline.profiles import home

    if os.environ.get("MPLCONFIGDIR") or command_of(sys.argv[1:]) not in MATPLOTLIB_COMMANDS:  # (qa401: `hw list` made
        return  # ~/.config/matplotlib)
    target = Path(os.environ.get("XDG_CONFIG_HOME") or home() / ".config") / "matplotlib"  # (qa401: HOME= made /.config)
    try:
        target.mkdir(parents=True, exist_ok=True)
        tempfile.NamedTemporaryFile(dir=target).close()  # written to know: root passes os.access on a read-only mount
        if not os.environ.get("XDG_CONFIG_HOME") and Path.home() != home():  # HOME set empty: matplotlib's own is /.config
            os.environ["MPLCONFIGDIR"] = str(target)
    except OSError:
        _MATPLOTLIB_CONFIG["made"] = os.environ["MPLCONFIGDIR"] = tempfile.mkdtemp(prefix="roofline-matplotlib-")


def remove_matplotlib_config() -> None:
    """Remove the folder writable_matplotlib_config made, if it made one."""
    import shutil

    made, _MATPLOTLIB_CONFIG["made"] = _MATPLOTLIB_CONFIG["made"], None
    if made:
        shutil.rmtree(made, ignore_errors=True)


def run(cli_module=None) -> None:
    """The executable's body; `cli_module` is cli.py's module where cli.py runs as a script (`python cli.py ...`:
    the same signal handling and figure workers as the installed executable; qa372: Ctrl-C hung it, SIGTERM left
    staging folders behind), else cli is imported."""
    try:
        if signal.getsignal(signal.SIGINT) is getattr(cli_module, "_interrupted_while_loading", False):  # cli.py's
            signal.signal(signal.SIGINT, signal.default_int_handler)  # while it loaded (one line, exit 130): Python's
            # own from here on, as the installed executable's (stop_on_sigterm routes it; cleanup reads KeyboardInterrupt)
        from roofline import plot_jobs
    except KeyboardInterrupt:  # Ctrl-C in the first import (qa189: a traceback): one line
        sys.stderr.write("interrupted\n")
        raise SystemExit(130) from None
    try:
        writable_matplotlib_config()
        if draws(sys.argv[1:]):
            # pandas first, then the fork: the figure workers inherit it, where this process and the workers' seed each
            # imported it on its own (about 0.4 s of CPU each on a 2-core machine); the seed's path to its first figure
            # is the same (pandas, then matplotlib), and this process's imports go on beside matplotlib's
            import pandas  # noqa: F401

            plot_jobs.start_early(len(plot_jobs.PLOT_NAMES))
        stop_on_sigterm()
        if cli_module is None:
            import cli as cli_module

        cli_module.run()
    except Terminated:
        sys.stderr.write("terminated\n")
        raise
    except KeyboardInterrupt:  # Ctrl-C before the CLI's own handler is in place (while it imports): one line, no traceback
        sys.stderr.write("interrupted\n")
        raise SystemExit(130) from None
    finally:
        plot_jobs.stop_early()
        remove_matplotlib_config()
