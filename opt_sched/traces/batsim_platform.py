"""Count the compute machines of a Batsim (SimGrid) platform file.

Batsim computes on every host of the platform except its *master* host
(id ``master_host`` by default, or a host whose ``role`` property is
``master``) and storage hosts (``role`` = ``storage``). SimGrid
``<cluster>`` elements declare ``radical`` ranges of hosts (``"0-31"`` or
``"0-3,8"``); each number is one host. Parsed with :mod:`xml.etree`; the
DTD named in the file is not fetched.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from ..errors import TraceError
from ..io import read_text_file

__all__ = ["count_compute_hosts"]

_NOT_COMPUTE = {"master", "storage"}


def _tag(element: ET.Element) -> str:
    return element.tag.rsplit("}", 1)[-1]


def _role(host: ET.Element) -> str | None:
    for prop in host:
        if _tag(prop) == "prop" and prop.get("id") == "role":
            return prop.get("value")
    return None


def _radical_size(label: str, radical: str) -> int:
    count = 0
    for part in radical.split(","):
        part = part.strip()
        try:
            if "-" in part:
                low, high = (int(x) for x in part.split("-"))
                if high < low:
                    raise ValueError
                count += high - low + 1
            elif part:
                int(part)
                count += 1
        except ValueError:
            raise TraceError(f"{label}: cluster radical={radical!r} is not a list of "
                             f"numbers and ranges") from None
    return count


def count_compute_hosts(path: str | Path, master: str = "master_host") -> int:
    """The number of compute machines Batsim sees in the platform ``path``.

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
        elif tag == "cluster":
            count += _radical_size(path.name, element.get("radical", ""))
    if count == 0:
        raise TraceError(f"{path.name}: no compute host (hosts other than "
                         f"{master!r} and role=master/storage)")
    return count
