r"""The fair-share *target tree*: accounts, then users (seed 002, Paper II §2).

Each account has a share among the accounts and each user a share among the
users of its account. Shares are raw (any positive numbers); the *target*
of a node is its share normalised among its siblings,

.. math:: t_a = \frac{\mathrm{share}_a}{\sum_{a'} \mathrm{share}_{a'}},
          \qquad t_{u|a} = \frac{\mathrm{share}_u}{\sum_{u' \in a}
          \mathrm{share}_{u'}},

and the *state* of a node its usage normalised the same way against the
measured tree (:mod:`~opt_sched.priority.usage`):
``s_a = U_a / sum_a' U_a'``, ``s_{u|a} = U_u / U_a`` (0 when the
denominator is 0). A user's priority vector is
``(F(t_a, s_a), F(t_{u|a}, s_{u|a}))`` (subgroup isolation: each level only
looks at its siblings). Its *global* target and state, for a single
fair-share factor (Slurm's ``shares_norm``), are the products
``t_a t_{u|a}`` and ``U_u / sum U``.

A job belongs to account ``group`` and user ``user`` (``"-"`` when the job
has none). Accounts and users met in the workload but absent from the
configured tree get ``default_share`` (equal shares when nothing is
configured).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..errors import OptionError

__all__ = ["ANONYMOUS", "TargetTree"]

ANONYMOUS = "-"
"""The account or user of a job that names none."""


def _share(where: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value) or value < 0:
        raise OptionError(f"{where}: share={value!r} must be a finite number >= 0")
    return float(value)


@dataclass
class TargetTree:
    """Shares of accounts and of users within accounts.

    Parameters
    ----------
    accounts
        ``{account: share}``.
    users
        ``{account: {user: share}}``.
    default_share
        Share of an account or user first met by :meth:`add`.
    """

    accounts: dict[str, float] = field(default_factory=dict)
    users: dict[str, dict[str, float]] = field(default_factory=dict)
    default_share: float = 1.0

    def __post_init__(self) -> None:
        self.default_share = _share("tree default", self.default_share)
        self.accounts = {str(a): _share(f"account {a!r}", s)
                         for a, s in dict(self.accounts).items()}
        self.users = {str(a): {str(u): _share(f"user {u!r} of {a!r}", s)
                               for u, s in dict(us).items()}
                      for a, us in dict(self.users).items()}
        for account in self.users:
            self.accounts.setdefault(account, self.default_share)

    @classmethod
    def from_mapping(cls, data: Mapping[str, object]) -> TargetTree:
        """From ``{account: {"share": s, "users": {user: share}}}`` (or
        ``{account: share}``); e.g. read from a JSON file."""
        if not isinstance(data, Mapping):
            raise OptionError(f"fair-share tree: {data!r} is not a mapping")
        accounts: dict[str, float] = {}
        users: dict[str, dict[str, float]] = {}
        for account, spec in data.items():
            if isinstance(spec, Mapping):
                unknown = set(spec) - {"share", "users"}
                if unknown:
                    raise OptionError(f"fair-share tree: account {account!r} has "
                                      f"unknown key {sorted(unknown)[0]!r}")
                accounts[account] = spec.get("share", 1.0)  # type: ignore[assignment]
                members = spec.get("users", {})
                if not isinstance(members, Mapping):
                    raise OptionError(f"fair-share tree: users of {account!r} is "
                                      f"not a mapping")
                users[account] = dict(members)  # type: ignore[arg-type]
            else:
                accounts[account] = spec  # type: ignore[assignment]
        return cls(accounts, users)

    def add(self, account: str, user: str) -> None:
        """Make sure ``user`` of ``account`` is in the tree."""
        self.accounts.setdefault(account, self.default_share)
        self.users.setdefault(account, {}).setdefault(user, self.default_share)

    def add_jobs(self, groups: Sequence[str | None],
                 users: Sequence[str | None]) -> list[tuple[str, str]]:
        """Add every job's (account, user); returns them, one per job."""
        out = []
        for group, user in zip(groups, users):
            key = (group or ANONYMOUS, user or ANONYMOUS)
            self.add(*key)
            out.append(key)
        return out

    def account_targets(self) -> dict[str, float]:
        """``t_a`` for every account (0 if every share is 0)."""
        return _normalise(self.accounts)

    def user_targets(self, account: str) -> dict[str, float]:
        """``t_{u|a}`` for the users of ``account``."""
        return _normalise(self.users.get(account, {}))

    def global_target(self, account: str, user: str) -> float:
        """``t_a t_{u|a}``."""
        return (self.account_targets().get(account, 0.0)
                * self.user_targets(account).get(user, 0.0))


def _normalise(shares: Mapping[str, float]) -> dict[str, float]:
    total = math.fsum(shares.values())
    if total <= 0:
        return {key: 0.0 for key in shares}
    return {key: value / total for key, value in shares.items()}
