"""The vectorised interval conflicts of the validator against brute force,
on both of its paths (a loop over few groups; the rank trick for many)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from opt_sched.validation import sweep


def brute_force(group, starts, ends, eps):
    """Per interval (in start order within its group, ties by input order):
    the earlier interval of its group that reaches furthest (latest on ties),
    if the interval starts before that reach minus eps."""
    found = {}
    for g in set(group):
        members = sorted((i for i in range(len(group)) if group[i] == g),
                         key=lambda i: (starts[i], i))
        for m, i in enumerate(members[1:], start=1):
            earlier = members[:m]
            reach = max(ends[j] for j in earlier)
            if starts[i] < reach - eps:
                found[i] = [j for j in earlier if ends[j] == reach][-1]
    return found


intervals = st.lists(st.tuples(st.integers(0, 120), st.integers(0, 12),
                               st.integers(0, 6)), min_size=0, max_size=60)


@settings(max_examples=200, deadline=None)
@given(rows=intervals, eps=st.sampled_from([0.0, 0.5]),
       few_groups=st.sampled_from([0, 10**9]))
def test_conflicts_match_brute_force(rows, eps, few_groups):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sweep, "_FEW_GROUPS", few_groups)   # force either path
        check(rows, eps)


def check(rows, eps):
    group = np.array([r[0] for r in rows], dtype=np.int64)
    starts = np.array([float(r[1]) for r in rows])
    ends = starts + np.array([float(r[2]) for r in rows])
    late, partner = sweep.conflicts(group, starts, ends, eps)
    expected = brute_force(list(group), list(starts), list(ends), eps)
    assert dict(zip(late.tolist(), partner.tolist())) == expected
    assert len(late) == len(expected)
