"""Tables for people: fixed decimals per column, gaps in percent, aligned;
rich on a terminal, plain text otherwise or with ``--plain``."""

from __future__ import annotations

import io
import math

from opt_sched.cli import main
from opt_sched.cli.tables import format_column, render_table

from .conftest import INSTANCES


def test_numbers_get_the_fewest_exact_decimals_per_column():
    assert format_column("value", [35.0, 37, 52.0]) == ("number", ["35", "37", "52"])
    # one column, one number of decimals: 20.5 needs one, so 11 is 11.0
    assert format_column("value", [20.5, 11.0])[1] == ["20.5", "11.0"]
    assert format_column("value", [13881.5, 12511.5])[1] == ["13,881.5", "12,511.5"]
    # no exact writing within 4 decimals: 4 decimals, rounded
    assert format_column("max_stretch", [1 / 3, 1.1])[1] == ["0.3333", "1.1000"]
    assert format_column("value", [None, math.nan, math.inf, 2.0])[1] == [
        "-", "-", "inf", "2"]


def test_gaps_are_percent_and_flags_words():
    # (13881.5 - 12511.5) / 12511.5 = 0.10950...: 10.95 %
    gap = (13881.5 - 12511.5) / 12511.5
    assert format_column("gap", [gap, 0.0, None]) == (
        "percent", ["10.95 %", "0.00 %", "-"])
    assert format_column("bound_is_optimum", [True, False])[1] == ["yes", "no"]
    assert format_column("seconds", [0.123456, 12.0])[1] == ["0.12", "12.00"]
    assert format_column("method", ["cpsat", None])[1] == ["cpsat", "-"]


ROWS = [{"instance": "tucan5", "method": "cpsat", "value": 13881.0,
         "lower_bound": 12511.5, "bound_is_optimum": False,
         "gap": (13881 - 12511.5) / 12511.5},
        {"instance": "tucan5", "method": "one-pack/longest-remaining",
         "value": 13881.5, "lower_bound": 12511.5, "bound_is_optimum": False,
         "gap": (13881.5 - 12511.5) / 12511.5}]


def test_plain_table_is_aligned():
    stream = io.StringIO()
    render_table(ROWS, plain=True, stream=stream)
    lines = stream.getvalue().splitlines()
    assert lines[0].split() == ["instance", "method", "value", "best", "bound",
                                "bound", "is", "optimum", "at", "most",
                                "(gap)"]
    assert set(lines[1]) == {"-", " "}
    # right-aligned numbers end in the same column
    ends = {line.index("%") for line in lines[2:]}
    assert len(ends) == 1
    assert "13,881.0" in lines[2] and "13,881.5" in lines[3]
    assert "10.95 %" in lines[3] and "10.95 %" in lines[2]  # 10.946 and 10.950
    assert "e+" not in stream.getvalue()


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_rich_table_on_a_terminal_never_cuts_a_value():
    stream = _Terminal()
    render_table(ROWS, stream=stream)
    text = stream.getvalue()
    for piece in ("one-pack/longest-remaining", "13,881.5", "12,511.5", "10.95 %",
                  "best bound", "no"):
        assert piece in text, piece
    assert "…" not in text


def test_gap_and_compare_print_percent_not_fractions(capsys):
    """The README's reading: fixed decimals and percent (tiny5: CP-SAT proves
    20.5; one-pack/lowest-id makes 24.5: (24.5 - 20.5) / 20.5 = 19.51 %)."""
    assert main(["gap", str(INSTANCES / "tiny5.json"), "--time-limit", "10",
                 "--quiet", "--plain"]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if "one-pack/lowest-id" in x)
    assert "19.51 %" in line
    assert "24.5" in line and "20.5" in line
    assert "e+0" not in out and "0.1951" not in out
    assert main(["compare", str(INSTANCES / "deps5.json"), "--plain"]) == 0
    out = capsys.readouterr().out
    assert "5.71 %" in out and "e+0" not in out
