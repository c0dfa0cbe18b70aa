"""Reading the PNG files the tests make (rendered pictures, browser screenshots) with
Pillow: decoding in Python took seconds a picture, the better part of the suite's time."""

import io

from PIL import Image


def read(data):
    """(width, height, rows of RGBA bytes) of an 8-bit RGB or RGBA PNG, from its bytes."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    image = Image.open(io.BytesIO(data))
    assert image.format == "PNG" and image.mode in ("RGB", "RGBA"), image.mode
    width, height = image.size
    pixels = image.convert("RGBA").tobytes()
    stride = 4 * width
    return width, height, [pixels[k:k + stride] for k in range(0, height * stride, stride)]
