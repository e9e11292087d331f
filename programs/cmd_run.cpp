// fp8kit run: runs a command with the CUDA driver's GPU core dumps switched
// on (a private temporary directory, lightweight dumps), passes its
// output and exit code through, and if a dump appeared, explains it last on
// stderr. No shell: the command is spawned directly (posix_spawnp).
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "cli.hpp"

extern char** environ;

namespace fp8kit::cli {
namespace {

namespace fs = std::filesystem;

// What the driver reads (cuda-gdb's documentation, "GPU core dump support").
// The flags leave memory out, keeping the dump to the tables and the loaded
// images. After writing a dump the driver aborts the process (SIGABRT), at
// the fault rather than at the next CUDA call; skip_abort (--no-abort) lets
// it go on, but on the H200 the program's next sync then reported success for
// an illegal address and a misaligned access (docs/explain.md), so it is not
// the default.
constexpr const char* kDumpVars[] = {"CUDA_ENABLE_COREDUMP_ON_EXCEPTION", "CUDA_ENABLE_LIGHTWEIGHT_COREDUMP",
                                     "CUDA_COREDUMP_FILE", "CUDA_COREDUMP_GENERATION_FLAGS",
                                     "CUDA_ENABLE_USER_TRIGGERED_COREDUMP", "CUDA_COREDUMP_PIPE"};
constexpr const char* kDumpFlags =
    "skip_nonrelocated_elf_images,skip_global_memory,skip_shared_memory,skip_local_memory,skip_constbank_memory";
constexpr const char* kNoAbortFlag = ",skip_abort";
constexpr int kExitCannotRun = 127;  // as a shell does when a command cannot be started
constexpr int kExitSignalBase = 128;  // a child killed by signal N exits 128 + N, as in a shell

struct RunArgs {
  std::vector<std::string> command;
  std::string keep_core;
  std::vector<std::string> binaries;
  bool json = false;
  bool no_abort = false;
  std::string exit_code = "child";
};

// The environment of the child: ours without any core dump variable, then
// the variables fp8kit run sets.
std::vector<std::string> child_environment(const fs::path& dir, bool no_abort) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view kv(*e);
    const std::string_view key = kv.substr(0, kv.find('='));
    if (std::none_of(std::begin(kDumpVars), std::end(kDumpVars), [&](const char* v) { return key == v; }))
      env.emplace_back(kv);
  }
  env.push_back("CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1");
  env.push_back(std::string("CUDA_COREDUMP_GENERATION_FLAGS=") + kDumpFlags + (no_abort ? kNoAbortFlag : ""));
  env.push_back("CUDA_COREDUMP_FILE=" + (dir / "gpu.%h.%p.%t.nvcudmp").string());
  return env;
}

// The executable a name runs, as posix_spawnp finds it (for sibling images).
std::string resolve_command(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::string_view rest = path ? path : "";
  while (!rest.empty()) {
    const std::size_t colon = rest.find(':');
    const fs::path candidate = fs::path(std::string(rest.substr(0, colon))) / name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
    rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
  }
  return {};
}

// Spawns and waits; returns the wait status, or -1 with errno-style reason.
int spawn_and_wait(const RunArgs& a, const std::vector<std::string>& env, std::string* why) {
  std::vector<char*> argv, envp;
  for (const std::string& s : a.command) argv.push_back(const_cast<char*>(s.c_str()));
  argv.push_back(nullptr);
  for (const std::string& s : env) envp.push_back(const_cast<char*>(s.c_str()));
  envp.push_back(nullptr);
  // Like system(): the terminal's interrupt goes to the child, which decides;
  // the child gets the default dispositions back.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t def;
  sigemptyset(&def);
  sigaddset(&def, SIGINT);
  sigaddset(&def, SIGQUIT);
  posix_spawnattr_setsigdefault(&attr, &def);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
  struct sigaction ign {}, old_int {}, old_quit {};
  ign.sa_handler = SIG_IGN;
  sigaction(SIGINT, &ign, &old_int);
  sigaction(SIGQUIT, &ign, &old_quit);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, argv[0], nullptr, &attr, argv.data(), envp.data());
  posix_spawnattr_destroy(&attr);
  int status = -1;
  if (rc != 0) {
    *why = std::strerror(rc);
  } else {
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGQUIT, &old_quit, nullptr);
  return status;
}

std::vector<fs::path> dumps_in(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file(ec)) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// Keeps each dump if asked, then explains it on stderr; returns explain's code.
int explain_dumps(const RunArgs& a, const fs::path& dir) {
  int code = kExitOk;
  std::vector<std::string> binaries = a.binaries;
  const std::string exe = resolve_command(a.command.front());
  if (!exe.empty()) binaries.insert(binaries.begin(), exe);
  for (const fs::path& d : dumps_in(dir)) {
    fs::path shown = d;
    if (!a.keep_core.empty()) {
      std::error_code ec;
      fs::create_directories(a.keep_core, ec);
      const fs::path kept = fs::path(a.keep_core) / d.filename();
      fs::copy_file(d, kept, fs::copy_options::overwrite_existing, ec);
      if (ec)
        std::fprintf(stderr, "fp8kit run: could not keep the dump in %s: %s\n", kept.c_str(), ec.message().c_str());
      else
        shown = kept;
    }
    std::fprintf(stderr, "\nfp8kit run: the GPU wrote a core dump; its diagnosis:\n");
    std::fflush(stderr);
    code = std::max(code, explain_core(shown.string(), binaries, a.json, stderr));
  }
  return code;
}

int run_command(const RunArgs& a) {
  std::string tmpl = (fs::temp_directory_path() / "fp8kit-run-XXXXXX").string();
  if (::mkdtemp(tmpl.data()) == nullptr) {
    std::fprintf(stderr, "fp8kit run: cannot make a temporary directory: %s\n", std::strerror(errno));
    return kExitBadInput;
  }
  const fs::path dir = tmpl;
  std::string why;
  const int status = spawn_and_wait(a, child_environment(dir, a.no_abort), &why);
  int child = kExitCannotRun;
  if (status == -1) {
    std::fprintf(stderr, "fp8kit run: cannot run %s: %s\n", a.command.front().c_str(), why.c_str());
  } else if (WIFEXITED(status)) {
    child = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    child = kExitSignalBase + WTERMSIG(status);
    std::fprintf(stderr, "fp8kit run: %s was killed by signal %d (%s)\n", a.command.front().c_str(),
                 WTERMSIG(status), strsignal(WTERMSIG(status)));
  }
  const int explained = explain_dumps(a, dir);
  std::error_code ec;
  fs::remove_all(dir, ec);
  return a.exit_code == "explain" ? explained : child;
}

}  // namespace

void register_run(CLI::App& app, Action& action) {
  auto args = std::make_shared<RunArgs>();
  auto* sub = app.add_subcommand("run", "Run a command with GPU core dumps on; explain the fault if one happens");
  sub->add_option("command", args->command, "the command and its arguments (after --)")->required();
  sub->add_option("--keep-core", args->keep_core, "directory to keep the GPU core dumps in (else deleted)");
  sub->add_option("--binary", args->binaries, "more host binaries holding kernels (.so files the command loads)");
  sub->add_flag("--json", args->json, "the diagnosis as JSON (on stderr)");
  sub->add_flag("--no-abort", args->no_abort,
                "let the command go on after the dump (the driver aborts it otherwise; see docs/explain.md)");
  sub->add_option("--exit-code", args->exit_code,
                  "child: the command's own exit code (128+N if killed by signal N); explain: explain's")
      ->check(CLI::IsMember({"child", "explain"}));
  sub->positionals_at_end();
  sub->callback([args, &action] { action = [args] { return run_command(*args); }; });
}

}  // namespace fp8kit::cli
