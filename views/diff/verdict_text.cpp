#include "diff/verdict_text.h"

#include <QObject>
#include <QStringList>

#include "analysis/outcome.h"

namespace bnscope {

namespace {

QString good_colour(bool dark) {
  return dark ? QStringLiteral("#5fd35f") : QStringLiteral("#070");
}

QString bad_colour(bool dark) {
  return dark ? QStringLiteral("#ff6b6b") : QStringLiteral("#b00");
}

QString html(const std::string& s) {
  return QString::fromStdString(s).toHtmlEscaped();
}

}  // namespace

QString verdict_text(const DiffOutcome& out, bool dark) {
  int compared = 0, failed = 0;
  QStringList bad, notes;
  for (const Comparison& c : out.report().comparisons) {
    for (const OutputDiff& o : c.outputs) {
      compared += o.compared;
      if (o.passed) continue;
      ++failed;
      // Why, when the diff knows (a shape that differs, a missing output): not only in a tooltip.
      bad << QString::fromStdString(o.name + " (" + c.candidate +
                                    (o.note.empty() ? "" : ": " + o.note) + ")");
    }
    for (const std::string& n : c.notes) notes << html(n);
  }
  const QString reference = html(out.result->reference);
  QString text =
      failed == 0
          ? QObject::tr(
                "<b style='color:%2'>PASS</b>: every output agrees with %1 within "
                "tolerance.")
                .arg(reference, good_colour(dark))
          : QObject::tr("<b style='color:%6'>FAIL</b>: %1 of %2 outputs disagree with %3: %4.%5")
                .arg(failed)
                .arg(compared)
                .arg(reference, bad.join(QStringLiteral(", ")).toHtmlEscaped(),
                     out.causes().empty() ? QString()
                     : out.causes().front().pattern_only
                         ? QObject::tr(" No known cause fits: %1.")
                               .arg(html(out.causes().front().suggestion))
                         : QObject::tr(" Likely cause: %1.").arg(html(out.causes().front().title)),
                     bad_colour(dark));
  if (!notes.isEmpty()) text += QStringLiteral("<br>") + notes.join(QStringLiteral("<br>"));
  return text;
}

QString cannot_compare_text(const DiffOutcome& out, bool dark) {
  return QObject::tr("<b style='color:%2'>Cannot compare:</b> %1")
      .arg(QString::fromStdString(out.error).toHtmlEscaped(), bad_colour(dark));
}

}  // namespace bnscope
