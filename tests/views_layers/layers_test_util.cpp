#include "layers_test_util.h"

#include <QDir>
#include <QFile>
#include <stdexcept>

namespace bnscope::test {

QString sample_capture() {
  return QStringLiteral(BNSCOPE_SOURCE_DIR "/resources/captures/sample");
}

QString copy_sample_capture(const QString& dir) {
  const QDir from(sample_capture());
  for (const QString& name : from.entryList(QDir::Files))
    if (!QFile::copy(from.filePath(name), QDir(dir).filePath(name)))
      throw std::runtime_error("cannot copy " + name.toStdString());
  return dir;
}

void corrupt_file(const QString& dir, const QString& file) {
  QFile f(QDir(dir).filePath(file));
  if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write("not a zip archive") < 0)
    throw std::runtime_error("cannot write " + file.toStdString());
}

}  // namespace bnscope::test
