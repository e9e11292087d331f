#include "python_site.hpp"

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace fp8kit::cli {

namespace {

// Prints "ROOT<TAB>path<TAB>base" per directory and "MISSING<TAB>name" per
// package it cannot find. find_spec locates a package without importing it
// (importing torch takes seconds); a dotted name imports only its parents.
constexpr const char* kScript = R"PY(
import importlib.util, os, site, sys, sysconfig
dirs = list(site.getsitepackages()) if hasattr(site, "getsitepackages") else []
if site.ENABLE_USER_SITE: dirs.append(site.getusersitepackages())
dirs += [sysconfig.get_paths()[k] for k in ("purelib", "platlib")]
dirs = [os.path.realpath(d) for d in dirs if os.path.isdir(d)]
dirs = sorted(set(dirs), key=dirs.index)
def base_of(p):
    p = os.path.realpath(p)
    for d in dirs:
        if p.startswith(d + os.sep): return d
    return os.path.dirname(p)
names = sys.argv[1:]
if not names:
    for d in dirs: print("ROOT\t%s\t%s" % (d, d))
for n in names:
    try: spec = importlib.util.find_spec(n)
    except Exception: spec = None
    if spec is None:
        print("MISSING\t" + n); continue
    locs = list(spec.submodule_search_locations or []) or ([spec.origin] if spec.origin else [])
    for p in locs: print("ROOT\t%s\t%s" % (os.path.realpath(p), base_of(p)))
)PY";

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

}  // namespace

bool python_roots(const std::vector<std::string>& packages, std::vector<audit::WalkRoot>* roots, std::string* why) {
  const char* env = std::getenv("FP8KIT_PYTHON");
  const std::string python = env && *env ? env : "python3";
  std::string cmd = quote(python) + " -c " + quote(kScript);
  for (const std::string& p : packages) cmd += " " + quote(p);
  FILE* f = ::popen(cmd.c_str(), "r");
  if (!f) {
    *why = "cannot run " + python;
    return false;
  }
  std::string out;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) out.append(buf, n);
  const int status = ::pclose(f);
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    *why = python + " failed (is it installed? set FP8KIT_PYTHON to choose another interpreter)";
    return false;
  }
  std::istringstream lines(out);
  std::vector<std::string> missing;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::string tag, path, base;
    std::getline(fields, tag, '\t');
    std::getline(fields, path, '\t');
    std::getline(fields, base, '\t');
    if (tag == "ROOT" && !path.empty()) roots->push_back({path, base});
    if (tag == "MISSING") missing.push_back(path);
  }
  if (!missing.empty()) {
    *why = "not installed in " + python + ":";
    for (const std::string& m : missing) *why += " " + m;
    return false;
  }
  if (roots->empty()) {
    *why = python + " reports no site-packages directory";
    return false;
  }
  return true;
}

}  // namespace fp8kit::cli
