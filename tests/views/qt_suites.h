#pragma once
// Several QtTest classes in one executable: each test file registers its class, and one main
// (qt_suites_main.cpp) runs them in turn, so a long test file can be split by subject without
// an executable (and a link) per file.

#include <QObject>
#include <functional>
#include <memory>
#include <vector>

namespace bnscope::test {

using SuiteFactory = std::function<std::unique_ptr<QObject>()>;

// Every registered suite, in the order the files registered them.
std::vector<SuiteFactory>& qt_suites();

inline bool add_qt_suite(SuiteFactory make) {
  qt_suites().push_back(std::move(make));
  return true;
}

}  // namespace bnscope::test

#define BNSCOPE_QT_SUITE(Class)                          \
  [[maybe_unused]] static const bool Class##Registered = \
      ::bnscope::test::add_qt_suite([] { return std::unique_ptr<QObject>(new Class); })
