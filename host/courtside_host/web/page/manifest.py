# The Python the page runs: what `courtside web` serves as /bundle.json, each file as
# lib/NAME in the WebAssembly port's file system. MicroPython's manifest format, read by
# the reader `courtside deploy` reads firmware/manifest.py with (courtside_host.link.manifest).
#
#   $(FIRMWARE)  the firmware tree: the installed one, the checkout's firmware/, or --firmware DIR
#   $(HOST)      the folder that holds the courtside_host package (the laptop's side)
#
# MicroPython's own tools read it too, given those: makemanifest.py -v FIRMWARE=... -v HOST=...

# package() and module() are the reader's, as in any manifest, so not for mypy to check:
# mypy: ignore-errors

# the simulated board, on the firmware it runs unchanged
package("courtside", base_path="$(FIRMWARE)")
package("courtside_sim", base_path="$(FIRMWARE)")
package("courtside_follow", base_path="$(FIRMWARE)")

# the laptop's one renderer, and the view that feeds it the page's event lines
module("courtside_host/__init__.py", base_path="$(HOST)")
module("courtside_host/views/__init__.py", base_path="$(HOST)")
module("courtside_host/views/render.py", base_path="$(HOST)")
module("courtside_host/views/webview.py", base_path="$(HOST)")
