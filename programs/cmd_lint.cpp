#include <CLI/CLI.hpp>

#include "cli.hpp"

namespace fp8kit::cli {
void register_lint(CLI::App& app, Action& action) {
  auto* sub = app.add_subcommand("lint", "(not yet implemented)");
  sub->callback([&action] { action = [] { return kExitBadInput; }; });
}
}  // namespace fp8kit::cli
