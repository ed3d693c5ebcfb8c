#include "timeline_widget.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "chart_theme.h"

namespace bnscope {

namespace {
// The ruler, lanes and text in the window's palette; the events keep their own colours.
struct Colours {
  ImU32 text, grid, ruler_bg, lane_bg[2], hover;
};
constexpr Colours kLight{IM_COL32(30, 30, 35, 255),
                         IM_COL32(0, 0, 0, 40),
                         IM_COL32(235, 235, 240, 255),
                         {IM_COL32(250, 250, 252, 255), IM_COL32(242, 243, 247, 255)},
                         IM_COL32(20, 20, 20, 255)};
constexpr Colours kDark{IM_COL32(220, 220, 226, 255),
                        IM_COL32(255, 255, 255, 45),
                        IM_COL32(48, 49, 54, 255),
                        {IM_COL32(34, 35, 39, 255), IM_COL32(41, 42, 47, 255)},
                        IM_COL32(245, 245, 245, 255)};
}  // namespace

TimelineWidget::TimelineWidget(QWidget* parent) : ImGuiWidget(parent) {
  setMinimumHeight(120);
}

void TimelineWidget::setEvents(const EventStore& events, std::vector<PhaseInfo> phases,
                               std::vector<PhaseBytes> bytes) {
  layout_.setEvents(events, std::move(phases), std::move(bytes));
  hovered_lane_ = -1;
  update();
}

void TimelineWidget::buildFrame() {
  const Colours& k = palette_is_dark(this) ? kDark : kLight;
  ImGuiIO& io = ImGui::GetIO();
  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(io.DisplaySize);
  ImGui::PushStyleVar(ImGuiStyleVar_WindowRounding, 0);
  ImGui::PushStyleVar(ImGuiStyleVar_WindowBorderSize, 0);
  ImGui::Begin("##timeline", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoScrollWithMouse |
                   ImGuiWindowFlags_NoBringToFrontOnFocus);
  ImGui::PopStyleVar(2);
  boxes_drawn_ = 0;
  hovered_lane_ = -1;
  if (layout_.lanes().empty()) {
    ImGui::TextUnformatted("No events yet: profile a backend to fill the timeline.");
    ImGui::End();
    return;
  }

  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float x0 = kLabelWidth, x1 = std::max(x0 + 10, io.DisplaySize.x - 6);
  const float y0 = kRulerHeight;
  const float y1 = y0 + kLaneHeight * static_cast<float>(layout_.lanes().size());
  const ImVec2 mouse = io.MousePos;
  const bool in_area = ImGui::IsWindowHovered() && mouse.x >= x0 && mouse.x <= x1 && mouse.y >= 0 &&
                       mouse.y <= io.DisplaySize.y;
  auto seconds_per_px = [&] { return layout_.viewSpan() / (x1 - x0); };
  auto time_at = [&](float x) { return layout_.viewStart() + (x - x0) * seconds_per_px(); };

  // Input first, so the frame shows its effect.
  if (in_area && io.MouseWheel != 0)
    layout_.zoomAround(time_at(mouse.x), std::pow(1.25, static_cast<double>(io.MouseWheel)));
  if (in_area && ImGui::IsMouseClicked(ImGuiMouseButton_Left)) dragging_ = true;
  if (!io.MouseDown[ImGuiMouseButton_Left]) dragging_ = false;
  if (dragging_ && io.MouseDelta.x != 0) layout_.panBy(-io.MouseDelta.x * seconds_per_px());
  if (in_area && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) layout_.fit();

  const double t0 = layout_.viewStart(), t1 = layout_.viewEnd();
  auto x_of = [&](double t) { return static_cast<float>(x0 + (t - t0) / seconds_per_px()); };

  // Ruler.
  dl->AddRectFilled(ImVec2(0, 0), ImVec2(io.DisplaySize.x, y0), k.ruler_bg);
  double step = 0;
  const int max_ticks = std::max(2, static_cast<int>((x1 - x0) / 110));
  for (double t : ruler_ticks(t0, t1, max_ticks, &step)) {
    const float x = x_of(t);
    dl->AddLine(ImVec2(x, y0 - 6), ImVec2(x, y1), k.grid);
    const std::string label = time_text(t - layout_.begin(), step);
    if (x + 3 + ImGui::CalcTextSize(label.c_str()).x <= io.DisplaySize.x)
      dl->AddText(ImVec2(x + 3, 5), k.text, label.c_str());
  }
  dl->AddText(ImVec2(6, 5), k.text, time_text(t1 - t0).append(" shown").c_str());

  // Lanes.
  const double slack = 3 * seconds_per_px();
  for (std::size_t i = 0; i < layout_.lanes().size(); ++i) {
    const TimelineLane& lane = layout_.lanes()[i];
    const float top = y0 + kLaneHeight * static_cast<float>(i);
    const float bottom = top + kLaneHeight;
    dl->AddRectFilled(ImVec2(0, top), ImVec2(io.DisplaySize.x, bottom), k.lane_bg[i % 2]);
    dl->AddText(ImVec2(6, top + 7), k.text, lane.label.c_str());
    dl->PushClipRect(ImVec2(x0, top), ImVec2(x1, bottom), true);
    const auto [first, last] = layout_.visible(i, t0, t1);
    float drawn_to = -1e30f;  // boxes inside an already drawn pixel only widen it
    for (std::size_t j = first; j < last; ++j) {
      const TraceEvent& e = lane.events[j];
      float a = x_of(e.start), b = std::max(x_of(e.start + e.duration), a + 1.0f);
      if (b <= drawn_to + 1.0f) continue;
      // Whether a box is labelled follows from its own width, before it is trimmed to where the
      // previous box ended: boxes of one phase and duration are all labelled or none is.
      const float own = b - a;
      a = std::max(a, drawn_to);
      const std::string& name = layout_.store().name(e.name);
      dl->AddRectFilled(ImVec2(a, top + 4), ImVec2(b, bottom - 4), layout_.colour(name), 2.0f);
      const ImVec2 text = ImGui::CalcTextSize(name.c_str());
      if (own > text.x + 8) {
        dl->PushClipRect(ImVec2(a, top), ImVec2(b, bottom), true);
        dl->AddText(ImVec2(a + 4, top + (kLaneHeight - text.y) / 2), IM_COL32_WHITE, name.c_str());
        dl->PopClipRect();
      }
      drawn_to = b;
      ++boxes_drawn_;
    }
    if (in_area && !dragging_ && mouse.y >= top && mouse.y < bottom) {
      if (const TraceEvent* e = layout_.eventAt(i, time_at(mouse.x), slack)) {
        hovered_lane_ = static_cast<int>(i);
        hovered_event_ = *e;
        dl->AddRect(ImVec2(x_of(e->start), top + 3),
                    ImVec2(std::max(x_of(e->start + e->duration), x_of(e->start) + 1), bottom - 3),
                    k.hover, 2.0f, 0, 2.0f);
      }
    }
    dl->PopClipRect();
  }
  dl->AddLine(ImVec2(x0, 0), ImVec2(x0, y1), k.grid);

  if (hovered_lane_ >= 0) {
    const TraceEvent& e = hovered_event_;
    ImGui::BeginTooltip();
    const std::vector<std::string> lines =
        layout_.describe(e, static_cast<std::size_t>(hovered_lane_));
    const std::string& name = layout_.store().name(e.name);
    const PhaseInfo* info = layout_.phase(name);
    for (std::size_t i = 0; i < lines.size(); ++i) {
      // The phase's description, when there is one, is the second line: dimmed.
      if (i == 1 && info && !info->description.empty())
        ImGui::TextDisabled("%s", lines[i].c_str());
      else
        ImGui::Text("%s", lines[i].c_str());
    }
    ImGui::EndTooltip();
  }
  ImGui::SetCursorScreenPos(ImVec2(6, y1 + 6));
  ImGui::TextDisabled("wheel: zoom   drag: pan   double-click: fit   %zu events",
                      layout_.eventCount());
  ImGui::End();
}

}  // namespace bnscope
