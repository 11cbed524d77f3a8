"""Time limits of the tests: GPUC_TIME_SCALE (default 1) stretches every
deadline and every timing margin, for slow builds (`make asan` sets 3) and
loaded machines. Write a limit as scaled(SECONDS), SECONDS as measured on an
idle machine with a healthy margin; never as a bare number."""
from __future__ import annotations

import os

TIME_SCALE = float(os.environ.get("GPUC_TIME_SCALE", "1"))


def scaled(seconds: float) -> float:
    return seconds * TIME_SCALE


TIMEOUT = scaled(30)  # seconds: the longest any single wait may take
