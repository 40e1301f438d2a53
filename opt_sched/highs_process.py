"""Where HiGHS runs, and the window LPs' calls to it.

**Where.** ortools 9.15 and highspy 1.15 cannot be loaded in one process
(an undefined symbol, in either import order; google/or-tools #5246).
:func:`highs_mode` decides, once per process, where HiGHS runs:
``"in-process"`` when loading highspy here is safe, else ``"subprocess"``.
It is safe when highspy is already loaded, when ortools is not installed,
or when :func:`coexistence_probe` (two fresh interpreters importing ortools
and highspy in both orders and solving a trivial model with each) succeeds.
The environment variable ``OPT_SCHED_HIGHS`` (``auto``, ``in-process``,
``subprocess``) overrides the decision. The MILP backend
(:mod:`opt_sched.exact.milp.backend`) and :func:`ask` both follow it.

**The window LPs** propose their multipliers through :func:`ask`, which
calls a module's handler on a request of numpy arrays: here, or in a fresh
``python -m MODULE REQUEST ANSWER`` whose ``__main__`` calls :func:`serve`
with the same handler (the request read from a file, the answer written
atomically). Only numpy arrays cross, so the answer is data, never code;
the bound computed from it stays valid whatever the solver did (each caller
checks its own multipliers by weak duality).

**Ctrl-C.** :func:`run_interruptibly` runs ``Highs.run`` in highspy's
solver thread, so that a KeyboardInterrupt cancels the solve at once and is
raised again (a plain ``run()`` holds it until the solver's time limit).
"""

from __future__ import annotations

import functools
import importlib.util
import os
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Callable
from typing import Any

import numpy as np

from .errors import OptionError

__all__ = ["HIGHS_ENV", "HIGHS_MODES", "ask", "coexistence_probe", "highs_mode",
           "load_highspy", "probe_said_ok", "run_interruptibly", "serve"]

Arrays = dict[str, np.ndarray]
Handler = Callable[[Arrays, float], Arrays]

HIGHS_MODES = ("auto", "in-process", "subprocess")
HIGHS_ENV = "OPT_SCHED_HIGHS"

_PROBE_TIMEOUT = 120.0
"""Seconds the coexistence probe may take before it is deemed a failure."""

_PROBE_SCRIPT = textwrap.dedent("""
    import sys

    def cpsat():
        from ortools.sat.python import cp_model
        model = cp_model.CpModel()
        x = model.new_int_var(0, 10, "x")
        model.add(x >= 3)
        model.minimize(x)
        solver = cp_model.CpSolver()
        assert solver.solve(model) == cp_model.OPTIMAL and solver.value(x) == 3

    def highs():
        import highspy
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        inf = highspy.kHighsInf
        h.addCol(1.0, 3.0, inf, 0, [], [])
        h.run()
        assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal
        assert abs(h.getInfo().objective_function_value - 3.0) < 1e-9

    for step in sys.argv[1:]:
        {"cpsat": cpsat, "highs": highs}[step]()
    print("ok")
""")


def probe_said_ok(stdout: str) -> bool:
    """Whether a probe interpreter's ``stdout`` ends with the line ``ok``.

    Only the last line counts: highspy 1.16 prints its banner ("Running
    HiGHS ...") on standard output when a ``Highs`` object is made, before
    any option can silence it, and a probe that wanted ``ok`` alone took
    that banner for a failure."""
    lines = [line.strip() for line in stdout.splitlines() if line.strip()]
    return bool(lines) and lines[-1] == "ok"


@functools.lru_cache(maxsize=1)
def coexistence_probe() -> bool:
    """Whether ortools (CP-SAT) and highspy work in one process, in both orders.

    Runs two fresh interpreters concurrently, one importing and using CP-SAT
    then HiGHS, the other HiGHS then CP-SAT; each solves a trivial model with
    both. ``True`` iff both exit 0 and end with ``ok``
    (:func:`probe_said_ok`). Cached for the process (about half a second,
    once).
    """
    procs = [subprocess.Popen([sys.executable, "-c", _PROBE_SCRIPT, *order],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              text=True)
             for order in (("cpsat", "highs"), ("highs", "cpsat"))]
    ok = True
    for proc in procs:
        try:
            out, _ = proc.communicate(timeout=_PROBE_TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            ok = False
            continue
        ok = ok and proc.returncode == 0 and probe_said_ok(out)
    return ok


@functools.lru_cache(maxsize=1)
def _auto_mode() -> str:
    if importlib.util.find_spec("highspy") is None:
        return "unavailable"
    if "highspy" in sys.modules or importlib.util.find_spec("ortools") is None:
        return "in-process"
    return "in-process" if coexistence_probe() else "subprocess"


def highs_mode() -> str:
    """``"in-process"``, ``"subprocess"`` or ``"unavailable"``: where HiGHS runs.

    ``OPT_SCHED_HIGHS`` (``auto`` by default, ``in-process``, ``subprocess``)
    forces a mode; ``auto`` is decided once per process (see module doc).
    """
    wanted = os.environ.get(HIGHS_ENV, "auto").strip().lower() or "auto"
    if wanted not in HIGHS_MODES:
        raise OptionError(f"{HIGHS_ENV}={wanted!r} is not one of "
                          + ", ".join(HIGHS_MODES))
    if wanted == "auto":
        return _auto_mode()
    if importlib.util.find_spec("highspy") is None:
        return "unavailable"
    return wanted


@functools.lru_cache(maxsize=1)
def load_highspy() -> Any:
    """``import highspy``, its banner swallowed: highspy 1.16 prints "Running
    HiGHS ..." on standard output (file descriptor 1, not ``sys.stdout``)
    when the first ``Highs`` of a process is made, whatever its options, and
    in this process that would corrupt a command's ``--json`` output. The
    first ``Highs`` is therefore made here with descriptor 1 pointed at a
    temporary file, which is thrown away; later ones print nothing."""
    import ctypes

    import highspy

    if sys.stdout is not None:
        sys.stdout.flush()
    try:
        saved = os.dup(1)
    except OSError:  # no descriptor 1: nothing to corrupt
        highspy.Highs()
        return highspy
    try:
        with tempfile.TemporaryFile() as sink:
            os.dup2(sink.fileno(), 1)
            try:
                highspy.Highs()
            finally:
                ctypes.CDLL(None).fflush(None)  # C buffers, into the sink
                os.dup2(saved, 1)
    finally:
        os.close(saved)
    return highspy


def run_interruptibly(h: Any) -> None:
    """``h.run()`` for a ``highspy.Highs`` model, stopped at once by Ctrl-C:
    the solve runs in highspy's solver thread while this thread waits, and
    a KeyboardInterrupt cancels the solve, waits for it to stop, and is
    raised again. (A highspy without ``startSolve`` runs it plainly.)"""
    if not hasattr(h, "startSolve"):
        h.run()
        return
    h.HandleUserInterrupt = True
    h.startSolve()
    try:
        while not h.wait(0.05)[0]:
            pass
    except KeyboardInterrupt:
        h.cancelSolve()
        h.wait()
        raise


def ask(handler: Handler, request: Arrays, time_limit: float, grace: float
        ) -> Arrays | None:
    """``handler(request, time_limit)``: here when :func:`highs_mode` says
    HiGHS may run in this process (on a copy of the request, as a fresh
    process would read it), else in ``python -m <handler's module>``
    (:func:`serve`).

    Returns the answer arrays, or ``None`` when there is no answer for a
    reason outside opt_sched: the memory ran out (``MemoryError`` here, a
    signal such as the OOM killer's there), HiGHS crashed its process, or the
    process overran ``time_limit + grace`` seconds. An exception of the
    handler is a bug and is raised (here as itself, from a process as a
    ``RuntimeError`` carrying its last line), so that a command exits 3
    instead of silently giving a weaker bound."""
    if highs_mode() == "in-process":
        try:
            return handler({key: np.array(value, copy=True)
                            for key, value in request.items()}, time_limit)
        except MemoryError:
            return None
    module = handler.__module__
    with tempfile.TemporaryDirectory(prefix="opt-sched-lp-") as folder:
        asked = os.path.join(folder, "request.npz")
        answer = os.path.join(folder, "answer.npz")
        np.savez(asked, time_limit=np.array(time_limit), **request)
        try:
            proc = subprocess.run([sys.executable, "-m", module, asked, answer],
                                  capture_output=True, text=True,
                                  timeout=time_limit + grace)
        except subprocess.TimeoutExpired:
            return None
        if proc.returncode > 0 and not _ran_out_of_memory(proc.stderr):
            raise RuntimeError(f"{module} failed: {_last_line(proc.stderr)}")
        if proc.returncode != 0 or not os.path.exists(answer):
            return None
        with np.load(answer) as out:
            return {key: out[key] for key in out.files}


def _last_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1].strip() if lines else "no message"


def _ran_out_of_memory(stderr: str) -> bool:
    return _last_line(stderr).startswith("MemoryError")


def serve(argv: list[str], handler: Callable[[Arrays, float], Arrays]) -> int:
    """The subprocess side of :func:`ask`: ``argv = [REQUEST, ANSWER]``; the
    handler gets the request's arrays and its time limit and returns the
    answer's arrays, written to a temporary file renamed into place."""
    asked, answer = argv
    with np.load(asked) as f:
        data = {key: f[key] for key in f.files}
    limit = float(data.pop("time_limit"))
    out = handler(data, limit)
    tmp = answer + ".part.npz"
    np.savez(tmp, **out)
    os.replace(tmp, answer)
    return 0
