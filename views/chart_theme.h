#pragma once
// Charts follow the window's palette: Qt Charts draws its light theme on a dark window
// otherwise (white plot areas, black labels on the dark theme's background).

class QChart;
class QWidget;

namespace bnscope {

// Whether w's palette is a dark one (its window colour darker than mid-grey).
bool palette_is_dark(const QWidget* w);

// Gives chart the theme w's palette asks for, when it has not got it yet: setTheme redoes every
// item of a chart (colours of series and sets included), so callers set their own colours again
// when this returns true.
bool apply_chart_theme(QChart* chart, const QWidget* w);

}  // namespace bnscope
