"""Argument types and shared options of the ``opt-sched`` commands.

A type turns the text of one option into a value or raises
:class:`argparse.ArgumentTypeError`; argparse then prints one line naming
the option and exits with status 2.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from ..errors import OutputError
from ..files import check_writable

__all__ = ["add_table_options", "output_path", "positive_float", "positive_int",
           "seed", "sensibility"]


def positive_float(text: str) -> float:
    """A finite number ``> 0`` (time limits, tolerances, multipliers)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not value > 0 or not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} must be a positive number")
    return value


def sensibility(text: str) -> float:
    """Make-Pack's ``S``: a positive number, or ``inf`` (First-Fit)."""
    if text.lower() in ("inf", "infinity"):
        return math.inf
    return positive_float(text)


def positive_int(text: str) -> int:
    """An integer ``>= 1`` (I/O nodes, workers)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be >= 1")
    return value


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


def add_table_options(parser: argparse.ArgumentParser) -> None:
    """``--plain``: print tables as aligned text even on a terminal."""
    parser.add_argument("--plain", action="store_true",
                        help="aligned plain text instead of a rich table "
                             "(the default when stdout is not a terminal)")
