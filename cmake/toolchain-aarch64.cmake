# toolchain-aarch64.cmake — cross-build moebench for aarch64 Linux (DGX
# Spark / GB10, Graviton, Ampere) on an x86-64 Debian 12 machine:
#
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-aarch64.cmake
#
# Needs g++-aarch64-linux-gnu and the arm64 multiarch -dev packages (`make
# cross-aarch64` installs them). Libraries and pkg-config files come from
# /usr/lib/aarch64-linux-gnu; header-only packages (nlohmann-json, CLI11,
# Catch2) from /usr. Test programs run under qemu-user
# (CMAKE_CROSSCOMPILING_EMULATOR): Catch2's test discovery and CTest use it.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(MOEBENCH_CROSS_TRIPLE aarch64-linux-gnu)

set(CMAKE_C_COMPILER ${MOEBENCH_CROSS_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${MOEBENCH_CROSS_TRIPLE}-g++)
set(CMAKE_LIBRARY_ARCHITECTURE ${MOEBENCH_CROSS_TRIPLE})

# Search the target's libraries and headers only; programs on the host.
set(CMAKE_FIND_ROOT_PATH /usr/${MOEBENCH_CROSS_TRIPLE} /usr)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)

# pkg-config: the arm64 .pc files, not the host's.
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/${MOEBENCH_CROSS_TRIPLE}/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")

find_program(MOEBENCH_QEMU_AARCH64 NAMES qemu-aarch64-static qemu-aarch64)
if(MOEBENCH_QEMU_AARCH64)
  # -cpu max: every aarch64 extension qemu emulates (dotprod, i8mm, sve, ...),
  # so the run-time dispatch can reach each kernel variant.
  set(CMAKE_CROSSCOMPILING_EMULATOR ${MOEBENCH_QEMU_AARCH64};-cpu;max)
endif()
