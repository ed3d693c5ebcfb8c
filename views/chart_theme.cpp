#include "chart_theme.h"

#include <QWidget>
#include <QtCharts/QChart>

namespace bnscope {

bool palette_is_dark(const QWidget* w) {
  return w->palette().color(QPalette::Window).lightness() < 128;
}

bool apply_chart_theme(QChart* chart, const QWidget* w) {
  static const char* const kThemed = "bnscopeThemed";
  const QChart::ChartTheme want =
      palette_is_dark(w) ? QChart::ChartThemeDark : QChart::ChartThemeLight;
  if (chart->property(kThemed).toBool() && chart->theme() == want) return false;
  chart->setTheme(want);
  chart->setProperty(kThemed, true);
  return true;
}

}  // namespace bnscope
