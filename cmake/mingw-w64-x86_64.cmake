# CMake toolchain for the Windows build: x86_64-w64-mingw32 from Debian, run under Wine.
#
#   cmake -S . -B build-win -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/mingw-w64-x86_64.cmake
#         [-DHARNESS_WINDOWS_DEPS_PREFIX=<cache>/prefix]
#
# Caveats: only the -posix flavour of mingw has std::thread and std::mutex, so those compilers are
# named explicitly. Everything links statically: a dynamically linked exe needs libstdc++, libgcc and
# libwinpthread DLLs, and under WINEDEBUG=-all a missing DLL fails silently with exit code 53.
# Dependencies are searched only in the mingw sysroot and in the prefix scripts/windows-deps.sh fills
# (GoogleTest, Google Benchmark, package files for the header-only libraries); never /usr, whose
# headers break mingw's C library.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)

set(CMAKE_C_COMPILER x86_64-w64-mingw32-gcc-posix)
set(CMAKE_CXX_COMPILER x86_64-w64-mingw32-g++-posix)
set(CMAKE_RC_COMPILER x86_64-w64-mingw32-windres)

if(NOT DEFINED HARNESS_WINDOWS_DEPS_PREFIX)
  if(DEFINED ENV{HARNESS_WINDOWS_DEPS_PREFIX})
    set(HARNESS_WINDOWS_DEPS_PREFIX "$ENV{HARNESS_WINDOWS_DEPS_PREFIX}")
  else()
    get_filename_component(HARNESS_WINDOWS_DEPS_PREFIX "${CMAKE_CURRENT_LIST_DIR}/../build-win-deps/prefix"
                           ABSOLUTE)
  endif()
endif()
set(HARNESS_WINDOWS_DEPS_PREFIX "${HARNESS_WINDOWS_DEPS_PREFIX}"
    CACHE PATH "Prefix holding the mingw builds of the dependencies (scripts/windows-deps.sh)")
# try_compile projects re-read this file; hand them the same prefix.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES HARNESS_WINDOWS_DEPS_PREFIX)

set(CMAKE_FIND_ROOT_PATH /usr/x86_64-w64-mingw32 "${HARNESS_WINDOWS_DEPS_PREFIX}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)  # build tools run on Linux
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# ctest, gtest_discover_tests and add_test(COMMAND <target>) run Windows executables through this.
set(CMAKE_CROSSCOMPILING_EMULATOR wine)

set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")
