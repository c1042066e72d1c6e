// File: calibrate/parse/topo_nics.hpp
// An imported server's NICs (topo_import.hpp): names from the dump's NIC legend; states, link
// layers and models from ibdev2netdev where it is given; rates from the reference preset's
// compute NIC; then the compute NICs: each GPU in turn takes the closest free NIC that is up and
// of the fabric's link layer (ties to the lower index), so every GPU has its own rail and the
// NICs no GPU took (storage, in-band management) carry no collectives.
#pragma once

#include "calibrate/parse/ibdev2netdev.hpp"
#include "calibrate/parse/topo_cells.hpp"
#include "calibrate/parse/topo_import.hpp"
#include "models/hardware/node_spec.hpp"

namespace railsim::calibrate::parse {

// Fills the NICs of `import.node` (placed in its PCIe tree already) and returns the link layer
// of the fabric that carries the collectives: that of most NICs that are up and near a GPU.
// `ports` may be null (no ibdev2netdev listing: every NIC up and InfiniBand).
models::Transport build_nics(const TopoCells& cells,
                             const Ibdev2netdevOutput* ports,
                             const models::Nic& reference,
                             TopoImport& import);

}  // namespace railsim::calibrate::parse
