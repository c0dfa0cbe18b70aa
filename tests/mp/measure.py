"""Heap bytes one call allocates, on the MicroPython unix port: the collector is off while
it runs, so ``gc.mem_alloc()`` counts every byte it takes (shared by the scripts here);
and a call under ``micropython.heap_lock()``, where any allocation raises MemoryError."""

import gc

import micropython


def allocated(fn):
    gc.collect()
    gc.disable()
    before = gc.mem_alloc()
    fn()
    used = gc.mem_alloc() - before
    gc.enable()
    return used


def locked(fn):
    """fn() with the heap locked: (True, its result), or (False, None) if it allocated."""
    micropython.heap_lock()
    try:
        value = fn()
    except MemoryError:
        micropython.heap_unlock()
        return False, None
    micropython.heap_unlock()
    return True, value
