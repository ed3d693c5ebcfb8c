#pragma once
// The kernel timeline, Tracy-style: one lane per backend and track, events as boxes coloured by
// phase, a time ruler, zoom with the wheel around the cursor, pan by dragging, double-click to
// fit, and a tooltip with name, start and duration. Only events in the visible range are drawn,
// and boxes narrower than a pixel are merged, so tens of thousands of events stay smooth.

#include "profile/event_store.h"
#include "timeline/imgui_widget.h"
#include "timeline/timeline_layout.h"

namespace bnscope {

class TimelineWidget : public ImGuiWidget {
  Q_OBJECT
 public:
  explicit TimelineWidget(QWidget* parent = nullptr);
  // phases: TimelineLayout::setEvents.
  void setEvents(const EventStore& events, std::vector<PhaseInfo> phases = {},
                 std::vector<PhaseBytes> bytes = {});
  const TimelineLayout& layout() const { return layout_; }
  TimelineLayout& layout() { return layout_; }
  // Of the last frame: boxes drawn, and the event under the mouse (-1 lane when none).
  int boxesDrawn() const { return boxes_drawn_; }
  int hoveredLane() const { return hovered_lane_; }
  const TraceEvent& hoveredEvent() const { return hovered_event_; }
  // Where the lanes start, in widget pixels (left of it: lane labels; above: the ruler).
  static constexpr float kLabelWidth = 170;
  static constexpr float kRulerHeight = 26;
  static constexpr float kLaneHeight = 28;
  QSize sizeHint() const override { return {800, 220}; }

 protected:
  void buildFrame() override;

 private:
  TimelineLayout layout_;
  bool dragging_ = false;
  int boxes_drawn_ = 0;
  int hovered_lane_ = -1;
  TraceEvent hovered_event_;
};

}  // namespace bnscope
