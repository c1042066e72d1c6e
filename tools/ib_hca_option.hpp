// File: tools/ib_hca_option.hpp
// `--ib-hca LIST` on the commands that run NCCL's collectives (collective, run): NCCL_IB_HCA, the
// RDMA devices NCCL may use, over the system's own (/system/ib_hca): "mlx5_0,mlx5_3" (prefixes),
// "=mlx5_1" (exact), "^mlx5_2" (all but), models/system/ib_hca.hpp. A GPU whose NIC it leaves out
// moves to the nearest one left, as with a NIC that is down.
#pragma once

#include "models/system/ib_hca.hpp"
#include "models/system/system.hpp"

#include <boost/program_options.hpp>

#include <optional>

namespace railsim::tools {

// Adds --ib-hca to `options`: when given, parsing sets `filter`, or throws an InputError naming
// the option.
void add_ib_hca_option(boost::program_options::options_description& options,
                       std::optional<models::IbHcaFilter>& filter);

// Sets spec.ib_hca to `filter`, if given. Throws sim::InputError "--ib-hca: ..." when it leaves
// NCCL no compute NIC.
void apply_ib_hca_option(const std::optional<models::IbHcaFilter>& filter,
                         models::SystemSpec& spec);

}  // namespace railsim::tools
