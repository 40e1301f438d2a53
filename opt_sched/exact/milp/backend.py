"""Running a PuLP model on CBC or HiGHS, with a proven bound and a safe HiGHS.

Two backends solve the MILP models (``opt_sched.exact.<problem>.milp``):

- ``"cbc"`` (default): the CBC executable bundled with PuLP (or ``cbc`` on the
  ``PATH``), through :class:`pulp.COIN_CMD`. CBC prints its proven bound only
  in its log, so the log is kept and parsed (:func:`parse_cbc_log`).
- ``"highs"``: HiGHS through :mod:`highspy`. The model is written as MPS and
  read by HiGHS, which reports its best bound as ``info.mip_dual_bound``.

**The ortools/highspy pitfall.** ortools 9.15 and highspy 1.15 cannot be loaded
in one process (an undefined symbol, in either import order; google/or-tools
#5246), and ``import pulp`` imports highspy when it is installed. So:

1. :func:`load_pulp` imports PuLP with ``highspy`` blocked (a ``None`` entry in
   ``sys.modules`` for the duration of the import); PuLP alone never loads it.
2. :func:`~opt_sched.highs_process.highs_mode` decides, once per process,
   where HiGHS runs: ``"in-process"`` when loading highspy here is safe
   (:func:`~opt_sched.highs_process.coexistence_probe`), else
   ``"subprocess"``; ``OPT_SCHED_HIGHS`` overrides it
   (:mod:`opt_sched.highs_process`, where the window LPs follow it too).
3. Both modes run the very same function, :func:`_highs_run`: in-process it is
   called directly; in a subprocess its source is shipped to a fresh
   ``python -c`` that imports only highspy (through
   :mod:`opt_sched.highs_process`), and the answer comes back as JSON.

**Statuses** (:class:`~opt_sched.exact.result.SolveStatus`): optimal; feasible
(an integer solution at the limit); infeasible; timeout-no-solution. An
"infeasible" that the MIP start refutes (:mod:`.start_point`) becomes
timeout-no-solution, and ``info["infeasible_refuted"]`` says so.

**Bounds.** CBC: the ``Lower bound:`` line of its final report, the objective
when it reports optimality, else the last ``best possible`` of the search,
else the ``Continuous objective value`` of its root LP. HiGHS:
``mip_dual_bound``. When none is available (e.g. the limit hit before the root
LP finished), the LP relaxation is solved and its value used -- a valid lower
bound of any minimisation MILP -- and ``bound_source`` says so.
"""

from __future__ import annotations

import dataclasses
import importlib.metadata
import importlib.util
import inspect
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar

from ...errors import OptionError, SolverError
from ...highs_process import HIGHS_MODES, coexistence_probe, highs_mode
from ..result import SolveStatus
from .start_point import satisfies, start_of

__all__ = [
    "BACKENDS",
    "EXPORT_SUFFIXES",
    "HIGHS_MODES",
    "MilpSettings",
    "MilpSolution",
    "coexistence_probe",
    "export_model",
    "highs_mode",
    "highs_presolve_default",
    "load_pulp",
    "parse_cbc_log",
    "prepare",
    "solve_milp",
    "solver_time",
]

BACKENDS = ("cbc", "highs")
EXPORT_SUFFIXES = (".lp", ".mps")
_WORKER_GRACE = 60.0
"""Seconds a HiGHS subprocess may run beyond the time limit before it is killed."""


# -- settings and outcome ----------------------------------------------------------
@dataclass(frozen=True)
class MilpSettings:
    """How a MILP backend runs: the options record of the MILP family, which
    every MILP model extends with its own fields.

    Parameters
    ----------
    backend
        ``"cbc"`` or ``"highs"``.
    time_limit
        Wall-clock seconds (``> 0``).
    gap_rel
        Relative MIP gap at which the solver stops and claims optimality. The
        default ``1e-9`` (HiGHS' own default is ``1e-4``) makes "optimal"
        mean optimal up to rounding.
    threads
        Solver threads (``None``: the solver's default).
    seed
        Random seed (HiGHS ``random_seed``, CBC ``randomCbcSeed``).
    warm_start
        Pass the variables' initial values (``LpVariable.setInitialValue``)
        to the solver as a starting incumbent.
    presolve
        ``None`` (default): the solver's own choice, except HiGHS 1.14.x,
        whose MIP presolve returns wrong "optimal" answers (ERGO-Code/HiGHS
        #2957, #2975, #3043, #3073; fixed by #2961 in 1.15.0): there it is
        off (see :func:`highs_presolve_default`). ``True``/``False`` force it.
    msg
        Print the solver log.
    export
        Write the model to this ``.lp`` / ``.mps`` path before solving.
    """

    EXPORT_SUFFIXES: ClassVar[tuple[str, ...]] = (".lp", ".mps")

    backend: str = "cbc"
    time_limit: float = 60.0
    gap_rel: float = 1e-9
    threads: int | None = None
    seed: int = 0
    warm_start: bool = True
    presolve: bool | None = None
    msg: bool = False
    export: str | None = None

    def __post_init__(self) -> None:
        if self.backend not in BACKENDS:
            raise OptionError(f"backend={self.backend!r} is not one of "
                              + ", ".join(BACKENDS))
        if isinstance(self.time_limit, bool) \
                or not isinstance(self.time_limit, (int, float)) \
                or not self.time_limit > 0 or math.isinf(self.time_limit):
            raise OptionError(f"time_limit={self.time_limit!r} must be a finite "
                              "number > 0")
        if isinstance(self.gap_rel, bool) \
                or not isinstance(self.gap_rel, (int, float)) \
                or not 0 <= self.gap_rel < 1:
            raise OptionError(f"gap_rel={self.gap_rel!r} must be in [0, 1)")
        if self.threads is not None and (isinstance(self.threads, bool)
                                         or not isinstance(self.threads, int)
                                         or self.threads < 1):
            raise OptionError(f"threads={self.threads!r} must be an integer >= 1")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) \
                or self.seed < 0:
            raise OptionError(f"seed={self.seed!r} must be an integer >= 0")
        if self.presolve not in (None, True, False):
            raise OptionError(f"presolve={self.presolve!r} must be None, True or "
                              "False")
        for name in ("warm_start", "msg"):
            if not isinstance(getattr(self, name), bool):
                raise OptionError(f"{name}={getattr(self, name)!r} must be True or "
                                  "False")
        if self.export is not None:
            suffix = Path(str(self.export)).suffix.lower()
            if suffix not in self.EXPORT_SUFFIXES:
                raise OptionError(f"export={str(self.export)!r}: suffix "
                                  f"{suffix or '(none)'!r} is not one of "
                                  + ", ".join(self.EXPORT_SUFFIXES))


@dataclass(frozen=True)
class MilpSolution:
    """What a backend found.

    ``values`` maps variable names to values (empty without a solution);
    ``objective`` is the solver's objective value and ``bound`` its proven
    lower bound (minimisation), both in model units; ``bound_source`` names
    where the bound comes from; ``mode`` how the solver ran.
    """

    status: SolveStatus
    values: Mapping[str, float]
    objective: float | None
    bound: float | None
    bound_source: str
    solver_status: str
    wall_time: float
    mode: str
    info: dict[str, Any] = field(default_factory=dict)


MIN_SOLVER_TIME = 0.25
"""Seconds a MILP solver gets at least, even when the deadline is near: less
than that and CBC / HiGHS rarely report even their root bound."""


def prepare(backend: str) -> None:
    """One-time set-up, before any time limit runs: import PuLP, and decide
    where HiGHS runs (:func:`highs_mode`, which may probe in subprocesses)."""
    load_pulp()
    if backend == "highs":
        highs_mode()


def solver_time(deadline: Any) -> float:
    """The time limit of a solver call: the time left on ``deadline``
    (:class:`opt_sched.exact.deadline.Deadline`), at least
    :data:`MIN_SOLVER_TIME`."""
    return max(MIN_SOLVER_TIME, deadline.remaining())


# -- loading PuLP without highspy --------------------------------------------------
def load_pulp() -> ModuleType:
    """``import pulp`` without letting it load highspy.

    PuLP's HiGHS class imports highspy at import time; if highspy cannot live
    next to ortools that would break CP-SAT for the rest of the process. The
    import is therefore made with ``sys.modules["highspy"] = None`` (which
    makes ``import highspy`` raise :class:`ImportError`, caught by PuLP); the
    entry is removed afterwards so that :func:`highs_mode` stays free to load
    highspy later. If PuLP is already imported this returns it as it is.
    """
    if "pulp" in sys.modules:
        return sys.modules["pulp"]
    blocked = "highspy" not in sys.modules
    if blocked:
        sys.modules["highspy"] = None  # type: ignore[assignment]
    try:
        import pulp
    except ImportError as exc:
        raise SolverError(f"pulp is not installed ({exc})") from None
    finally:
        if blocked and sys.modules.get("highspy", 0) is None:
            del sys.modules["highspy"]
    return pulp


# -- export ------------------------------------------------------------------------
def export_model(prob: Any, path: str | os.PathLike[str]) -> Path:
    """Write ``prob`` as ``.lp`` or ``.mps``, chosen by the file suffix.

    Raises
    ------
    OptionError
        If the suffix is neither ``.lp`` nor ``.mps``.
    """
    target = Path(path)
    suffix = target.suffix.lower()
    if suffix not in EXPORT_SUFFIXES:
        raise OptionError(f"export={str(path)!r}: suffix {suffix or '(none)'!r} is "
                          "not one of " + ", ".join(EXPORT_SUFFIXES))
    target.parent.mkdir(parents=True, exist_ok=True)
    if suffix == ".lp":
        prob.writeLP(str(target))
    else:
        prob.writeMPS(str(target))
    return target


# -- front door --------------------------------------------------------------------
def solve_milp(prob: Any, settings: MilpSettings) -> MilpSolution:
    """Solve the minimisation MILP ``prob`` (a :class:`pulp.LpProblem`).

    Returns the status, the variable values by name, the solver's objective
    and a proven lower bound (see module doc for where it comes from). The
    solver runs for ``settings.time_limit``; the LP relaxation fallback, when
    needed, for the time left, at least :data:`MIN_SOLVER_TIME`.

    Raises
    ------
    SolverError
        The backend is unavailable or failed (a crash, an unbounded model).
    """
    pulp = load_pulp()
    if prob.sense != pulp.LpMinimize:
        raise SolverError(f"solve_milp: model {prob.name!r} is not a minimisation")
    start = time.perf_counter()
    end = time.time() + settings.time_limit  # epoch: shared with a subprocess
    witness = start_of(prob) if settings.warm_start else None
    if settings.backend == "cbc":
        out = _solve_cbc(prob, settings, end=end)
    else:
        out = _solve_highs(prob, settings, end=end)
    status, values, objective, bound, source, raw, mode, info = out
    if status is SolveStatus.INFEASIBLE and witness is not None \
            and satisfies(prob, witness):
        # a refuted verdict proves nothing, not even its bound (start_point)
        info["infeasible_refuted"] = (f"{settings.backend} reported {raw}, but the "
                                      "MIP start satisfies every row: discarded")
        status, values, objective, bound, source = (
            SolveStatus.TIMEOUT_NO_SOLUTION, {}, None, None, "none")
    left = max(MIN_SOLVER_TIME, end - time.time())
    if bound is None and status in (SolveStatus.FEASIBLE,
                                    SolveStatus.TIMEOUT_NO_SOLUTION):
        bound = _relaxation_bound(prob, dataclasses.replace(settings, time_limit=left))
        source = "lp-relaxation" if bound is not None else "none"
    return MilpSolution(status, values, objective, bound, source, raw,
                        time.perf_counter() - start, mode, info)


_Outcome = tuple[SolveStatus, dict[str, float], float | None, float | None, str, str,
                 str, dict[str, Any]]


# -- CBC ---------------------------------------------------------------------------
def _cbc_path() -> str:
    """The bundled CBC if PuLP ships one for this platform, else ``cbc``."""
    pulp = load_pulp()
    bundled = getattr(pulp.PULP_CBC_CMD, "pulp_cbc_path", None)
    if bundled and os.path.isfile(bundled) and os.access(bundled, os.X_OK):
        return str(bundled)
    found = shutil.which("cbc")
    if found is None:
        raise SolverError("backend='cbc': no CBC executable (PuLP's bundled one is "
                          "missing and cbc is not on PATH)")
    return found


_CBC_FLOAT = r"(-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)"


def _printed(text: str) -> float:
    """A number as CBC printed it, lowered by half a unit of its last printed
    digit, so that a bound rounded up in the log stays a valid bound."""
    value = float(text)
    mantissa = text.lower().split("e")[0]
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    exponent = int(text.lower().split("e")[1]) if "e" in text.lower() else 0
    return value - 0.5 * 10.0 ** (exponent - decimals)


def parse_cbc_log(text: str) -> tuple[float | None, str]:
    """The proven lower bound in a CBC log (minimisation) and its source.

    In order of preference: the ``Lower bound:`` line of the final
    ``Result -`` block; its ``Objective value:`` when the result is
    ``Optimal solution found``; the last ``best possible`` of the search;
    the ``Continuous objective value`` of the root LP. ``(None, "none")`` if
    the log has none of them. CBC prints these with few decimals (``Lower
    bound: 63778.240``); the value returned is lowered by half a unit of the
    last printed digit, so that it remains a valid lower bound.

    Examples
    --------
    >>> parse_cbc_log("Result - Stopped on time limit\\n\\n"
    ...               "Objective value: 12.0\\nLower bound: 10.5\\n")
    (10.45, 'cbc-log:lower-bound')
    """
    result = text.rfind("Result -")
    if result >= 0:
        block = text[result:]
        found = re.search(r"^Lower bound:\s*" + _CBC_FLOAT, block, re.M)
        if found:
            return _printed(found.group(1)), "cbc-log:lower-bound"
        if block.startswith("Result - Optimal solution found"):
            found = re.search(r"^Objective value:\s*" + _CBC_FLOAT, block, re.M)
            if found:
                return _printed(found.group(1)), "cbc-log:optimal"
    possible = re.findall(r"best possible\s+" + _CBC_FLOAT, text)
    if possible:
        return _printed(possible[-1]), "cbc-log:best-possible"
    continuous = re.findall(r"Continuous objective value is\s+" + _CBC_FLOAT, text)
    if continuous:
        return _printed(continuous[-1]), "cbc-log:root-lp"
    return None, "none"


def _run_cbc(prob: Any, settings: MilpSettings, relax: bool, warm: bool,
             end: float | None = None) -> str:
    """One CBC run on ``prob`` (values and status written into it); its log."""
    pulp = load_pulp()
    with tempfile.TemporaryDirectory(prefix="opt_sched_cbc_") as tmp:
        log_path = os.path.join(tmp, "cbc.log")
        options = [f"randomCbcSeed {settings.seed}"] if settings.seed else []
        solver = pulp.COIN_CMD(path=_cbc_path(), mip=not relax, msg=False,
                               timeLimit=_left(settings, end),
                               gapRel=None if relax else settings.gap_rel,
                               threads=settings.threads, warmStart=warm,
                               presolve=settings.presolve,
                               logPath=log_path, options=options)
        solver.tmpDir = tmp
        try:
            prob.solve(solver)
        except KeyboardInterrupt:
            # PuLP waits for CBC without stopping it: CBC would go on for
            # the rest of its time limit, orphaned, with its files in tmp
            _kill_children_naming(tmp)
            raise
        try:
            return Path(log_path).read_text(errors="replace")
        except OSError:
            return ""


def _kill_children_naming(text: str) -> None:
    """Kill this process's children whose command line contains ``text``
    (the CBC that PuLP started on files in a temporary folder). Linux
    (``/proc``); elsewhere nothing."""
    proc = Path("/proc")
    if not proc.is_dir():
        return
    me = os.getpid()
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            parent = int(stat.rsplit(")", 1)[1].split()[1])
            if parent == me and text in (entry / "cmdline").read_bytes().decode(
                    "utf-8", "replace"):
                os.kill(int(entry.name), signal.SIGKILL)
                os.waitpid(int(entry.name), 0)
        except (OSError, ValueError, IndexError, ChildProcessError):
            continue


def _left(settings: MilpSettings, end: float | None) -> float:
    """Seconds left until ``end`` (epoch), or the whole limit."""
    if end is None:
        return float(settings.time_limit)
    return max(0.01, min(float(settings.time_limit), end - time.time()))


def _solve_cbc(prob: Any, settings: MilpSettings, *, relax: bool = False,
               end: float | None = None) -> _Outcome:
    """CBC through :class:`pulp.COIN_CMD`.

    The CBC 2.10.3 that PuLP bundles can crash (segmentation fault, after
    printing its result) when the time limit stops it at the root with a MIP
    start; the run is then repeated once without the start, and
    ``info["cbc_retry"]`` says so.
    """
    pulp = load_pulp()
    warm = (settings.warm_start and not relax
            and any(v.varValue is not None for v in prob.variables()))
    info: dict[str, Any] = {}
    try:
        log = _run_cbc(prob, settings, relax, warm, end)
    except pulp.PulpSolverError as exc:
        if not warm:
            raise SolverError(f"backend='cbc': {str(exc).splitlines()[0]}") from None
        info["cbc_retry"] = "CBC failed with the MIP start; solved again without"
        try:
            log = _run_cbc(prob, settings, relax, False, end)
        except pulp.PulpSolverError as again:
            raise SolverError(f"backend='cbc': {str(again).splitlines()[0]}") \
                from None
    if settings.msg:
        print(log, file=sys.stderr)
    raw = f"{pulp.LpStatus[prob.status]}/{pulp.LpSolution[prob.sol_status]}"
    if prob.sol_status == pulp.LpSolutionOptimal:
        status = SolveStatus.OPTIMAL
    elif prob.sol_status == pulp.LpSolutionIntegerFeasible:
        status = SolveStatus.FEASIBLE
    elif prob.status == pulp.LpStatusInfeasible:
        status = SolveStatus.INFEASIBLE
    elif prob.status == pulp.LpStatusUnbounded:
        raise SolverError(f"backend='cbc': model {prob.name!r} is unbounded")
    else:
        status = SolveStatus.TIMEOUT_NO_SOLUTION
    values: dict[str, float] = {}
    objective = None
    if status in (SolveStatus.OPTIMAL, SolveStatus.FEASIBLE):
        values = {v.name: float(v.varValue) for v in prob.variables()
                  if v.varValue is not None}
        objective = float(pulp.value(prob.objective))
    bound, source = (None, "none")
    if status is not SolveStatus.INFEASIBLE:
        bound, source = parse_cbc_log(log)
        if relax and bound is None and objective is not None:
            bound, source = objective, "cbc-lp"
    return status, values, objective, bound, source, raw, "cbc-cmd", info


# -- HiGHS -------------------------------------------------------------------------
def _highs_run(mps_path: str, options: dict, start: dict | None) -> dict:
    """Solve the MPS model at ``mps_path`` with highspy and describe the outcome.

    Self-contained (it imports only :mod:`opt_sched.highs_process`, which
    loads highspy without its banner and no other solver, and runs unchanged
    in a fresh interpreter, see :func:`_solve_highs`); Ctrl-C stops it at once
    (:func:`~opt_sched.highs_process.run_interruptibly`). ``options`` are
    HiGHS options by name (``deadline_epoch``, if present, sets
    ``time_limit`` to the seconds left until that :func:`time.time`, so that
    the start-up of a subprocess counts); ``start`` maps every column name
    to a starting value.
    Returns a JSON-ready dict: ``model_status`` (the HiGHS name),
    ``has_solution``, ``columns`` (names), ``values``, ``objective`` and
    ``dual_bound`` (``mip_dual_bound`` for a MIP, the LP optimum for an LP).
    """
    import math
    import time

    from opt_sched.highs_process import load_highspy, run_interruptibly

    highspy = load_highspy()

    end = options.pop("deadline_epoch", None)
    h = highspy.Highs()
    h.setOptionValue("output_flag", bool(options.pop("output_flag", False)))
    status = h.readModel(mps_path)
    if status == highspy.HighsStatus.kError:
        raise RuntimeError(f"HiGHS cannot read {mps_path}")
    if end is not None:
        options["time_limit"] = max(0.01, min(float(options.get("time_limit", end)),
                                              end - time.time()))
    for name, value in options.items():
        if h.setOptionValue(name, value) == highspy.HighsStatus.kError:
            raise RuntimeError(f"HiGHS option {name}={value!r} rejected")
    lp = h.getLp()
    names = list(lp.col_names_)
    integral = any(t != highspy.HighsVarType.kContinuous
                   for t in getattr(lp, "integrality_", []))
    if start is not None and set(start) == set(names):
        sol = highspy.HighsSolution()
        sol.col_value = [float(start[name]) for name in names]
        sol.value_valid = True
        h.setSolution(sol)
    run_interruptibly(h)
    model_status = h.getModelStatus()
    info = h.getInfo()
    has_solution = info.primal_solution_status == 2  # kSolutionStatusFeasible
    values = list(h.getSolution().col_value) if has_solution else []
    objective = info.objective_function_value if has_solution else None
    if integral and not bool(options.get("solve_relaxation", False)):
        bound = info.mip_dual_bound
    else:
        bound = (info.objective_function_value
                 if model_status == highspy.HighsModelStatus.kOptimal else None)
    if bound is not None and not math.isfinite(bound):
        bound = None
    return {"model_status": h.modelStatusToString(model_status),
            "has_solution": has_solution, "columns": names, "values": values,
            "objective": objective, "dual_bound": bound}


def _highs_subprocess(mps_path: str, options: dict, start: dict | None,
                      limit: float) -> dict:
    """Run :func:`_highs_run` in a fresh interpreter (no ortools there)."""
    source = inspect.getsource(_highs_run)
    script = source + textwrap.dedent("""
        import json, sys
        with open(sys.argv[1]) as f:
            request = json.load(f)
        answer = _highs_run(request["mps"], request["options"], request["start"])
        with open(sys.argv[2], "w") as f:
            json.dump(answer, f)
    """)
    folder = os.path.dirname(mps_path)
    request = os.path.join(folder, "request.json")
    answer = os.path.join(folder, "answer.json")
    with open(request, "w") as f:
        json.dump({"mps": mps_path, "options": options, "start": start}, f)
    try:
        proc = subprocess.run([sys.executable, "-c", script, request, answer],
                              capture_output=True, text=True,
                              timeout=limit + _WORKER_GRACE)
    except subprocess.TimeoutExpired:
        raise SolverError(f"backend='highs': subprocess exceeded time_limit={limit:g} "
                          f"by {_WORKER_GRACE:g} s") from None
    if proc.returncode != 0 or not os.path.exists(answer):
        lines = (proc.stderr or "").strip().splitlines()
        last = lines[-1] if lines else f"exit status {proc.returncode}"
        raise SolverError(f"backend='highs': subprocess failed: {last}")
    with open(answer) as f:
        return json.load(f)


def highs_presolve_default() -> bool:
    """Whether HiGHS presolve is on by default: not for highspy 1.14.x.

    HiGHS 1.14.0 MIP presolve returns suboptimal solutions flagged optimal,
    even on two-variable models (ERGO-Code/HiGHS #2957, #3043, #3073; fixed
    by #2961, first released in 1.15.0). 1.15 cannot share a process with
    ortools 9.15 (google/or-tools #5246), which :func:`highs_mode` handles by
    running HiGHS in a subprocess.
    """
    try:
        version = importlib.metadata.version("highspy")
    except importlib.metadata.PackageNotFoundError:
        return True
    return not version.startswith("1.14.")


def _highs_options(settings: MilpSettings, relax: bool,
                   end: float | None = None) -> dict:
    options: dict[str, Any] = {"output_flag": settings.msg,
                               "time_limit": float(settings.time_limit),
                               "random_seed": settings.seed}
    if end is not None:
        options["deadline_epoch"] = end
    presolve = settings.presolve
    if presolve is None:
        presolve = highs_presolve_default()
    options["presolve"] = "choose" if presolve else "off"
    if relax:
        options["solve_relaxation"] = True
    else:
        options["mip_rel_gap"] = float(settings.gap_rel)
    if settings.threads is not None:
        options["threads"] = settings.threads
    return options


def _solve_highs(prob: Any, settings: MilpSettings, *, relax: bool = False,
                 end: float | None = None) -> _Outcome:
    mode = highs_mode()
    if mode == "unavailable":
        raise SolverError("backend='highs': highspy is not installed")
    options = _highs_options(settings, relax, end)
    with tempfile.TemporaryDirectory(prefix="opt_sched_highs_") as tmp:
        mps_path = os.path.join(tmp, "model.mps")
        variables, names, _, _ = prob.writeMPS(mps_path, rename=True)
        start = None
        if settings.warm_start and not relax \
                and all(v.varValue is not None for v in variables):
            start = {names[v.name]: float(v.varValue) for v in variables}
        try:
            if mode == "in-process":
                answer = _highs_run(mps_path, dict(options), start)
            else:
                answer = _highs_subprocess(mps_path, options, start,
                                           settings.time_limit)
        except RuntimeError as exc:
            raise SolverError(f"backend='highs': {exc}") from None
    raw = str(answer["model_status"])
    lowered = raw.lower()
    if answer["has_solution"] and lowered == "optimal":
        status = SolveStatus.OPTIMAL
    elif answer["has_solution"]:
        status = SolveStatus.FEASIBLE
    elif "unbounded" in lowered and "infeasible" not in lowered:
        raise SolverError(f"backend='highs': model {prob.name!r} is unbounded")
    elif "infeasible" in lowered:
        status = SolveStatus.INFEASIBLE
    else:
        status = SolveStatus.TIMEOUT_NO_SOLUTION
    old = {new: old for old, new in names.items()}
    values = {old.get(col, col): float(x)
              for col, x in zip(answer["columns"], answer["values"])}
    bound = answer["dual_bound"]
    if status is SolveStatus.INFEASIBLE:
        bound = None
    objective = answer["objective"]
    source = "highs:lp" if relax else "highs:mip-dual-bound"
    return (status, values, objective, bound, source if bound is not None else "none",
            raw, f"highs-{mode}", {})


# -- LP relaxation fallback --------------------------------------------------------
def _relaxation_bound(prob: Any, settings: MilpSettings) -> float | None:
    """The LP relaxation value of ``prob``: a valid lower bound of the MILP.

    Solved with the same backend; the variable values of ``prob`` are restored
    afterwards so that the incumbent is not lost.
    """
    saved = {v.name: v.varValue for v in prob.variables()}
    try:
        if settings.backend == "cbc":
            out = _solve_cbc(prob, settings, relax=True)
        else:
            out = _solve_highs(prob, settings, relax=True)
    finally:
        for v in prob.variables():
            v.varValue = saved[v.name]
    status, _, objective, bound, *_ = out
    if status is SolveStatus.OPTIMAL and objective is not None:
        return float(objective)
    return bound if bound is not None and math.isfinite(bound) else None
