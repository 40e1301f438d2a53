"""Instance sources of a campaign: files and seeded generators.

A generator is a name, its typed parameters and a function that builds the
instance. Parameters are coerced when the spec is loaded (``batch = 1`` and
``batch = 1.0`` name the same instance, so they hash the same); a value of
the wrong type, out of its declared range (``seed = -1``, ``batch = 0``,
``io_intensity = 2``), or a missing or unknown parameter is a
:class:`SpecError` naming the key and the value, raised when the spec is
loaded, before anything runs. The ranges below are the generators' own
checks; a generator may still refuse a combination when the task runs
(a failed task).

Generators are a registry (:data:`GENERATORS`) that takes plug-ins: a
package declares a :class:`Generator` as an entry point of the group
``opt_sched.generators`` (:mod:`opt_sched.plugins`), and campaign specs and
workers find it by name.

Each generator makes one kind of workload (:func:`workload_kind`): an HPC
:class:`~opt_sched.instance.Instance` (``"hpc"``), or a gang workload for
seed 004's gang schedulers (``"gang"``: ``jann``, ``gang-kth``).

Generators
----------
``ics2020``
    :func:`opt_sched.workloads.generate_ics2020` -- ``alpha_gen`` (float,
    required), ``seed`` (int, required), ``io_nodes`` (int, default 1),
    ``n_jobs`` (int, default: drawn). The jobs do not depend on ``io_nodes``
    (the generator draws them before the platform), so the workload is
    drawn once per ``(alpha_gen, seed, n_jobs)`` and process, and placed on
    ``io_nodes`` homogeneous partitions of 2048 nodes and bandwidth 1
    (exactly what :func:`opt_sched.studies.ics2020.experiment.synthetic_task` does).
``tucan``
    :func:`opt_sched.workloads.tucan_workload` -- ``batch`` (float,
    required).
``ijhpca2023``
    :func:`opt_sched.workloads.ijhpca2023.generate_ijhpca2023` (seed 000) --
    ``family`` (``mira`` or ``uniform``, required), ``profile`` (``bn`` or
    ``no``, required), ``alpha`` (float, required), ``seed`` (int,
    required), ``variant`` (``calibrated`` or ``literal``, default
    ``calibrated``), ``jobs`` (int, default 100), and the down-scaled copy
    ``copy_jobs`` / ``copy_iterations`` (int, default none: the workload
    itself): the first ``copy_jobs`` jobs, each cut to its first
    ``copy_iterations`` iterations
    (:func:`opt_sched.workloads.prefix_copy.prefix_copy`).
``goponenko``
    :func:`opt_sched.workloads.goponenko.goponenko_workload` (seed 001's
    HPC-cluster workloads) -- ``workload`` (int, 1 or 2, required),
    ``nodes`` (int, default 256), ``repeats`` (int, default: the slides' 8
    or 5 periods). Deterministic.
``kth-sp2``
    :func:`opt_sched.workloads.kth.kth_workload` (KTH-SP2 with Darshan-Cori
    I/O) -- ``alpha`` (float, required), ``seed`` (int, default 0),
    ``bandwidth`` (float, default 20), ``jobs`` (int, default: all).
``jann``
    :func:`opt_sched.gang.experiments.jann_point_workload` (seed 004's gang
    workload, for the methods ``gs``, ``iogs``, ``adaptive-iogs``,
    ``migrate-iogs``) -- ``io_intensity`` (number or ``"mixed"``,
    required), ``mean_runtime`` (float, required), ``seed`` (int, default
    0; the jobs and the file nodes), ``jobs`` (int, default 10,000),
    ``placement`` (``random`` or ``contiguous``, default ``random``),
    ``nodes`` (int, default 320), ``mean_interarrival`` (float, default
    583). A gang workload, not an HPC instance.
``gang-kth``
    :func:`opt_sched.gang.experiments.kth_point_workload` (KTH-SP2 as a
    gang workload, ``r`` drawn per job) -- ``seed`` (int, default 0),
    ``placement`` (default ``random``), ``jobs`` (int, default: all).

``mira``, ``uniform``; ``goponenko-w1``, ``goponenko-w2``
    The named workloads of seeds 000 and 001 (``ijhpca2023`` with its
    family fixed, with the parameter ``io_profile``; ``goponenko`` with its
    workload fixed, declaring the shared execution model it runs under).
``nersc-edison``, ``nersc-fit``
    :func:`opt_sched.workloads.nersc.generate_nersc` (seed 002) -- the
    NERSC-calibrated model, or the model fitted to the SWF file ``trace``
    (str, required); ``seed`` (default 0), ``nodes`` (default: the
    model's), ``days`` (default 5), ``users``, ``accounts`` (default 1).

Every generator is also a protocol of ``opt-sched generate``: its
parameters become options, ``cli_defaults`` fills the required ones left
out there.

Tasks that share a *family* (the same draw: a generator's parameters other
than the platform ones, or the same file) are run together in one chunk by
one worker (:func:`family`), so the instance is built once.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..errors import InstanceError, SpecError
from ..instance import Instance
from ..plugins import PluginMapping, check_named
from ..workloads.goponenko import EXECUTION as GOPONENKO_EXECUTION
from .task import InstanceSource

__all__ = [
    "GENERATORS",
    "Generator",
    "Parameter",
    "build_instance",
    "family",
    "file_source",
    "generator_source",
    "named_entry",
    "workload_kind",
]


@dataclass(frozen=True)
class Parameter:
    """A generator parameter: ``kind`` is ``"float"``, ``"int"`` or
    ``"str"`` (one of ``choices``; for a ``"float"``, the words it also
    takes, e.g. ``"mixed"``); a parameter without a default is
    required (``default=None`` with ``required=False`` means "let the
    generator decide")."""

    name: str
    kind: str
    required: bool = True
    default: Any = None
    choices: tuple[str, ...] = ()
    minimum: float | None = None
    exclusive_minimum: float | None = None
    maximum: float | None = None
    exclusive_maximum: float | None = None


def _int_at_least(name: str, low: int, **kw: Any) -> Parameter:
    """An ``int`` parameter ``>= low``."""
    return Parameter(name, "int", minimum=low, **kw)


def _positive(name: str, **kw: Any) -> Parameter:
    """A ``float`` parameter ``> 0``."""
    return Parameter(name, "float", exclusive_minimum=0, **kw)


@dataclass(frozen=True)
class Generator:
    """A seeded workload generator (see the module docstring).

    Attributes
    ----------
    name, params, build
        The registry key, the typed parameters, and the function that makes
        the workload from the resolved parameters.
    platform_params
        The parameters that only change the platform (tasks that differ in
        them share one draw, :func:`family`).
    workload
        The kind it makes, ``"hpc"`` or ``"gang"``.
    help
        One line for ``opt-sched generate --help``.
    cli_defaults
        What ``opt-sched generate`` assumes for a required parameter left out
        (a one-off workload; a campaign spec must still name it).
    execution
        The execution model the workload is meant to run under
        (``{"model": "shared", ...}``), or ``None`` (any).
    """

    name: str
    params: tuple[Parameter, ...]
    build: Callable[[Mapping[str, Any]], Instance]
    platform_params: tuple[str, ...] = ()
    workload: str = "hpc"
    help: str = ""
    cli_defaults: Mapping[str, Any] = field(default_factory=dict)
    execution: Mapping[str, Any] | None = None


@lru_cache(maxsize=16)
def _ics2020_one_node(alpha_gen: float, seed: int, n_jobs: int | None) -> Instance:
    from ..workloads import generate_ics2020

    return generate_ics2020(alpha_gen, seed, n_jobs=n_jobs)


def _build_ics2020(params: Mapping[str, Any]) -> Instance:
    from ..instance import Platform

    base = _ics2020_one_node(params["alpha_gen"], params["seed"], params["n_jobs"])
    r = params["io_nodes"]
    if r == 1:
        return base
    if not isinstance(r, int) or r < 1:  # let the generator word the error
        from ..workloads import generate_ics2020

        return generate_ics2020(params["alpha_gen"], params["seed"], io_nodes=r)
    return base.replace(platform=Platform.homogeneous(r, nodes=2048, bandwidth=1.0),
                        name=base.name.replace("-r1", f"-r{r}"))


def _build_tucan(params: Mapping[str, Any]) -> Instance:
    from ..workloads import tucan_workload

    return tucan_workload(params["batch"])


def _build_ijhpca2023(params: Mapping[str, Any]) -> Instance:
    from ..workloads.ijhpca2023 import generate_ijhpca2023
    from ..workloads.prefix_copy import prefix_copy

    inst = generate_ijhpca2023(params["family"], params["profile"], params["alpha"],
                               params["seed"], jobs=params["jobs"],
                               variant=params["variant"]).instance
    if params["copy_jobs"] is None and params["copy_iterations"] is None:
        return inst
    return prefix_copy(inst, params["copy_jobs"], params["copy_iterations"])


def _build_goponenko(params: Mapping[str, Any]) -> Instance:
    from ..workloads.goponenko import goponenko_workload

    return goponenko_workload(params["workload"], params["nodes"], params["repeats"])


def _ijhpca2023_family(family: str) -> Callable[[Mapping[str, Any]], Instance]:
    """The builder of seed 000's ``family`` workload (``mira``, ``uniform``)
    with the parameter names of ``opt-sched generate``."""
    def build(params: Mapping[str, Any]) -> Instance:
        return _build_ijhpca2023({**params, "family": family,
                                  "profile": params["io_profile"],
                                  "copy_jobs": None, "copy_iterations": None})
    return build


def _goponenko_workload(workload: int) -> Callable[[Mapping[str, Any]], Instance]:
    """The builder of seed 001's HPC-cluster workload 1 or 2."""
    def build(params: Mapping[str, Any]) -> Instance:
        return _build_goponenko({**params, "workload": workload})
    return build


def _nersc(model: str | None) -> Callable[[Mapping[str, Any]], Instance]:
    """The builder of seed 002's NERSC-calibrated workload (``model``), or of
    the model fitted to the SWF trace named by the ``trace`` parameter."""
    def build(params: Mapping[str, Any]) -> Instance:
        from ..workloads.nersc import DAY, generate_nersc

        return generate_nersc(model or f"fit:{params['trace']}", nodes=params["nodes"],
                              duration=params["days"] * DAY, seed=params["seed"],
                              users=params["users"], accounts=params["accounts"])
    return build


def _build_kth(params: Mapping[str, Any]) -> Instance:
    from ..workloads.kth import kth_workload

    return kth_workload(params["alpha"], params["seed"], params["bandwidth"],
                        params["jobs"])


def _build_jann(params: Mapping[str, Any]) -> Any:
    from ..gang.experiments import jann_point_workload

    if params["placement"] == "none":  # no file nodes drawn
        from ..gang.jann import jann_workload

        return jann_workload(params["jobs"], params["mean_runtime"],
                             params["io_intensity"], params["seed"],
                             mean_interarrival=params["mean_interarrival"],
                             nodes=params["nodes"])
    return jann_point_workload(params["io_intensity"], params["mean_runtime"],
                               params["seed"], jobs=params["jobs"],
                               placement=params["placement"],
                               mean_interarrival=params["mean_interarrival"],
                               nodes=params["nodes"])


def _build_gang_kth(params: Mapping[str, Any]) -> Any:
    from ..gang.experiments import kth_point_workload

    return kth_point_workload(params["seed"], placement=params["placement"],
                              jobs=params["jobs"])


_PLACEMENT = Parameter("placement", "str", required=False, default="random",
                       choices=("random", "contiguous"))
_SEED = _int_at_least("seed", 0)
_OPTIONAL_SEED = _int_at_least("seed", 0, required=False, default=0)
_OPTIONAL_JOBS = _int_at_least("jobs", 1, required=False, default=None)

def _check_generator(name: str, value: Any) -> None:
    check_named(value, Generator, name)


GENERATORS: PluginMapping[Generator] = PluginMapping("generators", {
    "ics2020": Generator(
        "ics2020",
        (_positive("alpha_gen"), _SEED,
         _int_at_least("io_nodes", 1, required=False, default=1),
         _int_at_least("n_jobs", 1, required=False, default=None)),
        _build_ics2020, platform_params=("io_nodes",),
        help="seed 003 §6.2.2 synthetic workload",
        cli_defaults={"alpha_gen": 1.0, "seed": 0}),
    "tucan": Generator("tucan", (_positive("batch"),), _build_tucan,
                       help="seed 003 Table 1 (Tucan)", cli_defaults={"batch": 1.0}),
    "ijhpca2023": Generator(
        "ijhpca2023",
        (Parameter("family", "str", choices=("mira", "uniform")),
         Parameter("profile", "str", choices=("bn", "no")),
         Parameter("alpha", "float", exclusive_minimum=0, exclusive_maximum=1),
         _SEED,
         Parameter("variant", "str", required=False, default="calibrated",
                   choices=("calibrated", "literal")),
         _int_at_least("jobs", 1, required=False, default=100),
         _int_at_least("copy_jobs", 1, required=False, default=None),
         _int_at_least("copy_iterations", 1, required=False, default=None)),
        _build_ijhpca2023, help="seed 000's workloads (mira, uniform)"),
    "goponenko": Generator(
        "goponenko",
        (Parameter("workload", "int", minimum=1, maximum=2),
         _int_at_least("nodes", 8, required=False, default=256),  # write x 8 jobs
         _int_at_least("repeats", 1, required=False, default=None)),
        _build_goponenko, help="seed 001's HPC-cluster workloads 1 and 2"),
    "kth-sp2": Generator(
        "kth-sp2",
        (_positive("alpha"), _OPTIONAL_SEED,
         _positive("bandwidth", required=False, default=20.0), _OPTIONAL_JOBS),
        _build_kth, help="KTH-SP2 with Darshan-Cori I/O"),
    "jann": Generator(
        "jann",
        (Parameter("io_intensity", "float", choices=("mixed",), minimum=0,
                   exclusive_maximum=1),
         _positive("mean_runtime"), _OPTIONAL_SEED,
         _int_at_least("jobs", 1, required=False, default=10_000),
         Parameter("placement", "str", required=False, default="random",
                   choices=("random", "contiguous", "none")),
         _int_at_least("nodes", 1, required=False, default=320),
         _positive("mean_interarrival", required=False, default=583.0)),
        _build_jann, workload="gang",
        help="seed 004's gang workload (Jann et al. model)",
        cli_defaults={"io_intensity": 0.5, "mean_runtime": 3102.0,
                      "placement": "none"}),
    "gang-kth": Generator(
        "gang-kth", (_OPTIONAL_SEED, _PLACEMENT, _OPTIONAL_JOBS), _build_gang_kth,
        workload="gang", help="KTH-SP2 as a gang workload (seed 004)"),
    **{family: Generator(
        family,
        (Parameter("io_profile", "str", required=False, default="bn",
                   choices=("bn", "no")),
         Parameter("alpha", "float", required=False, default=0.5, exclusive_minimum=0,
                   exclusive_maximum=1),
         _OPTIONAL_SEED,
         Parameter("variant", "str", required=False, default="calibrated",
                   choices=("calibrated", "literal")),
         _int_at_least("jobs", 1, required=False, default=100)),
        _ijhpca2023_family(family),
        help=f"seed 000's {family} workload (ijhpca2023 with family={family})")
       for family in ("mira", "uniform")},
    **{f"goponenko-w{k}": Generator(
        f"goponenko-w{k}",
        (_int_at_least("nodes", 8, required=False, default=256),
         _int_at_least("repeats", 1, required=False, default=None)),
        _goponenko_workload(k), execution={"model": "shared", **GOPONENKO_EXECUTION},
        help=f"seed 001's HPC-cluster workload {k}; run it under the shared model")
       for k in (1, 2)},
    **{name: Generator(
        name,
        (*((Parameter("trace", "str"),) if model is None else ()),
         _OPTIONAL_SEED, _int_at_least("nodes", 1, required=False, default=None),
         _positive("days", required=False, default=5.0),
         _int_at_least("users", 1, required=False, default=None),
         _int_at_least("accounts", 1, required=False, default=1)),
        _nersc(model),
        help=("seed 002's NERSC-calibrated workload" if model else
              "seed 002's model fitted to the SWF trace --trace"))
       for name, model in (("nersc-edison", "nersc-edison"), ("nersc-fit", None))},
}, _check_generator)
"""Generator name -> :class:`Generator`: the built-in ones, then the entry
points of the group ``opt_sched.generators`` (:mod:`opt_sched.plugins`),
loaded on the first lookup of another name or on a listing."""


def workload_kind(source: InstanceSource) -> str:
    """``"gang"`` for a gang workload (generators ``jann``, ``gang-kth``),
    ``"hpc"`` for an HPC instance (a file, another generator), ``"none"``
    for an experiment (it runs its own methods)."""
    if source.experiment is not None:
        return "none"
    if source.generator is None:
        return "hpc"
    return GENERATORS[source.generator].workload


def _check_range(where: str, value: Any, declared: Any) -> None:
    """Raise a :class:`SpecError` if number ``value`` is outside the range
    ``declared`` (a :class:`Parameter`) gives; words pass."""
    if isinstance(value, str):
        return
    checks = (("minimum", ">=", lambda b: value >= b),
              ("exclusive_minimum", ">", lambda b: value > b),
              ("maximum", "<=", lambda b: value <= b),
              ("exclusive_maximum", "<", lambda b: value < b))
    for attribute, sign, holds in checks:
        bound = getattr(declared, attribute, None)
        if bound is not None and not holds(bound):
            raise SpecError(f"{where}={value!r} must be {sign} {bound:g}")


def _coerce(where: str, kind: str, value: Any,
            choices: tuple[str, ...] = ()) -> Any:
    if value is None:
        return None
    if kind == "str":
        if not isinstance(value, str) or not value.strip() or (
                choices and value not in choices):
            wanted = (f"one of {', '.join(choices)}" if choices
                      else "a non-empty string")
            raise SpecError(f"{where}={value!r} must be {wanted}")
        return value
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise SpecError(f"{where}={value!r} must be an integer")
        return int(value)
    if isinstance(value, str) and value in choices:  # a word a number may be
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value):
        words = "".join(f" or {w!r}" for w in choices)
        raise SpecError(f"{where}={value!r} must be a number{words}")
    return float(value)


def named_entry(where: str, table: Mapping[str, Any], name: str) -> Any:
    """``table[name]``: a generator, an experiment... by its name.

    Raises
    ------
    SpecError
        ``{where}={name!r} is unknown``, with the names ``table`` has.
    """
    entry = table.get(name)
    if entry is None:
        raise SpecError(f"{where}={name!r} is unknown (choose from "
                        f"{', '.join(sorted(table))})")
    return entry


def resolve_params(where: str, owner: str, params: Mapping[str, Any],
                   declared: Sequence[Any], *, keep_none: bool = True
                   ) -> dict[str, Any]:
    """``params`` checked against the ``declared`` parameters (objects with
    ``name``, ``kind``, ``required``, ``default`` and optionally
    ``choices``) of ``owner`` (e.g. ``"generator 'tucan'"``): coerced,
    defaults filled in (``None`` defaults left out unless ``keep_none``).

    Raises
    ------
    SpecError
        An unknown or missing parameter, or a value of the wrong type (one
        line naming the key and the value).
    """
    known = {p.name for p in declared}
    for key in params:
        if key not in known:
            raise SpecError(f"{where}.{key}={params[key]!r} is not a parameter of "
                            f"{owner} (it has {', '.join(sorted(known))})")
    values: dict[str, Any] = {}
    for p in declared:
        if p.name in params:
            value = _coerce(f"{where}.{p.name}", p.kind, params[p.name],
                            getattr(p, "choices", ()))
            if value is not None:
                _check_range(f"{where}.{p.name}", value, p)
            values[p.name] = value
        elif p.required:
            raise SpecError(f"{where}.{p.name} is missing ({owner} needs it)")
        elif keep_none or p.default is not None:
            values[p.name] = p.default
    return values


def generator_source(name: str, params: Mapping[str, Any],
                     where: str = "instance") -> InstanceSource:
    """The source of generator ``name`` with scalar ``params`` (coerced,
    defaults filled in).

    Raises
    ------
    SpecError
        Unknown generator, unknown or missing parameter, or a value of the
        wrong type.
    """
    gen = named_entry(f"{where}.generator", GENERATORS, name)
    values = resolve_params(where, f"generator {name!r}", params, gen.params)
    return InstanceSource(generator=name, params=tuple(sorted(values.items())))


def file_digest(path: str | Path) -> str:
    """SHA-256 (hex) of the file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def file_source(path: str | Path, where: str = "instance") -> InstanceSource:
    """The source of an instance file (``.json`` or PSPLIB ``.sm``).

    Raises
    ------
    SpecError
        The file does not exist or has another suffix.
    """
    p = Path(path)
    if p.suffix not in (".json", ".sm"):
        raise SpecError(f"{where}={str(path)!r} is not an instance file (*.json, "
                        f"*.sm)")
    if not p.is_file():
        raise SpecError(f"{where}={str(path)!r} does not exist")
    return InstanceSource(path=str(p.resolve()), digest=file_digest(p))


def family(source: InstanceSource) -> tuple:
    """Tasks of one family share one draw of their instance (see the
    module docstring): the generator's non-platform parameters, or the
    file's digest."""
    if source.experiment is not None:  # each task builds its own workload
        return ("experiment", source.experiment, source.params)
    if source.generator is None:
        return ("file", source.digest)
    gen = GENERATORS[source.generator]
    return (source.generator, *((k, v) for k, v in source.params
                                if k not in gen.platform_params))


def build_instance(source: InstanceSource) -> Instance:
    """The instance of ``source``, built once per process (instances are
    immutable; the last 8 are kept). A file is read and checked against its
    digest (an edited file would silently change a finished task's
    meaning).

    Raises
    ------
    InstanceError
        The file changed since the spec was loaded, or is malformed.
    OptionError
        A generator parameter out of range.
    """
    return _build_cached(source)


@lru_cache(maxsize=8)
def _build_cached(source: InstanceSource) -> Instance:
    if source.generator is not None:
        return GENERATORS[source.generator].build(dict(source.params))
    assert source.path is not None
    digest = file_digest(source.path)
    if digest != source.digest:
        raise InstanceError(f"{source.path}: sha256={digest[:12]}... differs from "
                            f"{source.digest[:12]}... when the spec was loaded "
                            f"(the file changed)")
    if source.path.endswith(".sm"):
        from ..psplib_reader import read_psplib

        return read_psplib(source.path)
    from ..json_files import read_instance

    return read_instance(source.path)
