// The OS calls behind writing a report file (output_file.cpp): what is at a path, an exclusive
// create, keeping a replaced file's mode and owner, writing a device in place, a sync to disk,
// which C's stdio cannot express portably. Internal to the harness; each backend
// (platform/linux.cpp, platform/windows.cpp) implements them.
#pragma once

#include <cstdio>
#include <filesystem>
#include <string>

namespace harness::platform {

// What a path names, as the report writer sorts it.
enum class path_kind {
  missing,       // nothing there (a dangling symbolic link too: path_facts::symlink says so)
  regular,       // a regular file, reached through any symbolic links
  directory,     // a folder
  device,        // written in place, never replaced: a character device, a FIFO, a Windows device
                 // name (NUL, CON, COM1...) or a \\.\ path
  block_device,  // a disk or a partition: never written (a report written there would wreck it)
  socket,        // a Unix socket: open() refuses it (ENXIO), so nothing can write it as a file
  unknown,       // could not be looked at: path_facts::reason says why
};

struct path_facts {
  path_kind kind = path_kind::unknown;
  std::string what;      // the kind in words: "regular file", "character device", "FIFO"...
  bool symlink = false;  // the path itself is a symbolic link (always false on Windows)
  // A regular file's permission bits (st_mode & 07777), owner and group, to give its
  // replacement; 0 on Windows.
  unsigned mode = 0;
  unsigned owner = 0;
  unsigned group = 0;
  std::string reason;  // the system's reason when kind is unknown
};

// Looks at `path` without opening it: lstat, then stat through a symbolic link (Linux);
// GetFullPathNameW, whose answer is \\.\NAME for a device name, then GetFileAttributesW (Windows).
// ENOENT and ENOTDIR (a component is a file) give missing.
path_facts inspect_path(const std::filesystem::path& path);

// Opens `path` for binary writing only if nothing exists there yet, so a file someone else made is
// never reused (fopen's "x" mode is missing from msvcrt). nullptr with errno set when refused
// (EEXIST when the path exists). Close it with std::fclose.
std::FILE* create_file_exclusive(const std::filesystem::path& path);

// Opens an existing device or FIFO for binary writing in place: no create, no truncation, and on
// Linux no controlling terminal (O_NOCTTY). Opening a FIFO blocks until a reader opens it.
// nullptr with errno set when refused.
std::FILE* open_existing_for_writing(const std::filesystem::path& path);

// 0 when this process may write `path`, else the errno saying why: access(W_OK), which opens
// nothing (opening a FIFO for writing would block until a reader comes). Always 0 on Windows,
// where a device is only found unwritable when it is written.
int write_permission(const std::filesystem::path& path);
// The same for reading (access(R_OK)): the results store looks before SQLite opens a file. Always
// 0 on Windows.
int read_permission(const std::filesystem::path& path);

// What keep_mode_and_owner could do.
struct kept {
  int error = 0;     // errno when the mode could not be set: the replacement must not go ahead
  std::string note;  // what could not be kept, said for the user ("" when everything was)
};

// Gives `file`, a new file about to replace the regular file `old` describes, that file's owner
// and group (fchown) and then its permission bits (fchmod; after fchown, which clears set-user-ID
// bits). A process that may not give the file away (not root) keeps the group when it belongs to
// it, and says in the note what it could not keep; set-user-ID, set-group-ID and sticky bits
// are then dropped, so that a file now owned by this user is not set-user-ID to it. Nothing on
// Windows, where a new file takes its folder's inherited permissions.
kept keep_mode_and_owner(std::FILE* file, const path_facts& old);

// Makes the data already flushed to `file` durable (fsync, _commit), so that a rename after it
// cannot show a file whose content is still only in memory. false with errno set on failure.
bool sync_file(std::FILE* file);

// While it lives, SIGINT and SIGTERM sent to this thread's process wait (blocked in this thread,
// pthread_sigmask) and act when it ends: a signal while a report's temporary file is written and
// renamed then acts after the rename, so the command it ends leaves the whole file and no
// temporary one beside it. Only around work that cannot block for long (a FIFO's open waits for
// a reader: a stop must reach it). Nothing on Windows.
class stop_signals_deferred {
 public:
  stop_signals_deferred();
  ~stop_signals_deferred();
  stop_signals_deferred(const stop_signals_deferred&) = delete;
  stop_signals_deferred& operator=(const stop_signals_deferred&) = delete;

 private:
  bool int_was_blocked_ = false;  // blocked before: left blocked
  bool term_was_blocked_ = false;
};

// The file descriptor of an open stream (fileno, _fileno).
int file_descriptor(std::FILE* file);

// The operating system's kernel and its release ("Linux 6.1.0-18-amd64", uname); "Windows" on
// Windows. Part of a machine's key in the results store.
std::string kernel_release();

// The system's reason for errno value `error`: "No space left on device (ENOSPC)" on Linux, the
// C runtime's text on Windows.
std::string errno_text(int error);

}  // namespace harness::platform
