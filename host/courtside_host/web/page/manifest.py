# The Python the page runs: what `courtside web` serves as /bundle.json, each file as
# lib/NAME in the WebAssembly port's file system. MicroPython's manifest format, read by
# the reader `courtside deploy` reads firmware/manifest.py with (courtside_host.link.manifest).
#
#   $(FIRMWARE)  the firmware tree: the installed one, the checkout's firmware/, or --firmware DIR
#   $(COMMON)    what runs on any Python: the installed one or the checkout's common/
#   $(HOST)      the folder that holds the courtside_host package (the laptop's side)
#
# MicroPython's own tools read it too, given those: makemanifest.py -v FIRMWARE=... -v COMMON=... -v HOST=...

# package() and module() are the reader's, as in any manifest, so not for mypy to check:
# mypy: ignore-errors

# the simulated board, on the firmware it runs unchanged
package("courtside", base_path="$(FIRMWARE)")
package("courtside_sim", base_path="$(COMMON)")
# the one follower of the stream and its face, with the page's view (courtside_follow.page):
# what runs on any Python; nothing of the laptop-only package (courtside_host)
package("courtside_follow", base_path="$(COMMON)")
