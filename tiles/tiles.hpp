#pragma once
// The TileScope tile DSL: include this one header in a kernel body. The device backend is used
// under nvcc, the host backend (CPU fibers, functional and trace modes) under a host compiler.
#include "tiles/layout/fragments.hpp"
#include "tiles/layout/swizzle.hpp"
#include "tiles/sched/block_order.hpp"
#include "tiles/sched/divisor.hpp"
#include "tiles/sync/mbarrier.hpp"
#include "tiles/tma/tma.hpp"
#include "tiles/types/dtypes.hpp"
#include "tiles/types/global.hpp"
#include "tiles/types/register.hpp"
#include "tiles/types/shared.hpp"
#include "tiles/types/vector.hpp"

#if defined(__CUDACC__)
#include "tiles/backend/device/core.cuh"
#include "tiles/backend/device/register_ops.cuh"
#include "tiles/backend/device/wgmma.cuh"
#define TS_KERNEL_FN __device__ inline
#else
#include "tiles/backend/host/backend.hpp"
#define TS_KERNEL_FN inline
#endif

// Ops declared once for both backends (each includes its backend's implementation).
#include "tiles/ops/copy.hpp"
#include "tiles/ops/elementwise.hpp"
#include "tiles/ops/rowcol.hpp"
#include "tiles/ops/warp.hpp"
