"""HiGHS in a fresh interpreter: the LP bounds of a window propose their
multipliers there, because highspy and ortools cannot share a process
(:mod:`opt_sched.exact.milp.backend`).

The caller writes its arrays to a request file and runs ``python -m MODULE
REQUEST ANSWER``; the module's ``_main`` calls :func:`serve` with its
handler, which reads the request and writes the answer atomically. Only
numpy arrays cross, so the answer is data, never code; the bound computed
from it stays valid whatever the solver did (each caller checks its own
multipliers by weak duality).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Callable

import numpy as np

__all__ = ["ask", "serve"]

Arrays = dict[str, np.ndarray]


def ask(module: str, request: Arrays, time_limit: float, grace: float) -> Arrays | None:
    """Run ``python -m module`` on ``request`` (plus ``time_limit``) and
    return its answer arrays, or ``None`` when the process fails or
    overruns ``time_limit + grace`` seconds."""
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
        if proc.returncode != 0 or not os.path.exists(answer):
            return None
        with np.load(answer) as out:
            return {key: out[key] for key in out.files}


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
