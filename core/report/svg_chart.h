#pragma once
// Inline SVG charts for the HTML report: plain markup, no scripts, no external resources.

#include <ostream>
#include <string>
#include <vector>

namespace bnscope {

struct BarSeries {
  std::vector<double> values;
  std::vector<std::string> labels;  // under the bars; empty for none (many bars)
  std::vector<bool> highlight;      // drawn in the alert colour; may be empty
  bool log_scale = false;
  double reference = 0;  // horizontal line (e.g. a tolerance) when > 0
  std::string reference_label;
  std::string y_label;
  std::string x_label;
};

// Vertical bars, one per value.
void svg_bar_chart(std::ostream& os, const BarSeries& s, int width = 1000, int height = 240);

struct HBar {
  std::string label;
  double value = 0;
  double limit = 0;  // a marker at this value when > 0 (roofline)
};

// Horizontal bars with an optional limit marker each.
void svg_hbar_chart(std::ostream& os, const std::vector<HBar>& bars, const std::string& unit,
                    int width = 1000);

std::string html_escape(const std::string& s);
std::string format_si(double v, int digits = 3);  // 1.23e-05 style for tiny, plain otherwise

}  // namespace bnscope
