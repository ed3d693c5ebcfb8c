#include "ipc/child_process.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "ipc/json_channel.h"

namespace bnscope::ipc {
namespace {

using std::chrono::milliseconds;
constexpr milliseconds kLimit{5000};

ChildSpec test_child(std::vector<std::string> extra = {}) {
  ChildSpec s;
  s.argv = {IPC_TEST_CHILD};
  for (auto& a : extra) s.argv.push_back(a);
  s.what = "test child";
  return s;
}

std::string ask(ChildProcess& c, const std::string& m) {
  c.send(m, kLimit);
  return c.receive(kLimit);
}

ChildFailure failure_of(const std::function<void()>& f, std::string* message = nullptr) {
  try {
    f();
  } catch (const ChildError& e) {
    if (message) *message = e.what();
    return e.failure();
  }
  ADD_FAILURE() << "no ChildError";
  return ChildFailure::BadMessage;
}

TEST(ChildProcess, AnswersInOrder) {
  ChildProcess c;
  c.start(test_child());
  EXPECT_TRUE(c.running());
  for (int i = 0; i < 50; ++i)
    EXPECT_EQ(ask(c, "hello " + std::to_string(i)), "hello " + std::to_string(i));
  EXPECT_EQ(ask(c, ""), "");
}

TEST(ChildProcess, CarriesMessagesLargerThanAPipe) {
  ChildProcess c;
  c.start(test_child());
  std::string big(3 << 20, 'x');
  for (std::size_t i = 0; i < big.size(); i += 4093) big[i] = static_cast<char>('a' + i % 26);
  EXPECT_EQ(ask(c, big), big);
}

TEST(ChildProcess, SetsTheEnvironmentItIsGiven) {
  ChildProcess c;
  ChildSpec s = test_child();
  s.env = {{"BNSCOPE_TEST_VALUE", "one=two"}, {"PATH", "/nowhere"}};
  c.start(s);
  EXPECT_EQ(ask(c, "env BNSCOPE_TEST_VALUE"), "one=two");
  EXPECT_EQ(ask(c, "env PATH"), "/nowhere");
  EXPECT_EQ(ask(c, "env BNSCOPE_IPC_IN"), "3");
  EXPECT_EQ(ask(c, "env BNSCOPE_IPC_OUT"), "4");
}

TEST(ChildProcess, KeepsWhatItPrintsOutOfTheChannel) {
  ChildProcess c;
  c.start(test_child());
  EXPECT_EQ(ask(c, "print"), "printed");
  EXPECT_EQ(ask(c, "after"), "after");
  const std::string tail = c.output_tail();
  EXPECT_NE(tail.find("to stdout"), std::string::npos) << tail;
  EXPECT_NE(tail.find("to stderr"), std::string::npos) << tail;
}

TEST(ChildProcess, NamesTheSignalThatKilledIt) {
  ChildProcess c;
  c.start(test_child());
  std::string msg;
  c.send("crash", kLimit);
  EXPECT_EQ(failure_of([&] { c.receive(kLimit); }, &msg), ChildFailure::Died);
  EXPECT_NE(msg.find("test child killed by SIGSEGV"), std::string::npos) << msg;
  EXPECT_NE(msg.find("about to crash"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  EXPECT_FALSE(c.running());
}

TEST(ChildProcess, ReportsAKillFromOutsideWhileWaiting) {
  ChildProcess c;
  c.start(test_child());
  const pid_t pid = c.pid();
  c.send("hang", kLimit);
  std::thread killer([pid] {
    std::this_thread::sleep_for(milliseconds(100));
    ::kill(pid, SIGKILL);
  });
  std::string msg;
  EXPECT_EQ(failure_of([&] { c.receive(milliseconds(20000)); }, &msg), ChildFailure::Died);
  killer.join();
  EXPECT_NE(msg.find("killed by SIGKILL"), std::string::npos) << msg;
}

TEST(ChildProcess, ReportsAnExitStatus) {
  ChildProcess c;
  c.start(test_child());
  c.send("exit3", kLimit);
  std::string msg;
  EXPECT_EQ(failure_of([&] { c.receive(kLimit); }, &msg), ChildFailure::Died);
  EXPECT_NE(msg.find("exited with status 3"), std::string::npos) << msg;
  // Sending to the dead child says the same, it does not raise SIGPIPE.
  EXPECT_EQ(failure_of([&] { c.send("again", kLimit); }), ChildFailure::Died);
}

TEST(ChildProcess, SendingToAChildThatLeftIsAnError) {
  ChildProcess c;
  c.start(test_child({"exit-now"}));
  std::this_thread::sleep_for(milliseconds(200));
  std::string msg;
  EXPECT_EQ(failure_of(
                [&] {
                  for (int i = 0; i < 3; ++i) ask(c, "x");
                },
                &msg),
            ChildFailure::Died);
  EXPECT_NE(msg.find("exited with status 3"), std::string::npos) << msg;
  EXPECT_NE(msg.find("leaving at once"), std::string::npos) << msg;
}

TEST(ChildProcess, StopsAChildThatHangsPastTheLimit) {
  ChildProcess c;
  c.start(test_child());
  c.send("hang", kLimit);
  const auto t0 = std::chrono::steady_clock::now();
  std::string msg;
  EXPECT_EQ(failure_of([&] { c.receive(milliseconds(300)); }, &msg), ChildFailure::TimedOut);
  EXPECT_GE(std::chrono::steady_clock::now() - t0, milliseconds(300));
  EXPECT_NE(msg.find("did not answer within 300 ms"), std::string::npos) << msg;
  EXPECT_FALSE(c.running());
  EXPECT_NE(c.exit_description().find("SIGKILL"), std::string::npos);
}

TEST(ChildProcess, ACancelEndsTheWait) {
  ChildProcess c;
  c.start(test_child());
  c.send("hang", kLimit);
  std::atomic<bool> cancel{false};
  std::thread canceller([&] {
    std::this_thread::sleep_for(milliseconds(100));
    cancel = true;
  });
  try {
    c.receive(milliseconds(60000), &cancel);
    ADD_FAILURE() << "no error";
  } catch (const ChildError& e) {
    EXPECT_EQ(e.failure(), ChildFailure::Cancelled);
    EXPECT_EQ(e.code(), ErrorCode::Cancelled);
  }
  canceller.join();
  EXPECT_FALSE(c.running());
}

TEST(ChildProcess, RestartsAfterDying) {
  ChildProcess c;
  c.start(test_child());
  const pid_t first = c.pid();
  c.send("crash", kLimit);
  EXPECT_EQ(failure_of([&] { c.receive(kLimit); }), ChildFailure::Died);
  c.restart();
  EXPECT_NE(c.pid(), first);
  EXPECT_EQ(ask(c, "alive again"), "alive again");
}

TEST(ChildProcess, StopLetsItLeaveOnEndOfInput) {
  ChildProcess c;
  c.start(test_child());
  EXPECT_EQ(ask(c, "x"), "x");
  c.stop();
  EXPECT_FALSE(c.running());
  EXPECT_EQ(c.exit_description(), "exited with status 0");
}

TEST(ChildProcess, SaysWhenTheProgramIsMissing) {
  ChildProcess c;
  ChildSpec s;
  s.argv = {"/nonexistent/bnscope-python"};
  s.what = "worker";
  std::string msg;
  EXPECT_EQ(failure_of([&] { c.start(s); }, &msg), ChildFailure::NotStarted);
  EXPECT_NE(msg.find("cannot start /nonexistent/bnscope-python"), std::string::npos) << msg;
  EXPECT_NE(msg.find("No such file"), std::string::npos) << msg;
  EXPECT_FALSE(c.running());
}

TEST(ChildProcess, ExchangesJson) {
  ChildProcess c;
  c.start(test_child());
  JsonValue m = JsonValue::object();
  m.add("op", JsonValue::of(std::string("run")));
  m.add("eps", JsonValue::of(0.001));
  send_json(c, m, kLimit);
  const JsonValue r = receive_json(c, kLimit);  // echoed back
  EXPECT_EQ(r.at("op").string, "run");
  EXPECT_EQ(r.at("eps").number, 0.001);
  c.send("not json", kLimit);
  std::string msg;
  EXPECT_EQ(failure_of([&] { receive_json(c, kLimit); }, &msg), ChildFailure::BadMessage);
  EXPECT_FALSE(c.running());
}

TEST(DescribeWaitStatus, NamesExitsAndSignals) {
  EXPECT_EQ(describe_wait_status(3 << 8), "exited with status 3");
  EXPECT_EQ(describe_wait_status(SIGSEGV), "killed by SIGSEGV (Segmentation fault)");
  EXPECT_EQ(describe_wait_status(SIGKILL), "killed by SIGKILL (Killed)");
}

}  // namespace
}  // namespace bnscope::ipc
