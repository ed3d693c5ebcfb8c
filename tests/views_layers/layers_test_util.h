#pragma once
// Shared by the Layers view tests: the sample capture and broken copies of it.

#include <QString>

namespace bnscope::test {

// resources/captures/sample in the source tree.
QString sample_capture();

// Copies the sample capture into dir (which must exist); returns dir.
QString copy_sample_capture(const QString& dir);

// Overwrites file (a name inside dir) with bytes that are no .npz.
void corrupt_file(const QString& dir, const QString& file);

}  // namespace bnscope::test
