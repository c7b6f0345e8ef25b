// profile() in use: the article's cold-versus-warm file open, a callable that counts its own
// iterations, plain positional values with specs, and a template given on the command line.
//
//   profile_example [FILE [TEMPLATE]]   FILE defaults to this program; TEMPLATE is checked at run
//   time
//
// Caveat: the first open is only as cold as the operating system lets it be. A file read moments
// ago (this program, just loaded) is in the page cache, so the "cold" line then shows the cost of a
// first call in this process (path lookup, allocations, lazy binding of fopen), not of the disk.
// To see a disk, drop the caches first (Linux, root: `echo 3 > /proc/sys/vm/drop_caches`).
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>

#include "harness/format_template.hpp"
#include "harness/profile.hpp"

namespace {

// Opens the file, reads its first byte, closes it: the open cannot be skipped, the byte is kept.
int open_and_read(const char* path) {
  std::FILE* file = std::fopen(path, "rb");
  if (file == nullptr) return -1;
  const int first = std::fgetc(file);
  std::fclose(file);
  return first;
}

}  // namespace

int main(int argc, char** argv) {
  const char* path = argc > 1 ? argv[1] : argv[0];
  if (open_and_read(path) == -1) {
    std::cerr << "profile_example: cannot open " << path << "\n";
    return 1;
  }
  try {
    std::cout << "file: " << path << "\n";
    const auto open_file = [path] { return open_and_read(path); };

    // The first call, alone, then the 999 others.
    harness::profile_with_first(
        open_file, 1000, "cold open:  {time:.6f} s ({per_run})",
        "warm opens: {runs} in {time} s, {frequency} opens/s, {per_run} each ({clock})");

    // The callable makes its own iterations and says how many.
    harness::profile(
        [] {
          std::string text;
          int appends = 0;
          for (; text.size() < 1'000'000; ++appends)
            text += 'x';
          return appends;
        },
        "appends:    {runs} in {time} s, {frequency} appends/s");

    // Plain values with standard specs: runs, seconds, calls per second.
    harness::profile(open_file, 1000, "positional: {0} opens in {1:.6f} s = {2:.0f} opens/s");

    // A template known only at run time is checked when used; a bad one throws template_error.
    if (argc > 2) harness::profile(open_file, 100, harness::runtime_format(argv[2]));
  } catch (const harness::template_error& e) {
    std::cerr << "profile_example: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
