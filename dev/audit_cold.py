#!/usr/bin/env python3
"""Cold-cache timings of `fp8kit audit --python` for two builds, alternating
(docs/audit.md "Speed and memory"). Before each cold run every file under the
site-packages is dropped from the page cache (POSIX_FADV_DONTNEED: clean pages
go, no root needed); the first run on a fresh machine is the true cold one.
Each line: wall, peak RSS, CPU, and what the run read from disk (ru_inblock).
Usage: audit_cold.py OUT BASE NEW [ROUNDS]   (BASE and NEW: fp8kit binaries)"""
import filecmp, os, subprocess, sys, sysconfig, time

out, base, new = sys.argv[1:4]
rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 3
site = sorted({os.path.realpath(sysconfig.get_paths()[k]) for k in ("purelib", "platlib")})
log = open(os.path.join(out, "cold.txt"), "a", buffering=1)


def say(line):
    print(line, flush=True)
    log.write(line + "\n")


def evict():
    n = size = 0
    for root in site:
        for d, _, files in os.walk(root):
            for f in files:
                p = os.path.join(d, f)
                try:
                    fd = os.open(p, os.O_RDONLY | os.O_NOFOLLOW)
                except OSError:
                    continue
                try:
                    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                    size += os.fstat(fd).st_size
                    n += 1
                finally:
                    os.close(fd)
    return n, size


def timed(label, argv, stdout):
    t0 = time.monotonic()
    with open(stdout, "w") as f:
        p = subprocess.Popen(argv, stdout=f, stderr=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    say("%-28s exit %d  %6.2f s wall  %.2f GB peak RSS  %5.1f s user + %4.1f s sys  %.2f GB read from disk"
        % (label, os.waitstatus_to_exitcode(status), wall, ru.ru_maxrss / 1e6, ru.ru_utime, ru.ru_stime,
           ru.ru_inblock * 512 / 1e9))


def ra_kb():
    st = os.stat(site[0])
    q = "/sys/dev/block/%d:%d" % (os.major(st.st_dev), os.minor(st.st_dev))
    for path in (q + "/queue/read_ahead_kb", q + "/../queue/read_ahead_kb"):
        try:
            return open(path).read().strip() + " KiB (" + os.path.realpath(path) + ")"
        except OSError:
            pass
    return "unknown"


say("site=%s cpus=%d read_ahead=%s" % (site, os.cpu_count(), ra_kb()))
py = ["audit", "--python", "--json"]
timed("base cold (fresh machine)", [base] + py, "/tmp/base.json")
for r in range(rounds):
    order = [("new", new), ("base", base)] if r == 0 else [("base", base), ("new", new)]
    for name, exe in order:
        if r == 0 and name == "base":
            continue
        t0 = time.monotonic()
        n, size = evict()
        say("evicted %d files, %.2f GB in %.1f s" % (n, size / 1e9, time.monotonic() - t0))
        timed("%s cold (evicted) %d" % (name, r + 1), [exe] + py, "/tmp/%s.json" % name)
    if r == 0:
        say("JSON reports identical: %s" % filecmp.cmp("/tmp/base.json", "/tmp/new.json", shallow=False))
        torch = os.path.join(site[0], "torch/lib/libtorch_cuda.so")
        for name, exe in (("new", new), ("base", base)):
            timed("%s libtorch_cuda 9.0 12.1" % name, [exe, "audit", torch, "--gpu", "9.0", "--gpu", "12.1"],
                  "/tmp/%s_torch.txt" % name)
for name, exe in (("new", new), ("base", base)):
    timed("%s warm" % name, [exe] + py, "/tmp/%s_warm.json" % name)
