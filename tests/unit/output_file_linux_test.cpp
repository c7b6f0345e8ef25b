// Report files on Linux (output_file.hpp): a replaced file keeps its mode and owner, symbolic
// links are followed and stay links, character devices and FIFOs are written in place and stay
// what they were, block devices, sockets and link loops are refused. Every node is made in a
// temporary folder of the test's own: /dev/null's and /dev/full's clones by mknod (skipped where
// mknod is refused), never the system's own nodes, even though the tests run as root.
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <thread>

#include "cli/output_file.hpp"
#include "harness/platform.hpp"
#include "platform/files.hpp"
#include "scratch.hpp"

namespace harness {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

class OutputFileLinux : public ::testing::Test {
 protected:
  static std::size_t entries(const fs::path& dir) {
    return static_cast<std::size_t>(
        std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
  }
  static std::string read_text(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }
  static struct stat lstat_of(const fs::path& path) {
    struct stat st {};
    EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path << ": " << std::strerror(errno);
    return st;
  }
  // A clone of /dev/null (1, 3) or /dev/full (1, 7) at dir_/name; false when mknod is refused
  // (no CAP_MKNOD, a container's device policy).
  bool make_char_device(const std::string& name, unsigned minor) const {
    return ::mknod((dir_ / name).c_str(), S_IFCHR | 0666, ::makedev(1, minor)) == 0;
  }
  template <class Write>
  static std::string refusal(Write&& write) {
    return testing::message_of<output_error>(write);
  }
  testing::scratch_folder scratch_{"output-linux"};
  const fs::path dir_ = scratch_.path();
};

TEST_F(OutputFileLinux, AReplacedFileKeepsItsMode) {
  const auto path = dir_ / "r.json";
  std::ofstream(path) << "old";
  ASSERT_EQ(::chmod(path.c_str(), 0640), 0);
  const ino_t old_inode = lstat_of(path).st_ino;
  EXPECT_EQ(write_output_file(path, "new"), "");
  const struct stat st = lstat_of(path);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  EXPECT_NE(st.st_ino, old_inode);  // replaced, not rewritten in place
  EXPECT_EQ(read_text(path), "new");
  EXPECT_EQ(entries(dir_), 1u);
}

TEST_F(OutputFileLinux, AReplacedFileKeepsItsOwnerWhenRoot) {
  if (::geteuid() != 0) GTEST_SKIP() << "only root may give a file to another user";
  const auto path = dir_ / "r.json";
  std::ofstream(path) << "old";
  ASSERT_EQ(::chown(path.c_str(), 12345, 23456), 0);
  ASSERT_EQ(::chmod(path.c_str(), 02750), 0);
  EXPECT_EQ(write_output_file(path, "new"), "");
  const struct stat st = lstat_of(path);
  EXPECT_EQ(st.st_uid, 12345u);
  EXPECT_EQ(st.st_gid, 23456u);
  EXPECT_EQ(st.st_mode & 07777, 02750u);  // set after the chown, which would have cleared it
  EXPECT_EQ(read_text(path), "new");
}

// Without the right to give a file away, the file is still replaced, keeping the permission bits
// less set-user-ID and set-group-ID, and the write says what it could not keep. The write runs in
// a forked child (a death test) that drops to nobody (65534); the parent, root, makes the files.
TEST_F(OutputFileLinux, AnOwnerThatCannotBeKeptIsSaidAndTheModeStays) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to make another user's file and drop to nobody";
  ASSERT_EQ(::chmod(dir_.c_str(), 0777), 0);
  const auto path = dir_ / "r.json";
  std::ofstream(path) << "old";
  ASSERT_EQ(::chown(path.c_str(), 12345, 23456), 0);
  ASSERT_EQ(::chmod(path.c_str(), 04754), 0);
  EXPECT_EXIT(
      {
        if (::setgroups(0, nullptr) != 0 || ::setgid(65534) != 0 || ::setuid(65534) != 0)
          std::_Exit(2);
        const std::string note = write_output_file(path, "new");
        std::fputs(note.c_str(), stderr);
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(0),
      "was replaced, but its owner and group \\(uid 12345, gid 23456\\) could not be kept "
      "\\(Operation not permitted \\(EPERM\\)\\): the new file belongs to uid 65534, gid 65534");
  const struct stat st = lstat_of(path);
  EXPECT_EQ(st.st_uid, 65534u);
  EXPECT_EQ(st.st_mode & 07777, 0754u);
  EXPECT_EQ(read_text(path), "new");
  EXPECT_EQ(entries(dir_), 1u);
}

TEST_F(OutputFileLinux, ALinkStaysALinkAndItsTargetIsReplaced) {
  fs::create_directory(dir_ / "real");
  std::ofstream(dir_ / "real" / "target.json") << "old";
  ASSERT_EQ(::chmod((dir_ / "real" / "target.json").c_str(), 0600), 0);
  fs::create_symlink(dir_ / "real" / "target.json", dir_ / "link.json");  // absolute
  check_writable(dir_ / "link.json");
  EXPECT_EQ(write_output_file(dir_ / "link.json", "new"), "");
  EXPECT_TRUE(fs::is_symlink(dir_ / "link.json"));
  EXPECT_EQ(fs::read_symlink(dir_ / "link.json"), dir_ / "real" / "target.json");
  EXPECT_EQ(read_text(dir_ / "real" / "target.json"), "new");
  EXPECT_EQ(lstat_of(dir_ / "real" / "target.json").st_mode & 07777, 0600u);
  EXPECT_EQ(entries(dir_), 2u);           // link.json and real: no temporary file beside the link
  EXPECT_EQ(entries(dir_ / "real"), 1u);  // nor beside the target
}

TEST_F(OutputFileLinux, RelativeLinksAreFollowedToTheEndOfTheirChain) {
  fs::create_directories(dir_ / "a" / "b");
  std::ofstream(dir_ / "a" / "b" / "target.json") << "old";
  // dir_/first -> a/second -> b/target.json, each relative to its own link's folder.
  fs::create_symlink("b/target.json", dir_ / "a" / "second");
  fs::create_symlink("a/second", dir_ / "first");
  EXPECT_EQ(write_output_file(dir_ / "first", "new"), "");
  EXPECT_EQ(fs::read_symlink(dir_ / "first"), "a/second");
  EXPECT_EQ(fs::read_symlink(dir_ / "a" / "second"), "b/target.json");
  EXPECT_EQ(read_text(dir_ / "a" / "b" / "target.json"), "new");
  EXPECT_EQ(entries(dir_ / "a" / "b"), 1u);
}

TEST_F(OutputFileLinux, ADanglingLinkMakesItsTargetWhenTheTargetsFolderExists) {
  fs::create_directory(dir_ / "real");
  fs::create_symlink("real/new.json", dir_ / "link.json");
  check_writable(dir_ / "link.json");
  EXPECT_EQ(entries(dir_ / "real"), 0u);
  EXPECT_EQ(write_output_file(dir_ / "link.json", "new"), "");
  EXPECT_TRUE(fs::is_symlink(dir_ / "link.json"));
  EXPECT_EQ(read_text(dir_ / "real" / "new.json"), "new");
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(dir_ / "real" / "new.json")));
}

TEST_F(OutputFileLinux, ADanglingLinkIntoAMissingFolderIsRefused) {
  fs::create_symlink("gone/new.json", dir_ / "link.json");
  for (const std::string& message :
       {refusal([&] { check_writable(dir_ / "link.json"); }),
        refusal([&] { write_output_file(dir_ / "link.json", "x"); })}) {
    EXPECT_THAT(message, HasSubstr(fmt::format(
                             "cannot write '{}': it is a symbolic link to '{}', whose folder '{}' "
                             "does not exist",
                             (dir_ / "link.json").string(), (dir_ / "gone/new.json").string(),
                             (dir_ / "gone").string())));
  }
  EXPECT_EQ(fs::read_symlink(dir_ / "link.json"), "gone/new.json");
  EXPECT_EQ(entries(dir_), 1u);
}

TEST_F(OutputFileLinux, ALinkLoopOrALinkToAFolderIsRefused) {
  fs::create_symlink("b", dir_ / "a");
  fs::create_symlink("a", dir_ / "b");
  EXPECT_THAT(refusal([&] { write_output_file(dir_ / "a", "x"); }),
              HasSubstr("Too many levels of symbolic links (ELOOP)"));
  fs::create_directory(dir_ / "folder");
  fs::create_symlink("folder", dir_ / "to-folder");
  EXPECT_THAT(refusal([&] { check_writable(dir_ / "to-folder"); }), HasSubstr("it is a directory"));
  EXPECT_EQ(entries(dir_), 4u);
  EXPECT_EQ(entries(dir_ / "folder"), 0u);
}

TEST_F(OutputFileLinux, ANullDeviceIsWrittenInPlaceAndStaysADevice) {
  if (!make_char_device("null", 3)) GTEST_SKIP() << "mknod refused: " << std::strerror(errno);
  const auto null = dir_ / "null";
  // And through a link to it, as /dev/stdout is one.
  fs::create_symlink("null", dir_ / "stdout");
  for (const auto& path : {null, dir_ / "stdout"}) {
    check_writable(path);
    EXPECT_EQ(write_output_file(path, "report"), "");
  }
  const struct stat st = lstat_of(null);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  EXPECT_EQ(st.st_rdev, ::makedev(1, 3));
  EXPECT_TRUE(fs::is_symlink(dir_ / "stdout"));
  EXPECT_EQ(entries(dir_), 2u);
}

TEST_F(OutputFileLinux, AFullDeviceGivesTheSystemsReasonAndStaysADevice) {
  if (!make_char_device("full", 7)) GTEST_SKIP() << "mknod refused: " << std::strerror(errno);
  const auto full = dir_ / "full";
  check_writable(full);  // it may be written; that it is full shows only when it is
  const std::string message = refusal([&] { write_output_file(full, "report"); });
  EXPECT_THAT(message, HasSubstr(fmt::format("cannot write '{}': writing: No space left on device "
                                             "(ENOSPC)",
                                             full.string())));
  const struct stat st = lstat_of(full);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  EXPECT_EQ(st.st_rdev, ::makedev(1, 7));
  EXPECT_EQ(entries(dir_), 1u);  // no temporary file
}

TEST_F(OutputFileLinux, AFifoIsCheckedWithoutOpeningAndWrittenToItsReader) {
  const auto fifo = dir_ / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  // With no reader, opening it for writing would block: the check must return at once.
  check_writable(fifo);
  std::string received;
  std::thread reader([&] {
    std::ifstream in(fifo, std::ios::binary);  // blocks until the writer opens it
    std::ostringstream text;
    text << in.rdbuf();
    received = text.str();
  });
  const std::string report(100000, 'r');  // more than a pipe holds: the reader must drain it
  EXPECT_EQ(write_output_file(fifo, report), "");
  reader.join();
  EXPECT_EQ(received, report);
  EXPECT_TRUE(S_ISFIFO(lstat_of(fifo).st_mode));
  EXPECT_EQ(entries(dir_), 1u);
}

TEST_F(OutputFileLinux, ABlockDeviceIsRefusedAndNeverOpened) {
  // An unbound loop device's number: even opened, it would take no byte (ENXIO).
  if (::mknod((dir_ / "disk").c_str(), S_IFBLK | 0600, ::makedev(7, 250)) != 0)
    GTEST_SKIP() << "mknod refused: " << std::strerror(errno);
  for (const std::string& message : {refusal([&] { check_writable(dir_ / "disk"); }),
                                     refusal([&] { write_output_file(dir_ / "disk", "x"); })}) {
    EXPECT_THAT(message, HasSubstr("it is a block device (a disk or a partition)"));
  }
  EXPECT_TRUE(S_ISBLK(lstat_of(dir_ / "disk").st_mode));
  EXPECT_EQ(entries(dir_), 1u);
}

TEST_F(OutputFileLinux, ASocketIsRefused) {
  const auto path = dir_ / "sock";
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  ASSERT_LT(path.string().size(), sizeof(address.sun_path));
  std::strcpy(address.sun_path, path.c_str());
  ASSERT_EQ(::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)), 0);
  EXPECT_THAT(refusal([&] { check_writable(path); }),
              HasSubstr("it is a socket, which cannot be opened as a file"));
  ::close(fd);
  EXPECT_TRUE(S_ISSOCK(lstat_of(path).st_mode));
  EXPECT_EQ(entries(dir_), 1u);
}

volatile std::sig_atomic_t terms_seen = 0;
void count_term(int) {
  terms_seen = terms_seen + 1;
}

// What write_output_file holds around its temporary file: a SIGTERM raised in the middle acts when
// it ends, not before (a signal mid-write left report.txt.tmp-* behind; bench/soak.sh).
TEST(StopSignalsDeferred, ASignalRaisedWhileItLivesActsWhenItEnds) {
  const auto old = std::signal(SIGTERM, count_term);
  terms_seen = 0;
  {
    const platform::stop_signals_deferred deferred;
    std::raise(SIGTERM);
    EXPECT_EQ(terms_seen, 0);  // pending
  }
  EXPECT_EQ(terms_seen, 1);

  // Blocked before: left blocked when it ends, as it was.
  sigset_t term;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  ASSERT_EQ(::pthread_sigmask(SIG_BLOCK, &term, nullptr), 0);
  {
    const platform::stop_signals_deferred deferred;
    std::raise(SIGTERM);
  }
  EXPECT_EQ(terms_seen, 1);
  ASSERT_EQ(::pthread_sigmask(SIG_UNBLOCK, &term, nullptr), 0);
  EXPECT_EQ(terms_seen, 2);
  std::signal(SIGTERM, old);
}

}  // namespace
}  // namespace harness
