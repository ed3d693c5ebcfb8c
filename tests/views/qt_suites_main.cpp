// The main of a QtTest executable made of several suites. Test functions named on the command
// line go to the suites that have them; a suite with none of them is skipped, so
// `test_views_controller latestEditWins` runs that one function as with a single-class test.
#include <QApplication>
#include <QtTest>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "qt_suites.h"

namespace {

// QtTest options that take the next argument as their value.
bool takes_value(const std::string& option) {
  static const std::set<std::string> kWithValue = {
      "-o", "-maxwarnings", "-eventdelay", "-keydelay", "-mousedelay", "-repeat", "-seed"};
  return kWithValue.count(option) > 0;
}

bool has_function(const QObject& suite, const std::string& name) {
  const std::string function = name.substr(0, name.find(':'));  // "fn:data tag"
  const QMetaObject* meta = suite.metaObject();
  for (int i = meta->methodOffset(); i < meta->methodCount(); ++i)
    if (meta->method(i).name().toStdString() == function) return true;
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  app.setAttribute(Qt::AA_Use96Dpi, true);
  std::vector<std::string> options, functions;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind('-', 0) == 0) {
      options.push_back(arg);
      if (takes_value(arg) && i + 1 < argc) options.push_back(argv[++i]);
    } else {
      functions.push_back(arg);
    }
  }
  int failed = 0;
  bool ran = false;
  for (const bnscope::test::SuiteFactory& make : bnscope::test::qt_suites()) {
    const std::unique_ptr<QObject> suite = make();
    std::vector<std::string> args = {argv[0]};
    args.insert(args.end(), options.begin(), options.end());
    for (const std::string& f : functions)
      if (has_function(*suite, f)) args.push_back(f);
    if (!functions.empty() && args.size() == options.size() + 1) continue;
    ran = true;
    std::vector<char*> raw;
    for (std::string& a : args) raw.push_back(a.data());
    failed |= QTest::qExec(suite.get(), static_cast<int>(raw.size()), raw.data());
  }
  if (!ran) {
    std::fprintf(stderr, "%s: no suite has the test functions named\n", argv[0]);
    return 1;
  }
  return failed;
}

std::vector<bnscope::test::SuiteFactory>& bnscope::test::qt_suites() {
  static std::vector<SuiteFactory> suites;
  return suites;
}
