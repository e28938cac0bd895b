"""Draw the Teams app icons (color.png 192x192, outline.png 32x32 transparent) with the stdlib only."""

from __future__ import annotations

import math
import struct
import zlib
from pathlib import Path

ACCENT = (46, 90, 136)
WHITE = (255, 255, 255)


def png(width: int, height: int, pixels: list[list[tuple[int, int, int, int]]]) -> bytes:
    """Encode RGBA ``pixels`` (rows of (r, g, b, a)) as a PNG file."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    raw = b"".join(b"\x00" + bytes(c for px in row for c in px) for row in pixels)
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


def magnifier_coverage(x: float, y: float, size: int) -> float:
    """How much of pixel (x, y) a magnifying glass covers (0..1), for an icon of ``size`` pixels."""
    cx, cy, radius, ring = size * 0.42, size * 0.42, size * 0.22, size * 0.07
    handle = size * 0.075
    best = 0.0
    for sx in (0.25, 0.75):  # 2x2 supersampling for smooth edges
        for sy in (0.25, 0.75):
            px, py = x + sx, y + sy
            d = math.hypot(px - cx, py - cy)
            on_ring = abs(d - radius) <= ring / 2
            # the handle: a thick segment from the ring toward the bottom-right corner
            t = ((px - cx) + (py - cy)) / 2
            off = abs((px - cx) - (py - cy)) / math.sqrt(2)
            on_handle = radius * 0.75 <= t * math.sqrt(2) <= size * 0.48 and off <= handle / 2 and d >= radius
            best += 0.25 if (on_ring or on_handle) else 0.0
    return best


def color_icon(size: int = 192) -> bytes:
    """The full-color icon: a white magnifier on the accent color."""
    rows = []
    for y in range(size):
        row = []
        for x in range(size):
            a = magnifier_coverage(x, y, size)
            row.append(tuple(round(WHITE[i] * a + ACCENT[i] * (1 - a)) for i in range(3)) + (255,))
        rows.append(row)
    return png(size, size, rows)


def outline_icon(size: int = 32) -> bytes:
    """The outline icon: white on a transparent background, as Teams requires."""
    rows = [[(255, 255, 255, round(255 * magnifier_coverage(x, y, size))) for x in range(size)] for y in range(size)]
    return png(size, size, rows)


def main() -> None:
    """Write color.png and outline.png next to this file."""
    here = Path(__file__).resolve().parent
    (here / "color.png").write_bytes(color_icon())
    (here / "outline.png").write_bytes(outline_icon())


if __name__ == "__main__":
    main()
