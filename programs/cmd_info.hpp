// `fp8kit info`'s data and its text form (cmd_info.cpp); `fp8kit doctor`
// prints it too.
#pragma once

#include <nlohmann/json.hpp>

namespace fp8kit::cli {

nlohmann::json collect_info();
void print_info(const nlohmann::json& info);

}  // namespace fp8kit::cli
