// Report files: what is at the path decides between an atomic replacement (a temporary file in
// the target's folder, then rename) and a write in place (devices, FIFOs).
#include "cli/output_file.hpp"

#include <fmt/format.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <system_error>

#include "harness/platform.hpp"
#include "platform/files.hpp"

namespace harness {
namespace {

using platform::path_kind;

// Links followed before giving up, as Linux does (its MAXSYMLINKS).
constexpr int kMaxLinks = 40;

// Where a report goes: the path as given, and the file the bytes end up in.
struct target {
  std::filesystem::path given;
  std::filesystem::path path;  // `given`, or the end of the link chain it starts
  platform::path_facts facts;  // of `path`
};

std::string name_of(const target& t) {
  if (t.path == t.given) return fmt::format("'{}'", t.given.string());
  return fmt::format("'{}' (a link to '{}')", t.given.string(), t.path.string());
}

[[noreturn]] void refuse(const std::filesystem::path& path, std::string_view why) {
  throw output_error(fmt::format("cannot write '{}': {}", path.string(), why));
}

[[noreturn]] void fail(const target& t, std::string_view step, int error) {
  throw output_error(
      fmt::format("cannot write {}: {}: {}", name_of(t), step, platform::errno_text(error)));
}

std::filesystem::path folder_of(const std::filesystem::path& path) {
  std::filesystem::path folder = path.parent_path();
  return folder.empty() ? std::filesystem::path(".") : folder;
}

std::filesystem::path temporary_beside(const std::filesystem::path& path) {
  static std::atomic<unsigned> counter{0};
  std::filesystem::path tmp = path;
  tmp += fmt::format(".tmp-{}-{}", platform::process_id(), counter++);
  return tmp;
}

// A new file at t.path needs its folder: say which folder is missing, not ENOENT.
void check_folder(const target& t) {
  const std::filesystem::path folder = folder_of(t.path);
  const platform::path_facts facts = platform::inspect_path(folder);
  const std::string whose =
      t.path == t.given
          ? std::string("its folder")
          : fmt::format("it is a symbolic link to '{}', whose folder", t.path.string());
  switch (facts.kind) {
    case path_kind::directory:
      return;
    case path_kind::missing:
      refuse(t.given, fmt::format("{} '{}' does not exist", whose, folder.string()));
    case path_kind::unknown:
      refuse(t.given,
             fmt::format("{} '{}' cannot be looked at: {}", whose, folder.string(), facts.reason));
    default:
      refuse(t.given,
             fmt::format("{} '{}' is a {}, not a folder", whose, folder.string(), facts.what));
  }
}

// The end of the chain of symbolic links `link` starts, read link by link (the kernel cannot
// resolve a dangling one: stat says ENOENT, and std::filesystem::weakly_canonical would stop at the
// link itself). `error` is the failed read's, with `at` the link it could not read; `too_long`
// when there were more than kMaxLinks.
struct chain_end {
  std::filesystem::path at;
  std::error_code error;
  bool too_long = false;
};

chain_end follow_links(const std::filesystem::path& link) {
  chain_end end{link, {}, false};
  for (int hops = 0; hops <= kMaxLinks; ++hops) {
    const std::filesystem::path next = std::filesystem::read_symlink(end.at, end.error);
    if (end.error == std::errc::no_such_file_or_directory ||
        end.error == std::errc::invalid_argument) {
      end.error.clear();
      return end;  // nothing there, or not a link (it appeared meanwhile: inspected again)
    }
    if (end.error) return end;
    end.at = next.is_absolute() ? next : folder_of(end.at) / next;
  }
  end.too_long = true;
  return end;
}

// The end of a dangling link's chain; refuses a link that cannot be read or a chain too long.
std::filesystem::path end_of_chain(const std::filesystem::path& link) {
  const chain_end end = follow_links(link);
  if (end.error)
    refuse(link, fmt::format("its link '{}' cannot be read: {}", end.at.string(),
                             platform::errno_text(end.error.value())));
  if (end.too_long) refuse(link, "it starts a chain of more than 40 symbolic links");
  return end.at;
}

// Sorts the path by what is there and refuses what must not be written.
target resolve(const std::filesystem::path& path) {
  if (path.empty()) refuse(path, "the path is empty; give a file name such as 'report.json'");
  target t{path, path, platform::inspect_path(path)};
  if (t.facts.symlink && t.facts.kind == path_kind::regular) {
    std::error_code ec;
    t.path = std::filesystem::canonical(path, ec);
    if (ec) {
      refuse(path, fmt::format("its symbolic link cannot be followed: {}",
                               platform::errno_text(ec.value())));
    }
  } else if (t.facts.symlink && t.facts.kind == path_kind::missing) {
    t.path = end_of_chain(path);
    t.facts = platform::inspect_path(t.path);
    // Only a new file may be made at the end of the chain; whatever appeared there meanwhile is
    // looked at again on the next write.
    if (t.facts.symlink || t.facts.kind != path_kind::missing) {
      refuse(path, fmt::format("its link target '{}' changed while it was being followed",
                               t.path.string()));
    }
  }
  switch (t.facts.kind) {
    case path_kind::missing:
      check_folder(t);
      return t;
    case path_kind::regular:
    case path_kind::device:
      return t;
    case path_kind::directory:
      refuse(path, fmt::format("it is a directory; give a file name such as '{}'",
                               (path / "report.json").string()));
    case path_kind::block_device:
      refuse(path,
             "it is a block device (a disk or a partition), which a report would wreck; "
             "give a file");
    case path_kind::socket:
      refuse(path,
             "it is a socket, which cannot be opened as a file; give a file, a FIFO or a "
             "device");
    case path_kind::unknown:
      break;
  }
  refuse(path, fmt::format("it cannot be looked at: {}", t.facts.reason));
}

// A device or FIFO: opened as it is and written, never created, truncated, replaced or synced
// (fsync on a device fails with EINVAL). The path as given is opened, so that the kernel follows
// its links, /proc/self/fd's among them.
void write_in_place(const target& t, std::string_view content) {
  std::FILE* file = platform::open_existing_for_writing(t.given);
  if (file == nullptr) {
    const int error = errno;
    fail(t, "opening it for writing", error);
  }
  int error = 0;
  const char* step = nullptr;
  if (std::fwrite(content.data(), 1, content.size(), file) != content.size() ||
      std::fflush(file) != 0) {
    error = errno;
    step = "writing";
  }
  if (std::fclose(file) != 0 && step == nullptr) {
    error = errno;
    step = "closing";
  }
  if (step != nullptr) fail(t, step, error);
}

// A new or regular file: a temporary file beside it, synced, then renamed over it. SIGINT and
// SIGTERM wait until it is renamed or removed (found by bench/soak.sh: a signal in the middle
// left the temporary file).
std::string write_and_rename(const target& t, std::string_view content) {
  const platform::stop_signals_deferred deferred;
  const std::filesystem::path tmp = temporary_beside(t.path);
  // Never reuse a file someone else made.
  std::FILE* file = platform::create_file_exclusive(tmp);
  if (file == nullptr) {
    const int error = errno;
    fail(t, "cannot create a file in its folder", error);
  }
  std::string note;
  int error = 0;
  const char* step = nullptr;
  if (t.facts.kind == path_kind::regular) {
    const platform::kept kept = platform::keep_mode_and_owner(file, t.facts);
    if (!kept.note.empty()) note = fmt::format("{} was replaced, but {}", name_of(t), kept.note);
    if (kept.error != 0) {
      error = kept.error;
      step = "giving the new file the old one's permissions";
    }
  }
  if (step != nullptr) {
    // Not written: the old file's permissions could not be kept.
  } else if (std::fwrite(content.data(), 1, content.size(), file) != content.size() ||
             std::fflush(file) != 0) {
    error = errno;
    step = "writing";
  } else if (!platform::sync_file(file)) {
    error = errno;
    step = "syncing to disk";
  }
  if (std::fclose(file) != 0 && step == nullptr) {
    error = errno;
    step = "closing";
  }
  if (step == nullptr) {
    std::error_code ec;
    std::filesystem::rename(tmp, t.path, ec);
    if (!ec) return note;
    error = ec.value();
    step = "renaming the finished temporary file over it";
  }
  std::error_code ignored;
  std::filesystem::remove(tmp, ignored);
  fail(t, step, error);
}

}  // namespace

std::string write_output_file(const std::filesystem::path& path, std::string_view content) {
  const target t = resolve(path);
  if (t.facts.kind == path_kind::device) {
    write_in_place(t, content);
    return {};
  }
  return write_and_rename(t, content);
}

std::filesystem::path file_written_at(const std::filesystem::path& path) {
  std::error_code ec;
  const std::filesystem::path absolute = std::filesystem::absolute(path, ec);
  if (ec) return path;
  const chain_end end = follow_links(absolute);
  const std::filesystem::path at = end.error || end.too_long ? absolute : end.at;
  const std::filesystem::path canonical = std::filesystem::weakly_canonical(at, ec);
  return ec ? at.lexically_normal() : canonical;
}

void check_output_path(const std::filesystem::path& path) {
  (void)resolve(path);
}

void check_writable(const std::filesystem::path& path) {
  const target t = resolve(path);
  if (t.facts.kind == path_kind::device) {
    // Not opened: a FIFO's open waits for a reader, and a device's open may act (a tape rewinds).
    if (const int error = platform::write_permission(t.given); error != 0) {
      fail(t, "it may not be written", error);
    }
    return;
  }
  const std::filesystem::path tmp = temporary_beside(t.path);
  std::FILE* file = platform::create_file_exclusive(tmp);
  if (file == nullptr) {
    const int error = errno;
    fail(t, "cannot create a file in its folder", error);
  }
  std::fclose(file);
  std::error_code ignored;
  std::filesystem::remove(tmp, ignored);
}

}  // namespace harness
