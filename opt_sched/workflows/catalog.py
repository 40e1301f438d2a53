"""The workflows of seed 002 (Paper V, Tables 1 and 2), with the digest's
corrections; documented in ``instances/workflows.md``.

The thesis gives each workflow's number of tasks, critical path, maximum
cores and usage/waste (Table 2), and the manifest of LongWide (Fig. 4), but
not the task graphs of the four real workflows. These come from the
manifests ScSF ships (repository ``gonzalorodrigo/ScSFWorkload``,
``bin/manifests/*.json`` and ``bin/xml/*-limit.json``, generated from the
Pegasus WorkflowGenerator): each task's cores, real run time
(``runtime_sim``) and requested time (``runtime_limit``, 60 s more), and
the DAG. Cross-checks against Table 2 (core-hours = cores x hours):

============  =====  ==============  =========  =========================
workflow      tasks  critical path   max cores  usage / waste (core-h)
============  =====  ==============  =========  =========================
longwide      2      5 h (4 + 1)     480       672 / 1728 (requested
                                                times; 663 / 1721 with the
                                                run times; Table 2 prints 3 h:
                                                480 x 5 h = 2400 = 672 +
                                                1728, so 5 h is right)
widelong      2      5 h              480       672 / 1728 (same)
floodplain    7      32.5 h           512       5624 / 11016 (exact)
montage       5      7.62 h           960       378 / 6934 (Table 2: 7.6 h,
                                                375 / 6920)
cybershake    5      4.47 h           721       1152 / 2072 (Table 2: 4.5 h,
                                                1145 / 2077)
sipht         12     1.14 h (1.20 h   480       149 / 397 (Table 2: 9 jobs,
                     requested)                 384 cores, 185 / 395, whose
                                                sum 580 = 483 x 1.2 h fits
                                                480 cores, not 384)
============  =====  ==============  =========  =========================

LongWide and WideLong use the thesis's Fig. 4 times as requested times and
run 60 s less, as ScSF's synthetic manifests do. The synthetic groups of
Table 1 (:func:`group_workflow`) run exactly their requested hours; group
B's second task lasts 1 h (Table 1 prints the pilot's "2n h", the digest's
correction: 2 h).
"""

from __future__ import annotations

from ..errors import OptionError
from .manifest import Task, Workflow

__all__ = ["WORKFLOW_NAMES", "catalog_workflow", "group_workflow"]

_LIMIT_PAD = 60.0
"""ScSF requests every task's run time plus 60 s."""


def _t(task_id: str, cores: int, runtime: float, deps: tuple[str, ...] = (),
       walltime: float | None = None) -> Task:
    wall = runtime + _LIMIT_PAD if walltime is None else walltime
    return Task(task_id, cores, runtime, wall, deps)


def _longwide() -> Workflow:
    return Workflow("longwide", (
        _t("SLong", 48, 14340.0, walltime=14400.0),
        _t("SWide", 480, 3540.0, ("SLong",), walltime=3600.0)))


def _widelong() -> Workflow:
    return Workflow("widelong", (
        _t("SWide", 480, 3540.0, walltime=3600.0),
        _t("SLong", 48, 14340.0, ("SWide",), walltime=14400.0)))


def _floodplain() -> Workflow:
    return Workflow("floodplain", (
        _t("S0", 256, 39600.0),
        _t("S1", 256, 3600.0),
        _t("S2", 192, 10800.0, ("S0", "S3")),
        _t("S3", 10, 28800.0, ("S0", "S1")),
        _t("S4", 160, 14400.0, ("S0", "S5")),
        _t("S5", 8, 46800.0, ("S0", "S1")),
        _t("S6", 256, 16200.0, ("S2", "S4"))))


def _montage() -> Workflow:
    return Workflow("montage", (
        _t("S0", 120, 543.7283333333339),
        _t("S1", 960, 1270.785965826264, ("S0",)),
        _t("S4", 1, 20787.09, ("S1",)),
        _t("S2", 120, 429.4928333333332, ("S0", "S4")),
        _t("S3", 1, 4389.62, ("S2",))))


def _cybershake() -> Workflow:
    return Workflow("cybershake", (
        _t("S0", 120, 11574.443831999983),
        _t("S1", 720, 3736.7750578339087, ("S0",)),
        _t("S2", 720, 93.57355107983463, ("S1",)),
        _t("S3", 1, 325.26, ("S1",)),
        _t("S4", 1, 695.81, ("S2",))))


def _sipht() -> Workflow:
    return Workflow("sipht", (
        _t("S0", 96, 15.37413280824698),
        _t("S1", 96, 1332.443440322581),
        _t("S2", 96, 36.97342258064516),
        _t("S3", 96, 55.036720967741914),
        _t("S4", 96, 2335.137403225807),
        _t("S5", 96, 354.9135645161291, ("S1", "S2", "S3", "S4")),
        _t("S7", 96, 1.6607467741935489, ("S5",)),
        _t("S8", 96, 1399.7314983870965, ("S5",)),
        _t("S9", 96, 32.86619999999998, ("S5", "S7")),
        _t("S10", 96, 5.100198387096776, ("S5",)),
        _t("S11", 96, 5.059441935483872, ("S5",)),
        _t("S6", 96, 1.6553677419354835,
           ("S0", "S5", "S8", "S9", "S10", "S11"))))


_BUILDERS = {
    "longwide": _longwide,
    "widelong": _widelong,
    "floodplain": _floodplain,
    "montage": _montage,
    "cybershake": _cybershake,
    "sipht": _sipht,
}

WORKFLOW_NAMES = tuple(_BUILDERS)
"""The six workflows of Paper V Table 2."""


def catalog_workflow(name: str) -> Workflow:
    """One of :data:`WORKFLOW_NAMES` (case-insensitive), or a Table 1 group
    workflow ``A<n>``, ``B<n>``, ``C<n>`` (e.g. ``"B4"``)."""
    key = str(name).strip().lower()
    if key in _BUILDERS:
        return _BUILDERS[key]()
    if len(key) >= 2 and key[0] in "abc" and key[1:].isdigit():
        return group_workflow(key[0].upper(), int(key[1:]))
    raise OptionError(f"workflow={name!r} is unknown; choose one of "
                      f"{', '.join(WORKFLOW_NAMES)} or A<n>/B<n>/C<n>")


def group_workflow(group: str, n: int) -> Workflow:
    """A synthetic workflow of Paper V Table 1 (240-core, 1 h building
    blocks; ``n`` >= 1):

    - ``A``: a chain of ``n`` tasks of 240 cores, 1 h;
    - ``B``: 240 cores for 1 h, then ``240 n`` cores for 1 h;
    - ``C``: 240 cores for 1 h, then ``240 n`` cores for ``2n - 1`` h.
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise OptionError(f"group workflow: n={n!r} must be an integer >= 1")
    hour = 3600.0
    if group == "A":
        tasks = [Task("T0", 240, hour, hour)]
        tasks += [Task(f"T{i}", 240, hour, hour, (f"T{i - 1}",)) for i in range(1, n)]
    elif group == "B":
        tasks = [Task("T0", 240, hour, hour),
                 Task("T1", 240 * n, hour, hour, ("T0",))]
    elif group == "C":
        long = (2 * n - 1) * hour
        tasks = [Task("T0", 240, hour, hour),
                 Task("T1", 240 * n, long, long, ("T0",))]
    else:
        raise OptionError(f"group workflow: group={group!r} is not A, B or C")
    return Workflow(f"{group}{n}", tuple(tasks))
