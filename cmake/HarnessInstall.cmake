# Install rules and the CMake package, so users can find_package(harness) and link harness::harness.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS harness harness_cli harness_main harness_bin EXPORT harness-targets
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/harness/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT harness-targets NAMESPACE harness:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/harness)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/harness-config.cmake.in
                              ${CMAKE_BINARY_DIR}/harness-config.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/harness)
# 0.x: a new minor version may change the API, so find_package(harness 0.1) takes 0.1.y only.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/harness-config-version.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/harness-config.cmake ${CMAKE_BINARY_DIR}/harness-config-version.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/harness)

# The .deb (issue 15): `cpack -G DEB` in the build folder, or `./dev.sh package`. It holds the
# `harness` binary, the headers, the static libraries and the CMake package under /usr, so
# find_package(harness) finds it with no prefix given. Its Depends are the Debian packages a user's
# build needs: the -dev packages whose CMake configs harness-config.cmake looks for with
# find_dependency (they pull in the shared libraries the binary runs with: libbenchmark1debian,
# libfmt9, libspdlog1.1), at the versions of Debian 12 the harness is built and tested with.
set(CPACK_PACKAGE_NAME harness)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_DESCRIPTION
    "Pins a process to one core, raises its priority, warms the workload up and samples it, beside "
    "an unprepared baseline. The harness command, and the headers, static libraries and CMake "
    "package to build your own workloads against (find_package(harness), harness::main).")
set(CPACK_PACKAGE_CONTACT "harness maintainers <harness@localhost>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # harness_0.1.0_amd64.deb
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_DEPENDS
    "libbenchmark-dev (>= 1.7.1), libfmt-dev (>= 9.1.0), libspdlog-dev (>= 1:1.10.0), libcli11-dev (>= 2.1.2), nlohmann-json3-dev (>= 3.11.2), libsqlite3-dev (>= 3.40), libpq-dev (>= 15)")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "cmake (>= 3.25), g++ (>= 4:12)")
set(CPACK_GENERATOR DEB)
include(CPack)
