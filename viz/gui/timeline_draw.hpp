#pragma once
// A per-warp timeline as the pipeline scene and the timeline view draw it: the rows of a
// PipelineModel over a window of cycles (each warp's ops, each sub-partition's tensor core busy and
// idle, each stage loading or held), a time axis in cycles and microseconds, a legend of the op
// kinds drawn, and a measured timeline above a simulated one with zoom, pan, "one iteration" and
// the block (SM) picker. Drawing and input only: rows, iterations and windows come from viz/lesson.
#include <string>
#include <string_view>
#include <vector>

#include "viz/gui/common.hpp"
#include "viz/lesson/pipeline_model.hpp"
#include "viz/lesson/timeline_view.hpp"

namespace ts::viz {

struct TimelineStyle {
  const Fonts& fonts;
  ImDrawList* dl;
  const std::vector<std::string>& highlights;
  float header = 50;  // room above a panel's rows (its title, the waits column's heading)
  bool lit(std::string_view name) const { return has(highlights, name); }
};

// The colour of an op kind; the producer's mbarrier waits (for a free stage) have their own.
ImU32 kind_colour(sim::OpKind k, bool producer = false);

// One timeline in `area`: cycles [t0, t1] across, `origin` the cycle its axis calls 0, `clock_mhz`
// turning cycles into microseconds; `right` pixels at the right are left free (a table beside it).
// With `legend`, the op kinds drawn, with their colours, and what red means, at the bottom; with
// `mma_under`, a warp's wgmma groups under its own ops instead of over them. Returns the plot's
// rectangle (where the mouse zooms and pans).
Rect draw_timeline_panel(const PipelineModel& m, const TimelineStyle& st, Rect area, float right, double t0, double t1,
                         double origin, double clock_mhz, bool legend, bool mma_under = false);

// Where the user looks in a measured-above-simulated pair, kept by the caller between frames (a
// view's state, as a scroll position is: not a model).
struct TimelineZoom {
  std::string key;          // what it was set up for: another key starts over
  double from = 0, to = 1;  // the first window, as shares of the longer run
  TimeWindow window;        // cycles from the measured block's start; empty until the first frame sets it
  double sim_offset = 0;    // the simulated panel shows window + sim_offset (cycles from its own start)
  uint32_t block = 0;       // the recorded block shown (the SM picker)
  uint32_t warp = ~0u;      // whose iteration "one iteration" zooms to (~0u: the first consumer warp)
  bool iteration = false;   // zoom to one iteration once both timelines are there
  std::string note;         // what the last zoom to one iteration found
};

struct TimelinePair {
  const PipelineModel* measured = nullptr;   // the picked block's rows, from cycle `measured->first`
  double measured_clock = 0;
  std::string measured_title;
  const PipelineModel* simulated = nullptr;  // nullptr: `simulated_note` says why
  double simulated_clock = 0;
  std::string simulated_title, simulated_note;
  bool simulated_pending = false;            // still simulating: a pending zoom to one iteration waits for it
  std::vector<RecordedBlock> blocks;         // the picker's choices
};

// The controls (block, warp, "one iteration", "whole run"), then the measured timeline above the
// simulated one at one scale, in `area` less `right` pixels; input changes `z`.
void draw_timeline_pair(const TimelinePair& p, TimelineZoom& z, const TimelineStyle& st, Rect area, float right);

}  // namespace ts::viz
