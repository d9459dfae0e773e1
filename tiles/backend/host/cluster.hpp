#pragma once
// Host backend of ts::cluster (tiles/sync/cluster.hpp). The host launcher runs the blocks of a
// cluster together (run_blocks), each over its own shared memory; a peer's barrier or tile is the
// one at the same offset in the peer's shared memory, as mapa finds it on the GPU. Trace mode
// records the cluster ops on the existing op kinds (tiles/backend/host/trace_op.hpp): a block_sync
// of the cluster, an arrive on a peer's barrier, a TMA load with a multicast mask.
#include <stdexcept>
#include <string>

#include "tiles/backend/host/core.hpp"
#include "tiles/backend/host/fiber.hpp"
#include "tiles/backend/host/mbarrier.hpp"
#include "tiles/backend/host/trace.hpp"

namespace ts {
namespace host {
inline Cluster& current_cluster(const char* op) {
  Block& b = *current().block;
  if (b.cluster == nullptr) throw std::logic_error(std::string(op) + " in a launch without clusters");
  return *b.cluster;
}
// The launch has clusters and rank `cta` is one of them (in trace mode too, where the simulator
// joins the blocks).
inline void check_rank(int cta, const char* op) {
  const Block& b = *current().block;
  if (b.cluster_ctas < 2) throw std::logic_error(std::string(op) + " in a launch without clusters");
  if (cta < 0 || cta >= b.cluster_ctas)
    throw std::out_of_range(std::string(op) + ": no CTA " + std::to_string(cta) + " in a cluster of " + std::to_string(b.cluster_ctas));
}
// The object at `p`'s offset in the shared memory of cluster rank `cta`.
template <class T> T& in_peer(T& p, int cta, const char* op) {
  check_rank(cta, op);
  Cluster& c = current_cluster(op);
  const Block& me = *current().block;
  const std::ptrdiff_t offset = reinterpret_cast<const char*>(&p) - me.smem;
  if (offset < 0 || static_cast<std::size_t>(offset) + sizeof(T) > me.smem_bytes)
    throw std::logic_error(std::string(op) + ": the address is not in the block's shared memory");
  return *reinterpret_cast<T*>(c.blocks[cta]->smem + offset);
}
}  // namespace host

namespace cluster {
inline int rank() { return host::current().block->cluster_rank; }
inline int size() { return host::current().block->cluster_ctas; }
inline void sync() {
  host::warp_wide_op();
  if (host::tracing()) {
    host::check_rank(0, "cluster::sync");
    return host::emit(sim::OpKind::block_sync, 1);
  }
  host::Cluster& c = host::current_cluster("cluster::sync");
  host::arrive_and_wait(c.all, c.warps, host::WaitKind::cluster_sync, 0);
}
inline void arrive(barrier& b, int cta) {
  host::require_elected("cluster::arrive");
  if (host::tracing()) {
    host::check_rank(cta, "cluster::arrive");
    return host::emit(sim::OpKind::arrive, host::smem_offset(&b), static_cast<uint32_t>(cta) + 1);
  }
  host::arrive_on(host::in_peer(b, cta, "cluster::arrive"), "cluster::arrive");
}
}  // namespace cluster
}  // namespace ts
