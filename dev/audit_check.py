#!/usr/bin/env python3
"""Cross-checks `fp8kit audit --json` verdicts with cuobjdump (a developer tool).

For reports given as NAME=REPORT.json (sum:NAME=... for counts only) it samples offenders of every class
(severity x reason x outcome, per library), plus the records of REPORT.json
files given as real:NAME=... (kernels fp8kit calls real code, e.g. those
whose body is a CALL.REL subroutine), extracts each sample's image with
audit_extract, disassembles just that kernel (`cuobjdump -sass -fun`) and
classifies the text by an independent walk from the entry. Writes one JSON:
per report the counts, and per sample both verdicts and the first lines.
Usage: audit_check.py OUT.json EXTRACT CUOBJDUMP NAME=REPORT.json ...
"""
import collections, json, os, re, subprocess, sys, tempfile

PER_CLASS = int(os.environ.get("AUDIT_CHECK_PER_CLASS", "2"))
INSN = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)([^;]*);")
WORK = ("ST", "STG", "STS", "STL", "ATOM", "ATOMG", "ATOMS", "RED", "REDG", "HMMA", "IMMA", "QMMA", "HGMMA",
        "QGMMA", "UTCHMMA", "UTCQMMA", "UTCIMMA", "UTCOMMA", "UBLKCP", "UTMASTG")


def walk(lines):
    """trap / empty / real from cuobjdump text, following BRA and CALL.REL."""
    code = {}
    for l in lines:
        m = INSN.search(l)
        if m:
            code[int(m.group(1), 16)] = (m.group(2) or "").strip(), m.group(3), m.group(4)
    if not code:
        return "undecoded", False
    off, stack, work, called, via_call = min(code), [], False, False, False
    for _ in range(4096):
        if off not in code:
            return "real", via_call
        pred, op, args = code[off]
        base = op.split(".")[0]
        target = re.search(r"(0x[0-9a-f]+)\s*$", args.strip())
        if pred == "@!PT":
            off += 16
            continue
        if pred or op.startswith("BRA.U"):  # BRA.U: a uniform predicate in the operands
            if base in ("EXIT", "RET", "BRA", "BRX", "BPT", "JMX") or op.startswith("CALL.REL"):
                return "real", via_call
            work |= base in WORK
            off += 16
            continue
        if base == "BPT":
            return ("real" if work else "trap"), via_call
        if base == "EXIT" or (base == "RET" and not stack):
            return ("real" if work or called else "empty"), via_call
        if base == "RET":
            off = stack.pop()
            continue
        if base == "BRA" and target:
            t = int(target.group(1), 16)
            if t == off:
                return "real", via_call
            off = t
            continue
        if op.startswith("CALL.REL") and target:
            stack.append(off + 16)
            via_call = True
            off = int(target.group(1), 16)
            continue
        if base in ("BRX", "JMX", "BRA"):
            return "real", via_call
        called |= base == "CALL"
        work |= base in WORK
        off += 16
    return "real", via_call


def reason_class(o):
    r = o.get("reason", "")
    for key, name in (("same family", "same-family"), ("real code only in sm", "a-only"),
                      ("another family", "other-family"), ("every image", "everywhere"), ("no image", "missing")):
        if key in r:
            return name
    return "other"


def library_file(report, where):
    best = ""
    for i in report.get("inputs", []):
        p = i["path"]
        if where.startswith(p) and len(p) > len(best):
            best = p
    return best


def samples_of(report, real):
    picked, seen = [], collections.Counter()
    if real:
        for r in report.get("records", []):
            if r["outcome"] == "sass" and seen[r["image"]] < 3:
                seen[r["image"]] += 1
                picked.append(dict(r, cls="real"))
        return picked
    for o in report.get("offenders", []):
        for g in o["gpus"]:
            if g["outcome"] == "missing" or not g["image"]:
                continue
            key = (g["library"], g["severity"], reason_class(g), g["outcome"])
            if seen[key] < PER_CLASS:
                seen[key] += 1
                picked.append(dict(g, kernel=o["kernel"], cls="/".join(key[1:])))
    return picked


def check(samples, report, extract, cuobjdump, tmp):
    by_lib = collections.defaultdict(list)
    for n, s in enumerate(samples):
        s["cubin"] = os.path.join(tmp, "s%d.cubin" % n)
        by_lib[library_file(report, s["where"])].append(s)
    for lib, ss in by_lib.items():
        req = "".join("%s %s %s\n" % (s["where"], s["image"], s["cubin"]) for s in ss)
        subprocess.run([extract, lib], input=req, capture_output=True, text=True, timeout=60)
    for s in samples:
        if not os.path.exists(s["cubin"]):
            s["cuobjdump"] = "not extracted"
            continue
        try:
            out = subprocess.run([cuobjdump, "-sass", "-fun", s["kernel"], s["cubin"]], capture_output=True,
                                 text=True, timeout=20).stdout
        except (subprocess.TimeoutExpired, OSError) as e:
            s["cuobjdump"] = "failed: %s" % e
            continue
        lines = [l.strip() for l in out.splitlines() if INSN.search(l)]
        s["cuobjdump"], s["via_call"] = walk(lines)
        s["first"] = [re.sub(r"\s*/\* 0x[0-9a-f]+ \*/", "", l) for l in lines[:8]]
        want = {"trap": "trap", "empty": "empty", "sass": "real"}.get(s["outcome"], s["outcome"])
        s["agree"] = s["cuobjdump"] == want
        os.remove(s["cubin"])
        del s["cubin"]


def summary(report):
    keep = ("exit_code", "files", "counts", "summary")
    libs = [l for l in report.get("libraries", []) if l["errors"] or l["warnings"] or l["notes"]]
    return dict({k: report.get(k) for k in keep}, libraries_with_offenders=libs,
                libraries=len(report.get("libraries", [])), errors_list=report.get("errors", [])[:20])


def main():
    out, extract, cuobjdump = sys.argv[1:4]
    result = {}
    with tempfile.TemporaryDirectory() as tmp:
        for arg in sys.argv[4:]:
            name, path = arg.split("=", 1)
            real = name.startswith("real:")
            only_summary = name.startswith("sum:")
            try:
                report = json.load(open(path))
            except Exception as e:  # a report cut short by a timeout
                result[name] = {"error": str(e)}
                continue
            samples = [] if only_summary else samples_of(report, real)
            check(samples, report, extract, cuobjdump, tmp)
            agree = sum(1 for s in samples if s.get("agree"))
            result[name] = {"summary": None if real else summary(report), "samples": samples,
                            "agree": "%d/%d" % (agree, len(samples))}
            json.dump(result, open(out, "w"), indent=1)


if __name__ == "__main__":
    main()
