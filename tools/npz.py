"""A compressed ``.npz`` written byte for byte the same from the same arrays.

``numpy.savez_compressed`` stamps each member with the time of writing, so
two runs of a seeded generator or trainer would give different files. Here
every member carries one fixed date, in the order given: the same arrays,
the same bytes (``np.load`` reads the file as usual), and a rerun can be
checked with ``cmp``.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Mapping
from pathlib import Path

import numpy as np

#: The earliest date a zip file can record.
FIXED_DATE = (1980, 1, 1, 0, 0, 0)


def write_npz(path: Path, arrays: Mapping[str, np.ndarray]) -> None:
    """Write ``arrays`` (by name, in order) to ``path`` as a compressed ``.npz``.

    No object arrays: the file must load without pickle (``allow_pickle=False``).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, array in arrays.items():
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, np.asarray(array), allow_pickle=False)
            member = zipfile.ZipInfo(f"{name}.npy", date_time=FIXED_DATE)
            member.compress_type = zipfile.ZIP_DEFLATED
            member.external_attr = 0o644 << 16
            archive.writestr(member, buffer.getvalue())
