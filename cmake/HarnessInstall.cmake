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
write_basic_package_version_file(${CMAKE_BINARY_DIR}/harness-config-version.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/harness-config.cmake ${CMAKE_BINARY_DIR}/harness-config-version.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/harness)
