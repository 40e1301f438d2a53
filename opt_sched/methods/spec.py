"""The method spec grammar: one string names one method (syntax only).

A *spec* names a practical method the way the tables print it::

    make-pack(S=1)+lpt/fifo
    make-pack(S=alpha)+lpt/longest-remaining
    first-fit+lpt(R=2)/stretch
    one-pack/fifo
    easy(order=sjf)/fifo              (a later online scheduler)

Grammar (whitespace is allowed between tokens and ignored)::

    spec     ::= call ( "+" call )* [ "/" policy ]
    call     ::= name [ "(" [ arg ( "," arg )* ] ")" ]
    arg      ::= key "=" value
    name     ::= [a-z][a-z0-9]* ( "-" [a-z0-9]+ )*      make-pack, lpt, easy
    key      ::= [A-Za-z_][A-Za-z0-9_]*                 S, R, order, seed
    value    ::= [A-Za-z0-9_.-]+ | number               1, 2.5, 1e-3, inf, alpha
    number   ::= [0-9][0-9.]* ("e" | "E") "+" [0-9]+     1e+16 (as Python prints it)
    policy   ::= name | "*"

The first call is the *method* (a registry entry), each ``+ call`` a
*stage* it is followed by (today the allocation of packs to I/O nodes,
``lpt``), and ``/ policy`` the I/O list policy the simulator runs it under;
``*`` stands for every registered policy. A value never contains ``,``
``(`` ``)`` ``/`` ``=``, and ``+`` only in an exponent (``1e+16``; the
canonical text writes ``1e16``).

This module checks the syntax only; :mod:`.registry` checks names,
parameters and their values, fills in defaults and gives the canonical
text. A list of specs is written with commas between them;
:func:`split_specs` splits only at commas outside parentheses.

Every error is a :class:`~opt_sched.errors.SpecError` with one line that
quotes the spec and names the offending part and value.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass

from ..errors import SpecError

__all__ = [
    "EVERY_POLICY",
    "Call",
    "Spec",
    "format_value",
    "is_name",
    "parse_spec",
    "spec_error",
    "split_specs",
]

EVERY_POLICY = "*"
"""The policy part that stands for every registered I/O policy."""

_NAME = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*\Z")
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_VALUE = re.compile(r"(?:[0-9][0-9.]*[eE]\+[0-9]+|[A-Za-z0-9_.\-]+)\Z")
_TOKEN = re.compile(r"\s*(?:(?P<word>[0-9][0-9.]*[eE]\+[0-9]+|[A-Za-z0-9_.\-]+)"
                    r"|(?P<punct>[()+/,=*]))")


def is_name(text: object) -> bool:
    """``text`` is a valid method, stage or policy name."""
    return isinstance(text, str) and _NAME.match(text) is not None


def spec_error(text: str, message: str) -> SpecError:
    """The one-line error ``method spec '<text>': <message>``."""
    return SpecError(f"method spec {text!r}: {message}")


def format_value(value: object) -> str:
    """The canonical text of a parameter value.

    Integral floats lose their ``.0`` (``1.0 -> "1"``), other floats use the
    shortest text that reads back to the same float (``repr``), infinity is
    ``inf``; strings and integers are written as they are.

    >>> format_value(1.0), format_value(2.5), format_value(float("inf"))
    ('1', '2.5', 'inf')
    >>> format_value(1e16), format_value(1e-7)
    ('1e16', '1e-07')
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        if value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        return repr(value).replace("e+", "e")
    return str(value)


@dataclass(frozen=True)
class Call:
    """``name(key=value, ...)``: arguments as written (text), in order."""

    name: str
    args: tuple[tuple[str, str], ...] = ()

    def __str__(self) -> str:
        if not self.args:
            return self.name
        return f"{self.name}({','.join(f'{k}={v}' for k, v in self.args)})"


@dataclass(frozen=True)
class Spec:
    """A parsed spec: the method call, its stage calls, the policy (or None)."""

    calls: tuple[Call, ...]
    policy: str | None = None

    @property
    def head(self) -> Call:
        """The method call (the first one)."""
        return self.calls[0]

    @property
    def stages(self) -> tuple[Call, ...]:
        """The ``+`` calls after the method."""
        return self.calls[1:]

    def __str__(self) -> str:
        text = "+".join(str(call) for call in self.calls)
        return text if self.policy is None else f"{text}/{self.policy}"


class _Tokens:
    """The tokens of one spec, with the spec text for error messages."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.items: list[tuple[str, str]] = []  # (kind, token)
        pos = 0
        stripped = text.rstrip()
        while pos < len(stripped):
            match = _TOKEN.match(stripped, pos)
            if match is None:
                at = len(stripped) - len(stripped[pos:].lstrip())
                raise spec_error(text, f"unexpected character {stripped[at]!r} at "
                                       f"position {at}")
            kind = "word" if match.group("word") is not None else "punct"
            self.items.append((kind, match.group(kind)))
            pos = match.end()
        self.pos = 0

    def peek(self) -> str | None:
        return self.items[self.pos][1] if self.pos < len(self.items) else None

    def take(self, what: str) -> str:
        if self.pos >= len(self.items):
            raise spec_error(self.text, f"ends where {what} was expected")
        token = self.items[self.pos][1]
        self.pos += 1
        return token

    def word(self, what: str, pattern: re.Pattern[str], rule: str) -> str:
        token = self.take(what)
        if pattern.match(token) is None:
            raise spec_error(self.text, f"{what} {token!r} is not valid ({rule})")
        return token

    def expect(self, punct: str, where: str) -> None:
        token = self.take(f"{punct!r} {where}")
        if token != punct:
            raise spec_error(self.text, f"expected {punct!r} {where}, got {token!r}")


_NAME_RULE = "lowercase letters and digits, words joined by '-'"


def _call(tokens: _Tokens, what: str) -> Call:
    name = tokens.word(what, _NAME, _NAME_RULE)
    if tokens.peek() != "(":
        return Call(name)
    tokens.take("'('")
    args: list[tuple[str, str]] = []
    if tokens.peek() == ")":
        tokens.take("')'")
        return Call(name)
    while True:
        key = tokens.word(f"a parameter name of {name}", _KEY,
                          "a letter or '_' then letters, digits, '_'")
        if any(key == k for k, _ in args):
            raise spec_error(tokens.text, f"{name}: parameter {key} is given twice")
        tokens.expect("=", f"after {name}({key}")
        if tokens.peek() in (None, ",", ")", "(", "+", "/", "=", "*"):
            raise spec_error(tokens.text, f"{name}: {key} has no value")
        value = tokens.word(f"the value of {name}({key}=...)", _VALUE,
                            "letters, digits, '.', '_', '-'")
        args.append((key, value))
        token = tokens.take(f"',' or ')' in {name}(...)")
        if token == ")":
            return Call(name, tuple(args))
        if token != ",":
            raise spec_error(tokens.text, f"expected ',' or ')' in {name}(...), "
                                          f"got {token!r}")


def parse_spec(text: object) -> Spec:
    """Parse one spec (syntax only; see the module docstring).

    Raises
    ------
    SpecError
        ``text`` is not a string, is empty, or breaks the grammar.

    Examples
    --------
    >>> spec = parse_spec("make-pack(S=1)+lpt/fifo")
    >>> spec.head, spec.stages, spec.policy
    (Call(name='make-pack', args=(('S', '1'),)), (Call(name='lpt', args=()),), 'fifo')
    >>> str(parse_spec(" first-fit + lpt / stretch "))
    'first-fit+lpt/stretch'
    """
    if not isinstance(text, str):
        raise SpecError(f"method spec {text!r} is not a string")
    if not text.strip():
        raise spec_error(text, "is empty")
    tokens = _Tokens(text)
    calls = [_call(tokens, "the method name")]
    while tokens.peek() == "+":
        tokens.take("'+'")
        calls.append(_call(tokens, "a stage name after '+'"))
    policy = None
    if tokens.peek() == "/":
        tokens.take("'/'")
        if tokens.peek() == EVERY_POLICY:
            policy = tokens.take("a policy")
        else:
            policy = tokens.word("the policy after '/'", _NAME, _NAME_RULE)
    if tokens.peek() is not None:
        raise spec_error(text, f"unexpected {tokens.peek()!r} after "
                               f"{str(Spec(tuple(calls), policy))!r}")
    return Spec(tuple(calls), policy)


def split_specs(items: str | Iterable[str]) -> list[str]:
    """Split a comma-separated list of specs at the commas outside
    parentheses; a list is split item by item. Blank items are dropped.

    >>> split_specs("make-pack(S=1,x=2)+lpt/fifo, one-pack/*")
    ['make-pack(S=1,x=2)+lpt/fifo', 'one-pack/*']
    """
    if isinstance(items, str):
        items = [items]
    out: list[str] = []
    for item in items:
        if not isinstance(item, str):
            raise SpecError(f"method spec {item!r} is not a string")
        depth, start = 0, 0
        for pos, char in enumerate(item):
            if char == "(":
                depth += 1
            elif char == ")":
                depth = max(0, depth - 1)
            elif char == "," and depth == 0:
                out.append(item[start:pos])
                start = pos + 1
        out.append(item[start:])
    return [part.strip() for part in out if part.strip()]
