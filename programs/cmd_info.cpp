// fp8kit info: each GPU, its family, which path serves each scale mode and
// which NVFP4 paths it loads; without a GPU, what the library carries for
// every family.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>

#include "arch/config.hpp"
#include "cli.hpp"
#include "core/text.hpp"
#include "cmd_info.hpp"
#include "devices.hpp"

namespace fp8kit::cli {

nlohmann::json collect_info() {
  nlohmann::json j;
  j["version"] = std::to_string(FP8KIT_VERSION_MAJOR) + "." + std::to_string(FP8KIT_VERSION_MINOR) + "." +
                 std::to_string(FP8KIT_VERSION_PATCH);
  j["build_targets"] = fp8kit_build_targets();
  std::string why;
  j["gpus"] = nlohmann::json::array();
  for (const DeviceInfo& g : list_gpus(&why)) {
    const arch::Family* family = arch::family_of(g.cap);
    j["gpus"].push_back({{"index", g.device},
                         {"name", g.name},
                         {"capability", capability_text(g.cap)},
                         {"family", family ? family->name : "unknown"},
                         {"sm_count", g.sm_count},
                         {"smem_per_block_optin", g.smem_per_block_optin},
                         {"paths", paths_for(g.cap / 10, g.cap % 10)},
                         {"nvfp4_paths", nvfp4_paths_for(g.cap / 10, g.cap % 10)}});
  }
  if (j["gpus"].empty()) {
    j["no_gpu_reason"] = why;
    j["families"] = nlohmann::json::array();
    for (auto [major, minor] : showcase_capabilities()) {
      const arch::Family* family = arch::family_of(arch::capability(major, minor));
      j["families"].push_back({{"capability", std::to_string(major) + "." + std::to_string(minor)},
                               {"family", family ? family->name : "unknown"},
                               {"paths", paths_for(major, minor)},
                               {"nvfp4_paths", nvfp4_paths_for(major, minor)}});
    }
  }
  return j;
}

namespace {

void print_row(const nlohmann::json& r, const std::string& scales, const char* indent) {
  if (r["path"].is_null()) {
    std::printf("%s%-14s refused: %s\n", indent, scales.c_str(), r["error"].get<std::string>().c_str());
  } else {
    std::printf("%s%-14s %-11s %-20s %s\n", indent, scales.c_str(), r["path"].get<std::string>().c_str(),
                r["tensor_cores"].get<std::string>().c_str(), r["image"].get<std::string>().c_str());
  }
}

// One line when every scale mode gets the same answer, else one per mode.
void print_paths(const nlohmann::json& paths, const char* indent) {
  bool same = true;
  for (const auto& r : paths) {
    nlohmann::json a = r, b = paths.front();
    a.erase("scales");
    b.erase("scales");
    same = same && a == b;
  }
  if (same) {
    print_row(paths.front(), "all modes", indent);
    return;
  }
  for (const auto& r : paths) print_row(r, r["scales"].get<std::string>(), indent);
}

// The NVFP4 paths on one line, in AUTO's order ("none" where no kernel loads).
void print_nvfp4_paths(const nlohmann::json& paths, const char* indent) {
  std::string line;
  for (const auto& r : paths)
    line += (line.empty() ? "" : ", ") + r["path"].get<std::string>() + " (" + r["image"].get<std::string>() + ")";
  if (line.empty()) line = "none: no NVFP4 kernel of this build loads here";
  std::printf("%s%-14s %s\n", indent, "nvfp4", line.c_str());
}

}  // namespace

void print_info(const nlohmann::json& j) {
  std::printf("fp8kit %s\nbuilt for: %s\n", j["version"].get<std::string>().c_str(),
              j["build_targets"].get<std::string>().c_str());
  for (const auto& g : j["gpus"]) {
    std::printf("\nGPU %d: %s, compute capability %s (%s), %d SMs, %lld bytes shared memory per block\n",
                g["index"].get<int>(), g["name"].get<std::string>().c_str(), g["capability"].get<std::string>().c_str(),
                g["family"].get<std::string>().c_str(), g["sm_count"].get<int>(),
                g["smem_per_block_optin"].get<long long>());
    std::printf("  %-14s %-11s %-20s %s\n", "scales", "path", "tensor cores", "image");
    print_paths(g["paths"], "  ");
    print_nvfp4_paths(g["nvfp4_paths"], "  ");
  }
  if (j.contains("no_gpu_reason")) {
    std::printf("\nNo CUDA GPU here (%s). What this build gives each GPU family (nvfp4: the paths AUTO tries, in "
                "order; the problem picks one, docs/nvfp4.md):\n",
                j["no_gpu_reason"].get<std::string>().c_str());
    std::printf("  %-5s %-23s %-14s %-11s %-20s %s\n", "cap", "family", "scales", "path", "tensor cores", "image");
    for (const auto& f : j["families"]) {
      char indent[64];
      std::snprintf(indent, sizeof indent, "  %-5s %-23s ", f["capability"].get<std::string>().c_str(),
                    f["family"].get<std::string>().c_str());
      print_paths(f["paths"], indent);
      print_nvfp4_paths(f["nvfp4_paths"], indent);
    }
  }
}

void register_info(CLI::App& app, Action& action) {
  auto json = std::make_shared<bool>(false);
  auto* sub = app.add_subcommand("info", "GPUs present, their family, the path each scale mode runs, the NVFP4 paths");
  sub->add_flag("--json", *json, "machine-readable output");
  sub->callback([&action, json] {
    action = [json] {
      const nlohmann::json j = collect_info();
      if (*json) {
        std::printf("%s\n", j.dump(2).c_str());
      } else {
        print_info(j);
      }
      return kExitOk;
    };
  });
}

}  // namespace fp8kit::cli
