#pragma once
// The host backend (g++): every tile op computes its result on the CPU, warps run as fibers.
// tiles/tiles.hpp includes this where the device backend (tiles/backend/device/) is not used;
// mbarrier and TMA ops come in through tiles/sync/mbarrier.hpp and tiles/tma/tma.hpp as on the
// device. The launcher is separate: tiles/backend/host/launch.hpp.
#include "tiles/backend/host/core.hpp"
#include "tiles/backend/host/mbarrier.hpp"
#include "tiles/backend/host/register_ops.hpp"
#include "tiles/backend/host/tma.hpp"
#include "tiles/backend/host/wgmma.hpp"
