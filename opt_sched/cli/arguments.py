"""Argument types and shared options of the ``opt-sched`` commands.

A type turns the text of one option into a value or raises
:class:`argparse.ArgumentTypeError`; argparse then prints one line naming
the option and exits with status 2.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Collection, Iterable
from pathlib import Path

from ..errors import OutputError
from ..files import check_writable
from ..limits import MAX_VALUE, MIN_BANDWIDTH, MIN_NORMAL

__all__ = ["add_execution_options", "add_table_options", "execution_spec", "flag",
           "given_options", "non_negative_float", "non_negative_int", "output_path",
           "positive_float", "positive_int", "rate", "refuse_options", "seed",
           "sensibility"]


def _finite(text: str, condition: str) -> float:
    """``text`` as a finite float, or the one-line error ``must be
    <condition>`` (a NaN fails every comparison, so it is refused too)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    ok = value > 0 if condition == "a positive number" else value >= 0
    if not ok or not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} must be {condition}")
    return value


def positive_float(text: str) -> float:
    """A finite number ``> 0`` (time limits, tolerances, multipliers), at
    least the smallest normal float (a subnormal's reciprocal is infinite,
    :mod:`opt_sched.limits`)."""
    value = _finite(text, "a positive number")
    if value < MIN_NORMAL:
        raise argparse.ArgumentTypeError(f"{text!r} is below the smallest normal "
                                         f"number {MIN_NORMAL:g} (MIN_NORMAL, "
                                         f"opt_sched.limits)")
    return value


def non_negative_float(text: str) -> float:
    """A finite number ``>= 0`` (seconds, costs)."""
    return _finite(text, "a number >= 0")


def rate(text: str) -> float:
    """A bandwidth or rate cap: a number in ``[MIN_BANDWIDTH, MAX_VALUE]``
    (:mod:`opt_sched.limits`), so that ``volume / rate`` stays finite."""
    value = positive_float(text)
    if not MIN_BANDWIDTH <= value <= MAX_VALUE:
        raise argparse.ArgumentTypeError(f"{text!r} must be in [{MIN_BANDWIDTH:g}, "
                                         f"{MAX_VALUE:g}] (MIN_BANDWIDTH, MAX_VALUE, "
                                         f"opt_sched.limits)")
    return value


def sensibility(text: str) -> float:
    """Make-Pack's ``S``: a positive number, or ``inf`` (First-Fit)."""
    if text.lower() in ("inf", "infinity"):
        return math.inf
    return positive_float(text)


def _integer_at_least(text: str, low: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < low:
        raise argparse.ArgumentTypeError(f"{text!r} must be >= {low}")
    return value


def positive_int(text: str) -> int:
    """An integer ``>= 1`` (I/O nodes, workers)."""
    return _integer_at_least(text, 1)


def non_negative_int(text: str) -> int:
    """An integer ``>= 0`` (budgets, counts that may be zero)."""
    return _integer_at_least(text, 0)


def seed(text: str) -> int:
    """A random seed: an integer in ``[0, 2^31)``, what every solver accepts."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if not 0 <= value < 2**31:
        raise argparse.ArgumentTypeError(f"{text!r} must be in [0, 2^31)")
    return value


def output_path(text: str) -> Path:
    """A file that can be written: checked *before* the command runs, so a
    long solve never ends in a missing folder (:func:`opt_sched.files.
    check_writable`); the write itself is atomic and checked again."""
    try:
        return check_writable(text)
    except OutputError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def add_execution_options(parser: argparse.ArgumentParser,
                          default: str | None = "exclusive") -> None:
    """``--execution exclusive|shared`` and the shared model's options
    (:class:`~opt_sched.execution.ExecutionSpec`)."""
    group = parser.add_argument_group("execution model (SPEC §10)")
    # no argparse choices: the names are opt_sched.execution.EXECUTION_MODELS,
    # plug-ins included, checked by ExecutionSpec (importing the models here
    # would cost every command's start-up 0.4 s)
    group.add_argument("--execution", default=default, metavar="MODEL",
                       help="how concurrent I/O phases proceed: exclusive (one "
                            "at a time per I/O node), shared (bandwidth "
                            "sharing) or a plug-in's model"
                            + (f"; default {default}" if default else ""))
    group.add_argument("--share", choices=("equal", "nodes"), default=None,
                       help="shared: split the bandwidth equally or by nodes")
    group.add_argument("--max-rate", type=rate, default=None,
                       help="shared: cap of one phase's rate (default b)")
    group.add_argument("--node-rate", type=rate, default=None,
                       help="shared: cap per node of the phase's job")
    group.add_argument("--eta", default=None, metavar="M:ETA,...",
                       help="shared: congestion efficiency eta(m), e.g. "
                            "1:1,4:0.8,16:0.75")


def execution_spec(args: argparse.Namespace):
    """The :class:`~opt_sched.execution.ExecutionSpec` of the parsed options
    (``None`` when ``--execution`` has no default and was not given).

    Raises
    ------
    OptionError
        A shared option with the exclusive model, or a bad value.
    """
    from ..execution import ExecutionSpec

    if args.execution is None:
        given = [k for k in ("share", "max_rate", "node_rate", "eta")
                 if getattr(args, k) is not None]
        if given:
            from ..errors import OptionError

            raise OptionError(f"--{given[0].replace('_', '-')} needs --execution "
                              f"shared")
        return None
    return ExecutionSpec(args.execution, share=args.share, max_rate=args.max_rate,
                         node_rate=args.node_rate, eta=args.eta)  # None: not given


def add_table_options(parser: argparse.ArgumentParser) -> None:
    """``--plain``: print tables as aligned text even on a terminal."""
    parser.add_argument("--plain", action="store_true",
                        help="aligned plain text instead of a rich table "
                             "(the default when stdout is not a terminal)")


def given_options(args: argparse.Namespace,
                  add_arguments: Callable[[argparse.ArgumentParser], None]
                  ) -> set[str]:
    """The options (``argparse`` dests) of ``args`` that the user set: those
    whose value differs from the default that ``add_arguments`` declares.

    An option declared with the default ``None`` counts as given whenever
    it was; one with another default, when it was given a value other than
    its default (``--io-profile none`` changes nothing, so it is not
    counted).
    """
    parser = argparse.ArgumentParser(add_help=False)
    add_arguments(parser)
    given = set()
    for action in parser._actions:
        dest = action.dest
        if dest == argparse.SUPPRESS or not hasattr(args, dest):
            continue
        default = action.default
        if isinstance(default, str) and action.type is not None:
            default = action.type(default)
        if getattr(args, dest) != default:
            given.add(dest)
    return given


def flag(dest: str) -> str:
    """The option of an ``argparse`` dest: ``io_profile`` -> ``--io-profile``."""
    return "--" + dest.replace("_", "-")


def refuse_options(given: Iterable[str], takes: Collection[str], target: str,
                   applies_to: Callable[[str], str]) -> None:
    """Refuse the first option of ``given`` (sorted) not in ``takes``.

    ``target`` names what was chosen (``protocol ics2020``);
    ``applies_to(dest)`` says what the option applies to instead.

    Raises
    ------
    OptionError
        ``--batch does not apply to protocol ics2020 (it applies to: tucan)``.
    """
    from ..errors import OptionError

    for dest in sorted(given):
        if dest not in takes:
            raise OptionError(f"{flag(dest)} does not apply to {target} (it applies "
                              f"to: {applies_to(dest)})")
