"""Count the compute machines of a Batsim (SimGrid) platform file.

Batsim computes on every host of the platform except its *master* host
(id ``master_host`` by default, ``-m`` in Batsim) and the hosts whose
``role`` property is ``master`` or ``storage``. Hosts are declared two ways,
and both are checked for the name and the role:

- ``<host id="...">``, with an optional ``<prop id="role" value="..."/>``;
- ``<cluster>`` (and ``<cabinet>``) elements, whose ``radical`` lists host
  numbers and ranges (``"0-31"``, ``"0-3,8"``): one host per number, named
  ``prefix + number + suffix``. A ``role`` property of the cluster is the
  role of each of its hosts: Batsim's own ``cluster512.xml`` declares its
  master as a one-host cluster ``master_host0`` with role ``master``, so the
  platform has 512 compute hosts, not 513.

Parsed with :mod:`xml.etree`; the DTD named in the file is not fetched.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from ..errors import TraceError
from ..json_files import read_text_file

__all__ = ["count_compute_hosts"]

_NOT_COMPUTE = {"master", "storage"}
_HOST_RANGES = {"cluster", "cabinet"}
"""Elements that declare hosts by a ``radical`` of numbers."""


def _tag(element: ET.Element) -> str:
    return element.tag.rsplit("}", 1)[-1]


def _role(element: ET.Element) -> str | None:
    """The ``role`` property of a host or a cluster (its direct children)."""
    for prop in element:
        if _tag(prop) == "prop" and prop.get("id") == "role":
            return prop.get("value")
    return None


def _radical_ranges(label: str, radical: str) -> list[tuple[int, int]]:
    """The host numbers of a ``radical`` as inclusive ranges: ``"0-3,8"`` ->
    ``[(0, 3), (8, 8)]`` (never expanded: a radical may name 10**8 hosts)."""
    ranges: list[tuple[int, int]] = []
    for part in radical.split(","):
        part = part.strip()
        try:
            if "-" in part:
                low, high = (int(x) for x in part.split("-"))
                if high < low:
                    raise ValueError
                ranges.append((low, high))
            elif part:
                ranges.append((int(part), int(part)))
        except ValueError:
            raise TraceError(f"{label}: cluster radical={radical!r} is not a list of "
                             f"numbers and ranges") from None
    return ranges


def _compute_in_range(label: str, element: ET.Element, master: str) -> int:
    """The compute hosts of a ``<cluster>``/``<cabinet>``: none when its role
    is master or storage, else every host but one named ``master``."""
    ranges = _radical_ranges(label, element.get("radical", ""))
    if _role(element) in _NOT_COMPUTE:
        return 0
    count = sum(high - low + 1 for low, high in ranges)
    prefix, suffix = element.get("prefix", ""), element.get("suffix", "")
    middle = master[len(prefix):len(master) - len(suffix)] if \
        master.startswith(prefix) and master.endswith(suffix) else ""
    if middle.isascii() and middle.isdigit() and \
            f"{prefix}{int(middle)}{suffix}" == master:
        count -= sum(low <= int(middle) <= high for low, high in ranges)
    return count


def count_compute_hosts(path: str | Path, master: str = "master_host") -> int:
    """The number of compute machines Batsim sees in the platform ``path``
    (module docstring: hosts other than ``master`` and role master/storage).

    Raises
    ------
    TraceError
        The file is missing, is not XML, or has no compute host.
    """
    path = Path(path)
    text = read_text_file(path, TraceError, errors="replace")
    try:
        # SimGrid accepts blank lines before the XML declaration; expat does not
        root = ET.fromstring(text.lstrip())
    except ET.ParseError as err:
        raise TraceError(f"{path.name}: not valid XML ({err})") from None
    count = 0
    for element in root.iter():
        tag = _tag(element)
        if tag == "host":
            if element.get("id") == master or _role(element) in _NOT_COMPUTE:
                continue
            count += 1
        elif tag in _HOST_RANGES:
            count += _compute_in_range(path.name, element, master)
    if count == 0:
        raise TraceError(f"{path.name}: no compute host (hosts other than "
                         f"{master!r} and role=master/storage)")
    return count
