// The history's file and the build's fingerprint, read by the command line: analysis/history.cpp
// only parses, merges and decides over the text it is given (history.hpp). Internal header of
// cli/.
#pragma once

#include <filesystem>
#include <string>

#include "harness/history.hpp"

namespace harness::cli {

// Reads the history at `path`: a missing file is an empty history; anything but a regular file
// holding a harness history is a usage_error "PATH: WHY", with the system's reason when it cannot
// be looked at or read ("Permission denied (EACCES)"). The caller says which history it was
// (--history, the default) and what to do; the file is never overwritten.
run_history read_history(const std::filesystem::path& path);

// A fingerprint of a file's bytes, "xxh3:<16 hex digits>": XXH3-64 (libxxhash, seed 0) of the
// whole file, the same on every platform and standard library; empty when it cannot be read.
// Histories written before it keyed builds "mm64fnv:..." (the standard library's hash): such a
// record matches no build and is left to expire (docs/floor.md).
std::string file_fingerprint(const std::filesystem::path& path);

}  // namespace harness::cli
