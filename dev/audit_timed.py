#!/usr/bin/env python3
"""Runs a command with stdout to a file; prints wall time, peak RSS, CPU time
and exit status (what /usr/bin/time -v reports, where it is not installed).
Usage: audit_timed.py LABEL STDOUT_FILE COMMAND..."""
import resource, subprocess, sys, time

label, out = sys.argv[1:3]
t0 = time.monotonic()
with open(out, "w") as f:
    rc = subprocess.call(sys.argv[3:], stdout=f, stderr=subprocess.DEVNULL)
wall = time.monotonic() - t0
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%s: exit %d, %.2f s wall, %.2f GB peak RSS, %.1f s user + %.1f s sys"
      % (label, rc, wall, ru.ru_maxrss / 1e6, ru.ru_utime, ru.ru_stime), flush=True)
