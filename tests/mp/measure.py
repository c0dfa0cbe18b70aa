"""Heap bytes one call allocates, on the MicroPython unix port: the collector is off while
it runs, so ``gc.mem_alloc()`` counts every byte it takes (shared by the scripts here)."""

import gc


def allocated(fn):
    gc.collect()
    gc.disable()
    before = gc.mem_alloc()
    fn()
    used = gc.mem_alloc() - before
    gc.enable()
    return used
