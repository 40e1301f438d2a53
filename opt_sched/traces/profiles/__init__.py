"""I/O profiles for trace jobs: named, seeded, documented.

========================  ====================================================
name                      what it draws
========================  ====================================================
``none``                  nothing: one compute phase of the run time, no I/O
``bn``                    seed 000 Bi-Normal I/O-time fractions
``no``                    seed 000 Normal I/O-time fractions
``darshan-mira``          measured fractions of TOKIO Darshan jobs (Mira)
``darshan-edison``        ... (Edison)
``darshan-cori``          ... (Cori), by job-size class
========================  ====================================================

:func:`make_profile` is the front door; see ``instances/traces.md``.
"""

from __future__ import annotations

from ...errors import OptionError
from .base import IOProfile, ProfileDraw
from .darshan import DarshanProfile
from .none import NoIOProfile
from .seed000 import BiNormalProfile, NormalProfile

__all__ = ["PROFILE_NAMES", "BiNormalProfile", "DarshanProfile", "IOProfile",
           "NoIOProfile", "NormalProfile", "ProfileDraw", "make_profile"]

PROFILE_NAMES = ("none", "bn", "no", "darshan-mira", "darshan-edison",
                 "darshan-cori")


def make_profile(name: str, **options: object) -> IOProfile:
    """The profile called ``name`` with its ``options``.

    Raises
    ------
    OptionError
        An unknown profile name or option (both named).
    """
    if name == "none":
        factory, extra = NoIOProfile, {}
    elif name == "bn":
        factory, extra = BiNormalProfile, {}
    elif name == "no":
        factory, extra = NormalProfile, {}
    elif name in ("darshan-mira", "darshan-edison", "darshan-cori"):
        factory, extra = DarshanProfile, {"system": name.split("-", 1)[1]}
    else:
        raise OptionError(f"io profile {name!r} is unknown (choose from "
                          f"{', '.join(PROFILE_NAMES)})")
    allowed = set(factory.__dataclass_fields__) - {"name", "system"}
    for key in options:
        if key not in allowed:
            raise OptionError(f"io profile {name!r}: unknown option {key!r} "
                              f"(allowed: {', '.join(sorted(allowed)) or 'none'})")
    return factory(**extra, **options)  # type: ignore[arg-type]
