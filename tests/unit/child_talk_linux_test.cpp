// The Linux children a parent talks to (child_process.hpp, child_spec::talk): a small shell script
// in the test's own folder as the child, its stdin and stdout one channel to the test. Lines both
// ways, a line cut from its '\r', a child that exits (its last part line and its status), one that
// never answers (the time limit, then killed), a write to one that has gone (an error, not
// SIGPIPE), a process group of its own. Every wait that must end in an answer has a limit of
// seconds the answer takes milliseconds against; the one that must time out waits 50 ms on a
// child that sleeps a minute.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <fstream>
#include <system_error>

#include "platform/child_process.hpp"
#include "scratch.hpp"

namespace harness::platform {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

class ChildTalk : public ::testing::Test {
 protected:
  std::unique_ptr<child_process> start(const std::string& script) {
    const std::filesystem::path program = dir.path() / "child.sh";
    std::ofstream(program) << "#!/bin/sh\n" << script;
    std::filesystem::permissions(program, std::filesystem::perms::owner_all);
    child_spec spec{program, {}, {}, dir.path() / "child.err", true};
    auto child = launcher->launch(spec);
    child->resume();
    return child;
  }
  harness::testing::scratch_folder dir{"child-talk"};
  std::unique_ptr<process_launcher> launcher = make_native_launcher();
};

TEST_F(ChildTalk, LinesGoBothWaysAndTheExitIsSeen) {
  auto child = start(
      "read line; printf 'got %s\\r\\n' \"$line\"; read line; echo \"and $line\"; echo oops >&2;"
      " printf 'part'; exit 3\n");
  child->send("first\n");
  std::string line;
  ASSERT_EQ(child->read_line(line, 10s), read_status::line);
  EXPECT_EQ(line, "got first");
  child->send("sec");  // a line may arrive in pieces
  child->send("ond\n");
  ASSERT_EQ(child->read_line(line, 10s), read_status::line);
  EXPECT_EQ(line, "and second");
  ASSERT_EQ(child->read_line(line, 10s), read_status::closed);
  EXPECT_EQ(line, "part");
  for (int i = 0; i < 1000 && !child->poll(); ++i)
    ::usleep(10'000);
  ASSERT_TRUE(child->poll());
  EXPECT_EQ(child->poll()->describe(), "exited with status 3");
  EXPECT_EQ(tail_of(dir.path() / "child.err", 8), "    | oops");
  // Writing to it now is an error the caller sees, not a SIGPIPE that ends the test.
  EXPECT_THROW(
      {
        for (int i = 0; i < 100; ++i)
          child->send(std::string(4096, 'x'));
      },
      std::system_error);
}

TEST_F(ChildTalk, ASilentChildTimesOutAndIsKilled) {
  auto child = start("sleep 60\n");
  std::string line;
  EXPECT_EQ(child->read_line(line, 50ms), read_status::timed_out);
  EXPECT_FALSE(child->poll());
  child->kill();
  ASSERT_TRUE(child->poll());
  EXPECT_TRUE(child->poll()->signaled);
  EXPECT_EQ(child->poll()->code, SIGKILL);
}

TEST_F(ChildTalk, ItRunsInAProcessGroupOfItsOwn) {
  auto child = start("read line; echo ready; read line\n");
  child->send("go\n");
  std::string line;
  ASSERT_EQ(child->read_line(line, 10s), read_status::line);
  EXPECT_EQ(::getpgid(child->id()), child->id());
  EXPECT_NE(::getpgid(child->id()), ::getpgrp());
  child->send("end\n");
}

TEST_F(ChildTalk, ALineWithoutAnEndIsCutAtTheLimit) {
  auto child = start(
      "awk 'BEGIN { s = \"x\"; while (length(s) < 1100000) s = s s; print substr(s, 1, 1100000); "
      "print \"after\" }'\n");
  std::string line;
  ASSERT_EQ(child->read_line(line, 10s), read_status::line);
  EXPECT_EQ(line.size(), child_process::kMaxLine);
  ASSERT_EQ(child->read_line(line, 10s), read_status::line);
  EXPECT_EQ(line.size(), 1'100'000 - child_process::kMaxLine);
  ASSERT_EQ(child->read_line(line, 10s), read_status::line);
  EXPECT_EQ(line, "after");
}

}  // namespace
}  // namespace harness::platform
