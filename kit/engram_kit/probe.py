"""Container healthcheck: exit 0 when a readiness URL answers 200."""

from __future__ import annotations

import sys
import urllib.request


def main(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=2) as resp:  # noqa: S310 (loopback URL)
            return 0 if resp.status == 200 else 1
    except Exception:  # any failure is "not healthy"
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
