// File: models/fabric/wire.cpp
#include "models/fabric/wire.hpp"

#include "sim/input_error.hpp"

#include <string>

namespace railsim::models {

double wire_efficiency(Transport transport, int mtu_bytes) {
  if (transport == Transport::kInfiniband) {
    if (mtu_bytes != 256 && mtu_bytes != 512 && mtu_bytes != 1024 && mtu_bytes != 2048 &&
        mtu_bytes != 4096) {
      throw sim::InputError("InfiniBand MTU " + std::to_string(mtu_bytes) +
                            ", expected 256, 512, 1024, 2048 or 4096");
    }
    return mtu_bytes / static_cast<double>(mtu_bytes + kInfinibandHeaderBytes);
  }
  if (mtu_bytes < 256 || mtu_bytes > 9000) {
    throw sim::InputError("RoCEv2 MTU " + std::to_string(mtu_bytes) + ", expected 256 to 9000");
  }
  return mtu_bytes / static_cast<double>(mtu_bytes + kRoceHeaderBytes);
}

}  // namespace railsim::models
