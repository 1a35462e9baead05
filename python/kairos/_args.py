"""Checks of the package's own arguments (the core checks the scenes)."""

from __future__ import annotations

import numpy as np


def _whole(x, name: str) -> int:
    """A whole number >= 0 given as an int (or an integral float), or a ValueError naming
    the argument."""
    if isinstance(x, (bool, np.bool_)):
        raise ValueError(f"{name} must be a whole number >= 0, got {x!r}")
    if isinstance(x, (float, np.floating)) and float(x).is_integer():
        x = int(x)
    if not isinstance(x, (int, np.integer)) or x < 0:
        raise ValueError(f"{name} must be a whole number >= 0, got {x!r}")
    return int(x)
