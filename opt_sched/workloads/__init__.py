"""Workload generators and readers.

- :mod:`.ics2020` -- the synthetic protocol of seed 003 §6.2.2.
- :mod:`.tucan` -- the Tucan workload of seed 003 Table 1.

PSPLIB RCPSP instances are read by :mod:`opt_sched.psplib_reader`.

:func:`generate` is the front door used by ``opt-sched generate``.
"""

from __future__ import annotations

from ..errors import OptionError
from ..instance import Instance
from .ics2020 import generate_ics2020
from .tucan import tucan_workload

__all__ = ["PROTOCOLS", "generate", "generate_ics2020", "tucan_workload"]

PROTOCOLS = ("ics2020", "tucan")


def generate(protocol: str, *, alpha_gen: float = 1.0, seed: int = 0,
             io_nodes: int = 1, batch: float = 1.0) -> Instance:
    """A workload of ``protocol``.

    - ``"ics2020"``: :func:`generate_ics2020` ``(alpha_gen, seed,
      io_nodes=io_nodes)``; ``batch`` is ignored.
    - ``"tucan"``: :func:`tucan_workload` ``(batch)``; ``alpha_gen`` and
      ``seed`` are ignored (it is deterministic) and ``io_nodes`` must be 1.

    Raises
    ------
    OptionError
        Unknown protocol or a parameter out of range.
    """
    if protocol == "ics2020":
        return generate_ics2020(alpha_gen, seed, io_nodes=io_nodes)
    if protocol == "tucan":
        if io_nodes != 1:
            raise OptionError(f"tucan: io_nodes={io_nodes!r} must be 1 (Table 1 "
                              f"runs on one I/O node)")
        return tucan_workload(batch)
    raise OptionError(f"generate: protocol={protocol!r} is unknown (choose from "
                      f"{', '.join(PROTOCOLS)})")
