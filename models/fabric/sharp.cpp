// File: models/fabric/sharp.cpp
#include "models/fabric/sharp.hpp"

#include <fmt/format.h>

namespace railsim::models {

std::optional<std::string> sharp_problem(Transport transport,
                                         const std::optional<SwitchModel>& switch_model) {
  if (transport != Transport::kInfiniband) {
    return "SHARP reduces in InfiniBand switches (NVIDIA Quantum and later); this fabric is RoCE, "
           "whose Ethernet switches run no CollNet";
  }
  if (switch_model && !switch_model->reduces) {
    return fmt::format(
        "the fabric's switches ({}) do not reduce: SHARP needs NVIDIA Quantum InfiniBand switches",
        switch_model->name);
  }
  return std::nullopt;
}

}  // namespace railsim::models
