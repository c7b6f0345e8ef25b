// Writing a report file (-o, and the history of floors) without ever harming what is at the path.
//
// What is at the path decides how it is written:
// - nothing, or a regular file: the text goes to a new temporary file beside it (same folder, so
//   same file system), which is flushed, synced and then renamed over it: a reader sees the old
//   file or the complete new one, never a half-written one. A replaced file's permission bits,
//   owner and group are given to the new one first.
// - a symbolic link is followed to the end of its chain: the file it points to is written as
//   above, the temporary file beside that file, and the link stays a link. A dangling link is
//   followed too: the file it names is created when that file's folder exists (as the shell's `>`
//   does), otherwise nothing is written.
// - a character device, a FIFO (named pipe), a Windows device name (NUL, CON, COM1...): opened
//   for writing as it is (no create, no truncation) and written in place; never replaced, never
//   removed, never synced. Opening a FIFO waits until a reader opens it.
// - a directory, a block device (a report would wreck a disk: `-o /dev/sda` is a typo, never
//   a wish), a socket, a path whose folder does not exist, the empty path: refused.
// When anything fails, the temporary file is removed and a file at the path is left as it was
// (a device may have taken part of the text).
//
// Caveats: the temporary name is the target's with ".tmp-PID-N" appended and is created
// exclusively, so two runs writing one target do not mix their bytes (the last rename wins). A
// process that may not give a file away (not root) cannot keep another user's ownership: the
// file is still replaced, with the old permission bits less set-user-ID, set-group-ID and sticky,
// owned by the writer, and the write says so. ACLs, extended attributes and further hard links of
// a replaced file are not kept. On Windows a replaced file takes its folder's inherited
// permissions, and symbolic links are not followed (the standard library does not see them).
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace harness {

// A file could not be written; what() names the path and the system's reason.
class output_error : public std::runtime_error {
 public:
  explicit output_error(const std::string& message) : std::runtime_error(message) {}
};

// Writes `content` to `path` as described above. Throws output_error. Returns what could not be
// kept of a replaced file ("its owner (uid 1000) could not be kept..."), for a warning; empty
// when everything was.
std::string write_output_file(const std::filesystem::path& path, std::string_view content);

// The file a write to `path` ends in, for telling whether two paths name one file: `path`
// absolute, the chain of symbolic links it starts followed to its end (a dangling one's too: the
// writer creates its target), then `.`, `..` and its folders' links resolved. Refuses nothing: a
// link that cannot be read ends the chain where it is.
std::filesystem::path file_written_at(const std::filesystem::path& path);

// Checks what is at `path` by the rules above, without making or opening anything: refuses a
// directory, a block device, a socket, a missing folder, the empty path. Throws output_error.
void check_output_path(const std::filesystem::path& path);

// Checks, before a long run, that `path` can be written, by the rules above: a regular file or a
// new one needs its folder to take a new file (one is made and removed); a device or FIFO is
// only looked at and its write permission asked (access(W_OK)): it is not opened, since opening a
// FIFO waits for a reader and opening some devices does something. Leaves nothing behind. Throws
// output_error; the command line makes that a usage error.
void check_writable(const std::filesystem::path& path);

}  // namespace harness
