#include "report/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace bnscope {

namespace {

constexpr const char* kBar = "#4a7ab5";
constexpr const char* kAlert = "#c8453b";
constexpr const char* kRef = "#d08a1c";

std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", v);
  return b;
}

}  // namespace

std::string html_escape(const std::string& s) {
  std::string o;
  o.reserve(s.size());
  for (char c : s) switch (c) {
      case '<':
        o += "&lt;";
        break;
      case '>':
        o += "&gt;";
        break;
      case '&':
        o += "&amp;";
        break;
      case '"':
        o += "&quot;";
        break;
      default:
        o += c;
    }
  return o;
}

std::string format_si(double v, int digits) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char b[40];
  const double a = std::fabs(v);
  if (a != 0 && (a < 1e-3 || a >= 1e7))
    std::snprintf(b, sizeof b, "%.*e", digits - 1, v);
  else if (a >= 1000)
    std::snprintf(b, sizeof b, "%.0f", v);
  else
    std::snprintf(b, sizeof b, "%.*g", digits + 1, v);
  return b;
}

void svg_bar_chart(std::ostream& os, const BarSeries& s, int width, int height) {
  const double left = 70, right = s.reference > 0 ? 110 : 20, top = 16;
  const double bottom = s.labels.empty() ? 36 : 54;
  const double pw = width - left - right, ph = height - top - bottom;
  const std::size_t n = s.values.size();
  double lo = INFINITY, hi = 0;
  for (double v : s.values)
    if (std::isfinite(v) && v > 0) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  if (s.reference > 0) {
    lo = std::min(lo, s.reference);
    hi = std::max(hi, s.reference);
  }
  if (!(hi > 0)) hi = 1;
  if (!(lo < INFINITY)) lo = hi / 10;
  // Linear axes end on a round step (1, 2 or 5 times a power of ten), four or five ticks.
  double step = std::pow(10.0, std::floor(std::log10(hi / 4)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (hi / (step * m) <= 5) {
      step *= m;
      break;
    }
  const double top_value = std::ceil(hi / step) * step;
  double lo_exp = std::floor(std::log10(lo)), hi_exp = std::ceil(std::log10(hi));
  if (hi_exp <= lo_exp) hi_exp = lo_exp + 1;
  auto y_of = [&](double v) {
    if (!std::isfinite(v)) return top;  // infinite error: full height
    if (s.log_scale) {
      if (v <= 0) return top + ph;
      const double f = (std::log10(v) - lo_exp) / (hi_exp - lo_exp);
      return top + ph * (1 - std::clamp(f, 0.0, 1.0));
    }
    return top + ph * (1 - std::clamp(v / top_value, 0.0, 1.0));
  };
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"" << width
     << "\" height=\"" << height << "\" viewBox=\"0 0 " << width << ' ' << height << "\">\n";
  // Axis ticks and grid lines.
  std::vector<double> ticks;
  if (s.log_scale)
    for (double e = lo_exp; e <= hi_exp; ++e) ticks.push_back(std::pow(10.0, e));
  else
    for (double t = 0; t <= top_value * (1 + 1e-9); t += step) ticks.push_back(t);
  for (double t : ticks) {
    const double y = y_of(t);
    os << "<line x1=\"" << left << "\" x2=\"" << left + pw << "\" y1=\"" << num(y) << "\" y2=\""
       << num(y) << "\" stroke=\"#e3e3e3\"/>\n";
    os << "<text x=\"" << left - 6 << "\" y=\"" << num(y + 4)
       << "\" text-anchor=\"end\" class=\"tick\">" << html_escape(format_si(t, 2)) << "</text>\n";
  }
  const double bw = n ? pw / static_cast<double>(n) : pw;
  const double gap = bw > 4 ? std::min(bw * 0.15, 3.0) : 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double v = s.values[i];
    const double y = y_of(v);
    const bool alert = i < s.highlight.size() && s.highlight[i];
    os << "<rect x=\"" << num(left + bw * static_cast<double>(i) + gap / 2) << "\" y=\"" << num(y)
       << "\" width=\"" << num(std::max(bw - gap, 0.6)) << "\" height=\""
       << num(std::max(top + ph - y, 0.0)) << "\" fill=\"" << (alert ? kAlert : kBar)
       << "\"><title>" << i << (i < s.labels.size() ? " " + html_escape(s.labels[i]) : "") << ": "
       << html_escape(format_si(v)) << "</title></rect>\n";
    if (i < s.labels.size())
      os << "<text x=\"" << num(left + bw * (static_cast<double>(i) + 0.5)) << "\" y=\""
         << num(top + ph + 14) << "\" text-anchor=\"middle\" class=\"tick\">"
         << html_escape(s.labels[i]) << "</text>\n";
  }
  if (s.reference > 0) {
    const double y = y_of(s.reference);
    os << "<line x1=\"" << left << "\" x2=\"" << left + pw << "\" y1=\"" << num(y) << "\" y2=\""
       << num(y) << "\" stroke=\"" << kRef
       << "\" stroke-width=\"1.5\" stroke-dasharray=\"6 3\"/>\n";
    // Beside the plot, where no bar can hide it.
    os << "<text x=\"" << left + pw + 4 << "\" y=\"" << num(y + 4) << "\" class=\"ref\">"
       << html_escape(s.reference_label) << "</text>\n";
  }
  os << "<line x1=\"" << left << "\" x2=\"" << left << "\" y1=\"" << top << "\" y2=\"" << top + ph
     << "\" stroke=\"#888\"/>\n";
  os << "<line x1=\"" << left << "\" x2=\"" << left + pw << "\" y1=\"" << top + ph << "\" y2=\""
     << top + ph << "\" stroke=\"#888\"/>\n";
  os << "<text x=\"14\" y=\"" << num(top + ph / 2) << "\" transform=\"rotate(-90 14 "
     << num(top + ph / 2) << ")\" text-anchor=\"middle\" class=\"axis\">" << html_escape(s.y_label)
     << "</text>\n";
  os << "<text x=\"" << num(left + pw / 2) << "\" y=\"" << height - 6
     << "\" text-anchor=\"middle\" class=\"axis\">" << html_escape(s.x_label) << "</text>\n";
  os << "</svg>\n";
}

void svg_hbar_chart(std::ostream& os, const std::vector<HBar>& bars, const std::string& unit,
                    int width) {
  const double left = 330, right = 90, row = 26, top = 10;
  const double pw = width - left - right;
  const int height = static_cast<int>(top * 2 + row * static_cast<double>(bars.size()) + 24);
  double hi = 0;
  for (const HBar& b : bars) hi = std::max({hi, b.value, b.limit});
  if (!(hi > 0)) hi = 1;
  hi *= 1.05;
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"" << width
     << "\" height=\"" << height << "\" viewBox=\"0 0 " << width << ' ' << height << "\">\n";
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const HBar& b = bars[i];
    const double y = top + row * static_cast<double>(i);
    const double w = pw * std::clamp(b.value / hi, 0.0, 1.0);
    os << "<text x=\"" << left - 8 << "\" y=\"" << num(y + 16)
       << "\" text-anchor=\"end\" class=\"tick\">" << html_escape(b.label) << "</text>\n";
    os << "<rect x=\"" << left << "\" y=\"" << num(y + 4) << "\" width=\"" << num(w)
       << "\" height=\"" << row - 8 << "\" fill=\"" << kBar << "\"><title>"
       << html_escape(format_si(b.value) + " " + unit) << "</title></rect>\n";
    os << "<text x=\"" << num(left + w + 6) << "\" y=\"" << num(y + 16) << "\" class=\"tick\">"
       << html_escape(format_si(b.value) + " " + unit) << "</text>\n";
    if (b.limit > 0) {
      const double x = left + pw * std::clamp(b.limit / hi, 0.0, 1.0);
      os << "<line x1=\"" << num(x) << "\" x2=\"" << num(x) << "\" y1=\"" << num(y + 1)
         << "\" y2=\"" << num(y + row - 1) << "\" stroke=\"" << kRef
         << "\" stroke-width=\"3\"><title>roofline " << html_escape(format_si(b.limit) + " " + unit)
         << "</title></line>\n";
    }
  }
  const double ay = top + row * static_cast<double>(bars.size()) + 4;
  os << "<line x1=\"" << left << "\" x2=\"" << left + pw << "\" y1=\"" << num(ay) << "\" y2=\""
     << num(ay) << "\" stroke=\"#888\"/>\n";
  for (int i = 0; i <= 4; ++i) {
    const double x = left + pw * i / 4;
    os << "<text x=\"" << num(x) << "\" y=\"" << num(ay + 14)
       << "\" text-anchor=\"middle\" class=\"tick\">" << html_escape(format_si(hi * i / 4, 2))
       << "</text>\n";
  }
  os << "</svg>\n";
}

}  // namespace bnscope
