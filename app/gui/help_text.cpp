#include "help_text.h"

#include <QAction>
#include <QCoreApplication>
#include <QMenu>
#include <QMenuBar>

#include "analysis/diff.h"
#include "ops/catalog.h"
#include "ops/problem.h"
#include "qt_text.h"
#include "tensor/dtype.h"

namespace bnscope {

QString help_tr(const char* text) {
  return QCoreApplication::translate("bnscope::Help", text);
}

namespace {

QString plain(QString menu_text) {
  // "&&" is a literal ampersand, a lone '&' the mnemonic's mark.
  menu_text.replace(QStringLiteral("&&"), QStringLiteral("\x01"));
  menu_text.remove(QLatin1Char('&'));
  return menu_text.replace(QLatin1Char('\x01'), QLatin1Char('&'));
}

void collect(const QMenu* menu, const QString& path, QList<MenuShortcut>& out) {
  for (const QAction* a : menu->actions()) {
    if (a->isSeparator()) continue;
    if (const QMenu* sub = a->menu()) {
      collect(sub, path + QStringLiteral(" > ") + plain(sub->title()), out);
      continue;
    }
    if (!a->shortcuts().isEmpty()) out.push_back({path, plain(a->text()), a->shortcuts()});
  }
}

QString keys_text(const QList<QKeySequence>& keys) {
  QStringList parts;
  for (const QKeySequence& k : keys) parts << k.toString(QKeySequence::NativeText);
  return parts.join(help_tr(" or "));
}

QString number(double v) {
  return QString::number(v, 'g', 3);
}

}  // namespace

QString quick_start_html() {
  return help_tr(
      "<h3>Quick start</h3>"
      "<p><b>Open.</b> bnscope starts on the built-in sample. <i>File &gt; Open</i> takes a "
      "problem file (.npz), or inputs into the current problem: a .npz of inputs, or a .npy "
      "named after an input. <i>File &gt; Open capture</i> takes a captured model's folder "
      "(the Layers panel sweeps every layer), <i>Open sample capture</i> shows one; files and "
      "folders can also be dropped on the window.</p>"
      "<p><b>Run.</b> Every change of op, attr, dtype, layout, reserve-space convention or "
      "backend in the Problem panel runs again in the background and updates every view; "
      "<i>Run &gt; Cancel</i> (Esc) stops a run, a profile or a sweep. Numbers are committed on "
      "Enter, on leaving the field or after a pause in typing. The Warnings panel lists every "
      "problem found; a click goes to the input, channel, output or attr it is about.</p>"
      "<p><b>Look.</b> <i>Channels</i>: per-channel table, chart, histograms and heatmap. "
      "<i>Inputs</i>: each input's shape, dtype, range and validation problems. "
      "<i>Tensors</i>: any input or output as a 2-D slice.</p>"
      "<p><b>Diff</b> compares with a reference backend, with saved outputs (a .npz, a .npy "
      "named after an output, or a folder), or with a pinned baseline (<i>Pin "
      "baseline...</i>): a verdict per output, the worst elements, the error per channel.</p>"
      "<p><b>Causes / Apply fix.</b> When outputs disagree, the Diff tab's <i>Causes</i> ranks "
      "the likely causes (epsilon, the reserve-space convention, the layout, a loss scale, "
      "...) with their fitted values; <i>Apply fix</i> makes the change the selected cause "
      "names and compares again.</p>"
      "<p><b>Profile</b> times the problem on the chosen backends: min/median/max per phase, "
      "bytes moved, GB/s against a copy roofline, and a timeline. Its history keeps every "
      "run, across starts of the app; pin one as the baseline to see each later run's "
      "change per phase.</p>"
      "<p><b>Export report.</b> <i>File &gt; Export report</i> writes report.html, "
      "report.json and report.csv (and trace.json when profiled) into a folder, as "
      "<tt>bnscope-cli report</tt> does.</p>"
      "<p>The same engine without a window: <tt>bnscope-cli help</tt>. The shortcuts are in "
      "<i>Help &gt; Keyboard shortcuts</i>.</p>");
}

QList<MenuShortcut> menu_shortcuts(const QMenuBar* bar) {
  QList<MenuShortcut> out;
  if (!bar) return out;
  for (const QAction* a : bar->actions())
    if (const QMenu* menu = a->menu()) collect(menu, plain(menu->title()), out);
  return out;
}

QString shortcuts_html(const QMenuBar* bar) {
  QString rows;
  for (const MenuShortcut& s : menu_shortcuts(bar))
    rows += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td><td>%3</td></tr>")
                .arg(keys_text(s.keys).toHtmlEscaped(), s.menu.toHtmlEscaped(),
                     s.action.toHtmlEscaped());
  QStringList menus;
  if (bar)
    for (const QAction* a : bar->actions())
      if (const QMenu* menu = a->menu()) {
        const QKeySequence k = QKeySequence::mnemonic(menu->title());
        if (!k.isEmpty())
          menus << QStringLiteral("<b>%1</b> %2")
                       .arg(k.toString(QKeySequence::NativeText),
                            plain(menu->title()).toHtmlEscaped());
      }
  return help_tr(
             "<h3>Keyboard shortcuts</h3>"
             "<table cellspacing=\"0\" cellpadding=\"4\">"
             "<tr><th align=\"left\">Keys</th><th align=\"left\">Menu</th>"
             "<th align=\"left\">Action</th></tr>%1</table>"
             "<p>Menus: %2; then the underlined letter of an entry.</p>"
             "<p>In the tabs and panels the underlined letters of labels move to their field "
             "with Alt.</p>")
      .arg(rows, menus.join(QStringLiteral(", ")));
}

QString conventions_html() {
  const QString variance = qs(convention_name(ReserveConvention::Variance));
  const QString inv_std = qs(convention_name(ReserveConvention::InvStd));
  QString rows;
  for (DType t : kAllDTypes) {
    const Tolerance c = default_tolerance(t, ToleranceSet::Compare);
    const Tolerance s = default_tolerance(t, ToleranceSet::Selftest);
    // numpy's name, and TensorFlow's where it differs.
    QString name = qs(dtype_name(t));
    if (qs(tf_dtype_name(t)) != name) name += QStringLiteral(" (%1)").arg(qs(tf_dtype_name(t)));
    rows += QStringLiteral(
                "<tr><td>%1</td><td align=\"right\">%2</td><td align=\"right\">%3</td>"
                "<td align=\"right\">%4</td><td align=\"right\">%5</td></tr>")
                .arg(name, number(c.atol), number(c.rtol), number(s.atol), number(s.rtol));
  }
  const bool nan_equal = DiffOptions{}.nan_equal;
  return help_tr(
             "<h3>Conventions</h3>"
             "<p><b>reserve_space_2.</b> In %1 mode the fused gradient ops read the batch mean "
             "in reserve_space_1 and, in reserve_space_2, either the batch variance "
             "(<tt>%2</tt>, as TensorFlow's CPU kernels save it) or 1/sqrt(variance + epsilon) "
             "(<tt>%3</tt>, as cuDNN does). The Problem panel's <i>Reserve convention</i> says "
             "which the data holds; the Warnings panel says when the values look like the other "
             "one or do not match x's statistics. In %4 mode reserve_space_2 is the population "
             "variance on every device and the convention does not apply.</p>"
             "<p><b>Layouts.</b> <tt>data_format</tt> NHWC is channels last (TensorFlow's "
             "default), NCHW channels first; tensors are shown as stored. On a change of "
             "data_format, <i>convert the data on a layout change</i> transposes the loaded "
             "tensors; unchecked they are read as already in the new layout.</p>"
             "<p><b>Modes.</b> <tt>is_training</tt>=true is the <tt>%1</tt> mode: gradients "
             "through the batch's own statistics. false is <tt>%4</tt>: the moving statistics "
             "are constants. Combinations TensorFlow's raw op rejects but that are still defined "
             "(%4 with NCHW) are computed with the note \"TensorFlow would reject this\".</p>"
             "<p><b>Tolerances.</b> An element agrees when |candidate &minus; reference| &le; "
             "atol + rtol &middot; |reference|; %5 The Diff tab starts from the dtype's "
             "defaults below (TensorFlow's test tolerances) and takes others per output; the "
             "GPU selftest uses its own column.</p>"
             "<table cellspacing=\"0\" cellpadding=\"4\">"
             "<tr><th align=\"left\">dtype</th><th>atol</th><th>rtol</th>"
             "<th>selftest atol</th><th>selftest rtol</th></tr>%6</table>")
      .arg(qs(kTrainingMode), variance, inv_std, qs(kInferenceMode),
           nan_equal ? help_tr("NaN on both sides agrees, a NaN facing a number does not.")
                     : help_tr("a NaN never agrees."),
           rows);
}

}  // namespace bnscope
