# cordon's layers (docs/architecture.md draws the graph), enforced by the build.
#
# Each layer is an OBJECT library compiled against its own include tree
# (build/layers/<layer>/...: one link per header of that layer, at its path under src/) and the
# trees of the layers it names in DEPS, and nothing else: a lower layer that includes a header
# of a higher one does not compile ("fatal error: host/git_facts.h: No such file or
# directory"). Headers are included by their path under src/ ("plan/plan.h"), never relative to
# the including file, so the folder of the including file does not open a way around it.
#
# The layers are combined into two archives:
#   cordon_pure   the pure layers (no host calls; scripts/check_pure.sh checks its archive),
#                 what the unit tests, benchmarks and fuzz targets link;
#   cordon_protocol  the JSON-RPC cores and the sys layer, for the protocol tests (fake Session);
#   libcordon     every layer: what the `cordon` CLI links and what `make install` installs
#                 (libcordon.a, with include/cordon/*.h, cordon.pc and cordonConfig.cmake).

set(CORDON_LAYER_ROOT ${CMAKE_BINARY_DIR}/layers)
# A header moved to another layer must not stay reachable through a stale link.
file(REMOVE_RECURSE ${CORDON_LAYER_ROOT})

# Every source under src/ belongs to exactly one layer (issue 29): a layer claims the sources
# it compiles (SOURCES) and those it owns that only the other configuration compiles (ELSEWHERE:
# a macOS build's in a Linux one, and the other way round); ALSO compiles another layer's
# sources a second time without claiming them (the process primitives' shared part, in the
# POSIX primitive built here for its tests). cordon_check_claims, at the end, fails the
# configuration on a source no layer claims or two do, and on a header no layer lists.
set_property(GLOBAL PROPERTY CORDON_CLAIMS "")
set_property(GLOBAL PROPERTY CORDON_LISTED_HEADERS "")

# cordon_glob(<what> <layer> <out> <globs>...): the files under src/ matching the globs; a glob
# that matches nothing is an error (a stale glob).
function(cordon_glob what layer out)
  set(all)
  foreach(g ${ARGN})
    file(GLOB found CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/${g})
    if(NOT found)
      message(FATAL_ERROR "layer ${layer}: no ${what} matches src/${g} (a stale glob in "
        "cmake/CordonLayers.cmake: remove it or fix the path)")
    endif()
    list(APPEND all ${found})
  endforeach()
  set(${out} ${all} PARENT_SCOPE)
endfunction()

# cordon_claim(<layer> <files>...): records that <layer> owns these sources.
function(cordon_claim layer)
  foreach(f ${ARGN})
    file(RELATIVE_PATH rel ${CMAKE_SOURCE_DIR}/src ${f})
    set_property(GLOBAL APPEND PROPERTY CORDON_CLAIMS "${rel}=${layer}")
  endforeach()
endfunction()

# cordon_layer(<name> SOURCES <globs> HEADERS <globs> [ELSEWHERE <globs>] [ALSO <globs>]
#              [DEPS <layers>] [LIBS <targets>])
# Globs are relative to src/. Defines the OBJECT library cordon_<name> and the INTERFACE
# library cordon_<name>_use (its include tree, its deps' trees, LIBS), for the layers above.
function(cordon_layer name)
  cmake_parse_arguments(L "" "" "SOURCES;HEADERS;ELSEWHERE;ALSO;DEPS;LIBS" ${ARGN})
  set(src ${CMAKE_SOURCE_DIR}/src)
  set(tree ${CORDON_LAYER_ROOT}/${name})
  file(MAKE_DIRECTORY ${tree})
  cordon_glob(source ${name} sources ${L_SOURCES})
  cordon_glob(source ${name} elsewhere ${L_ELSEWHERE})
  cordon_glob(source ${name} also ${L_ALSO})
  cordon_claim(${name} ${sources} ${elsewhere})
  list(APPEND sources ${also})
  foreach(g ${L_HEADERS})
    cordon_glob(header ${name} found ${g})
    foreach(h ${found})
      file(RELATIVE_PATH rel ${src} ${h})
      set_property(GLOBAL APPEND PROPERTY CORDON_LISTED_HEADERS ${rel})
      get_filename_component(dir ${tree}/${rel} DIRECTORY)
      file(MAKE_DIRECTORY ${dir})
      file(CREATE_LINK ${h} ${tree}/${rel} SYMBOLIC)
    endforeach()
  endforeach()
  add_library(cordon_${name}_use INTERFACE)
  target_include_directories(cordon_${name}_use INTERFACE ${tree} ${CMAKE_SOURCE_DIR}/include)
  foreach(d ${L_DEPS})
    target_link_libraries(cordon_${name}_use INTERFACE cordon_${d}_use)
  endforeach()
  target_link_libraries(cordon_${name}_use INTERFACE ${L_LIBS})
  if(sources)
    add_library(cordon_${name} OBJECT ${sources})
    target_link_libraries(cordon_${name} PRIVATE cordon_${name}_use)
    target_compile_options(cordon_${name} PRIVATE ${CORDON_WARNINGS})
    set(pch cordon_pch)
    if(NOT name IN_LIST CORDON_PURE_LAYERS AND CORDON_HOST_FLAGS)
      target_compile_options(cordon_${name} PRIVATE ${CORDON_HOST_FLAGS})
      set(pch cordon_pch_host)
    endif()
    if(CORDON_PCH)
      target_precompile_headers(cordon_${name} REUSE_FROM ${pch})
    endif()
  endif()
endfunction()

# Third-party headers every layer may use (fmt and nlohmann/json are header-only here).
add_library(cordon_third_party INTERFACE)
target_link_libraries(cordon_third_party INTERFACE fmt::fmt-header-only
  nlohmann_json::nlohmann_json cordon_tomlpp)
target_include_directories(cordon_third_party SYSTEM INTERFACE ${SECCOMP_INCLUDE_DIRS}
  ${RE2_INCLUDE_DIRS})

# The third-party headers most sources include, precompiled once per build tree and reused by
# every layer (nlohmann/json alone took about 4 s of CPU per source that includes it, fmt 0.7 s:
# most of a cold build). The layers' flags are those of cordon_pch, so GCC takes the same
# precompiled header everywhere; a source that does not include these headers gets them anyway,
# which costs a load of the .gch, not a parse. CORDON_PCH=OFF builds without.
option(CORDON_PCH "Precompile the third-party headers" ON)
set(CORDON_PCH_HEADERS <fmt/format.h> <nlohmann/json.hpp> <algorithm> <functional> <map>
  <memory> <optional> <set> <string> <string_view> <vector>)
# Flags for the host layers only (after the tree's): the sanitizer tree compiles them at -O0
# and the pure layers at -O1 (scripts/build_sanitizer_tree.sh), where the fuzz targets and the
# planner spend their time; -O1 with the sanitizers triples a source's compile time. The host
# layers then have a precompiled header of their own flags (clang refuses one of others).
set(CORDON_HOST_CXX_FLAGS "" CACHE STRING "Extra compile flags for the host layers and the CLI")
separate_arguments(CORDON_HOST_FLAGS NATIVE_COMMAND "${CORDON_HOST_CXX_FLAGS}")
# The pure layers: no syscalls that read or change the host (defined below, in this order).
set(CORDON_PURE_LAYERS core config plan commands approval files_rules render integrations)
# cordon_pch_sum(TARGET): the checksum ccache hashes instead of TARGET's precompiled header
# (cmake/PchSum.cmake), made before the header and so before every object that uses it.
function(cordon_pch_sum target)
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/${target}.dir)
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    set(out ${dir}/cmake_pch.hxx.pch.sum)
  else()
    set(out ${dir}/cmake_pch.hxx.gch.sum)
  endif()
  string(TOUPPER "${CMAKE_BUILD_TYPE}" config)
  separate_arguments(base NATIVE_COMMAND "${CMAKE_CXX_FLAGS} ${CMAKE_CXX_FLAGS_${config}}")
  set(defs "$<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>")
  set(incs "$<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>")
  set(flags ${base} "$<TARGET_PROPERTY:${target},COMPILE_OPTIONS>"
    "$<$<BOOL:${defs}>:-D$<JOIN:${defs},;-D>>" "$<$<BOOL:${incs}>:-I$<JOIN:${incs},;-I>>"
    -std=c++${CMAKE_CXX_STANDARD})
  # One argument, the flags joined by '|' (PchSum.cmake splits them again).
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DCXX=${CMAKE_CXX_COMPILER} "-DFLAGS=$<JOIN:${flags},|>"
      -DHEADER=${dir}/cmake_pch.hxx -DOUT=${out} -P ${CMAKE_SOURCE_DIR}/cmake/PchSum.cmake
    DEPENDS ${CMAKE_SOURCE_DIR}/cmake/PchSum.cmake
    DEPFILE ${out}.d
    VERBATIM)
  add_custom_target(${target}_sum DEPENDS ${out})
  add_dependencies(${target} ${target}_sum)
endfunction()

if(CORDON_PCH)
  add_library(cordon_pch OBJECT ${CMAKE_SOURCE_DIR}/cmake/pch_stub.cc)
  target_link_libraries(cordon_pch PRIVATE cordon_third_party)
  target_compile_options(cordon_pch PRIVATE ${CORDON_WARNINGS})
  target_precompile_headers(cordon_pch PRIVATE ${CORDON_PCH_HEADERS})
  cordon_pch_sum(cordon_pch)
  if(CORDON_HOST_FLAGS)
    add_library(cordon_pch_host OBJECT ${CMAKE_SOURCE_DIR}/cmake/pch_stub.cc)
    target_link_libraries(cordon_pch_host PRIVATE cordon_third_party)
    target_compile_options(cordon_pch_host PRIVATE ${CORDON_WARNINGS} ${CORDON_HOST_FLAGS})
    target_precompile_headers(cordon_pch_host PRIVATE ${CORDON_PCH_HEADERS})
    cordon_pch_sum(cordon_pch_host)
  endif()
endif()

# Asio only where the proxy is (the net layer).
add_library(cordon_asio INTERFACE)
target_include_directories(cordon_asio SYSTEM INTERFACE ${ASIO_INCLUDE_DIR})
if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  # Asio 1.22 finds co_await on clang only through the coroutines TS (__cpp_coroutines and
  # <experimental/coroutine>), which clang 16 with libstdc++ no longer offers; it has C++20's
  # coroutines, which Asio's GCC branch detects for the library part (ASIO_HAS_STD_COROUTINE).
  target_compile_definitions(cordon_asio INTERFACE ASIO_HAS_CO_AWAIT=1)
endif()

# --- The pure layers: no syscalls that read or change the host. --------------------------
cordon_layer(core SOURCES core/*.cc HEADERS core/*.h LIBS cordon_third_party)
cordon_layer(config SOURCES config/*.cc HEADERS config/*.h DEPS core)
cordon_layer(plan SOURCES plan/*.cc HEADERS plan/*.h DEPS config)
cordon_layer(commands SOURCES commands/*.cc HEADERS commands/*.h DEPS plan)
# The read-only tables are data (src/commands/data/*.txt), compiled in as text (issue 27).
file(GLOB CORDON_COMMAND_DATA CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/commands/data/*.txt)
set(CORDON_COMMAND_DATA_CC ${CMAKE_BINARY_DIR}/generated/program_data.cc)
add_custom_command(OUTPUT ${CORDON_COMMAND_DATA_CC}
  COMMAND ${CMAKE_COMMAND} "-DFILES=${CORDON_COMMAND_DATA}" -DOUT=${CORDON_COMMAND_DATA_CC}
    -P ${CMAKE_SOURCE_DIR}/cmake/EmbedText.cmake
  DEPENDS ${CORDON_COMMAND_DATA} ${CMAKE_SOURCE_DIR}/cmake/EmbedText.cmake
  COMMENT "Embedding the command policy's tables"
  VERBATIM)
target_sources(cordon_commands PRIVATE ${CORDON_COMMAND_DATA_CC})
cordon_layer(approval SOURCES approval/*.cc HEADERS approval/*.h DEPS config)
cordon_layer(files_rules SOURCES files/*_rules.cc HEADERS files/*_rules.h DEPS plan approval)
# The renderers (Plan → bwrap's options, the seccomp program, the Seatbelt profile) and the
# backend choice. seatbelt_spec.cc builds a ProcessSpec, and the Seatbelt launcher's header
# declares it: the data types of backend/linux/process.h and launcher.h are seen here, their
# functions are not linked (tests/check_pure.sh fails on any call into a higher layer).
# The seccomp compiler needs libseccomp: not in a macOS build (CORDON_MACOS_BUILD).
if(CORDON_MACOS_BUILD)
  set(CORDON_SECCOMP_SOURCE ELSEWHERE backend/linux/seccomp_bpf.cc)
else()
  set(CORDON_SECCOMP_SOURCE SOURCES backend/linux/seccomp_bpf.cc)
endif()
cordon_layer(render
  ${CORDON_SECCOMP_SOURCE}
  SOURCES backend/linux/bwrap_args.cc backend/linux/bwrap_version.cc
    backend/linux/bwrap_diagnosis.cc backend/macos/seatbelt*.cc
    backend/backend_choice.cc
  HEADERS backend/linux/bwrap_args.h backend/linux/bwrap_version.h
    backend/linux/bwrap_diagnosis.h backend/linux/seccomp_bpf.h backend/macos/seatbelt*.h
    backend/backend_choice.h
    backend/linux/process.h backend/process.h backend/linux/launcher.h backend/macos/launcher.h
    backend/linux/bwrap_status.h
  DEPS plan approval)
cordon_layer(integrations SOURCES integrations/*.cc HEADERS integrations/*.h DEPS core)

# --- The host side. -----------------------------------------------------------------------
# sys: cordon's own files (mkdir -p, atomic writes), the Cancel pipe.
cordon_layer(sys SOURCES sys/*.cc HEADERS sys/*.h DEPS core)
# The JSON-RPC protocols of `cordon serve` and `cordon mcp` on the public API's Session (any
# Session: the unit tests give a fake one). Not pure: a request's Cancel is a pipe (sys),
# and the requests run on threads.
cordon_layer(jsonrpc SOURCES server/jsonrpc*.cc HEADERS server/jsonrpc*.h DEPS approval sys)
# The machine's process table (which processes exist, their environment): /proc on Linux and
# in a pretend-macOS build here, sysctl on a Mac.
if(APPLE)
  set(CORDON_PROCESS_TABLE SOURCES backend/macos/process_table.cc
    ELSEWHERE backend/linux/process_table.cc)
else()
  set(CORDON_PROCESS_TABLE SOURCES backend/linux/process_table.cc
    ELSEWHERE backend/macos/process_table.cc)
endif()
cordon_layer(process_table ${CORDON_PROCESS_TABLE} HEADERS backend/process_table.h
  DEPS core)
# process: the one primitive that starts a process and waits for it. Linux: clone, pidfd and
# /proc (backend/linux/process.cc). macOS: the POSIX primitive (backend/posix), which a Linux
# build compiles too, as its own layer, for its tests (posix_process_tests).
# What both primitives share (backend/process_common: the child's set-up, the record of our
# children, PATH lookups, output streams) is compiled into each.
# The shared part belongs to the process layer; a macOS build's process layer has only the
# headers, and its POSIX primitive compiles the shared part.
if(CORDON_MACOS_BUILD)
  set(CORDON_PROCESS_SOURCES ELSEWHERE backend/linux/process.cc)
  set(CORDON_PROCESS_COMMON SOURCES backend/posix/*.cc ELSEWHERE backend/process_common/*.cc
    ALSO backend/process_common/*.cc)
  set(CORDON_PROCESS_IMPL process_table process_posix)
else()
  set(CORDON_PROCESS_SOURCES SOURCES backend/linux/process.cc backend/process_common/*.cc)
  set(CORDON_PROCESS_COMMON SOURCES backend/posix/*.cc ALSO backend/process_common/*.cc)
  set(CORDON_PROCESS_IMPL process_table process)
endif()
cordon_layer(process_posix ${CORDON_PROCESS_COMMON}
  HEADERS backend/posix/*.h DEPS process_table process)
cordon_layer(process ${CORDON_PROCESS_SOURCES}
  HEADERS backend/linux/process.h backend/process.h backend/linux/bwrap_status.h
    backend/process_common/*.h
  DEPS sys config process_table)
# host: the facts (lstat, realpath, git, the mount table).
cordon_layer(host SOURCES host/*.cc HEADERS host/*.h DEPS process commands files_rules)
# launch: the launchers (bwrap's; Seatbelt's, built on every system), the probes, cgroups,
# the judge runner.
# A macOS build has backend/macos/linux_absent.cc in place of bwrap's launcher, its probe and
# cgroups, and net_absent.cc in place of the NET-7 stage (every entry point says why it cannot
# run there).
set(CORDON_LINUX_LAUNCH backend/linux/launcher.cc backend/linux/probe.cc
  backend/linux/bwrap_info.cc backend/linux/cgroup*.cc)
set(CORDON_LINUX_NET backend/linux/command_proxy.cc backend/linux/net_stage.cc)
if(CORDON_MACOS_BUILD)
  set(CORDON_LAUNCH_HERE SOURCES backend/macos/linux_absent.cc ELSEWHERE ${CORDON_LINUX_LAUNCH})
  set(CORDON_NET_HERE SOURCES backend/macos/net_absent.cc ELSEWHERE ${CORDON_LINUX_NET})
else()
  set(CORDON_LAUNCH_HERE SOURCES ${CORDON_LINUX_LAUNCH} ELSEWHERE backend/macos/linux_absent.cc)
  set(CORDON_NET_HERE SOURCES ${CORDON_LINUX_NET} ELSEWHERE backend/macos/net_absent.cc)
endif()
cordon_layer(launch
  ${CORDON_LAUNCH_HERE}
  SOURCES backend/linux/judge_process.cc
    backend/macos/launcher.cc backend/macos/sandbox_exec_probe.cc backend/unconfined.cc
    backend/probe_cache.cc
  HEADERS backend/linux/launcher.h backend/linux/probe.h backend/linux/judge_process.h
    backend/linux/bwrap_info.h backend/linux/cgroup*.h
    backend/macos/launcher.h backend/macos/sandbox_exec_probe.h backend/probe_cache.h
  DEPS host render)
# net: NET-7's allowlist proxy (standalone Asio, header-only, C++20 coroutines) and the net
# stage that runs first inside a sandbox. Only commands under [network] allow start its thread.
cordon_layer(net
  ${CORDON_NET_HERE}
  SOURCES net/*.cc
  HEADERS net/*.h backend/linux/command_proxy.h backend/linux/net_stage.h
  DEPS launch LIBS Threads::Threads cordon_asio)
cordon_layer(files SOURCES files/*_tools.cc HEADERS files/*_tools.h DEPS host)
cordon_layer(review SOURCES review/*.cc HEADERS review/*.h DEPS host)
cordon_layer(session SOURCES session/*.cc HEADERS session/*.h DEPS launch net)
# api: the public C++ API (include/cordon/cordon.h) over the session; api/face_options.h is
# the faces' own (not installed).
cordon_layer(api SOURCES api/*.cc HEADERS api/*.h DEPS session files review)
cordon_layer(server SOURCES server/server*.cc HEADERS server/server*.h DEPS api jsonrpc)
set(CORDON_ALL_LAYERS ${CORDON_PURE_LAYERS} sys jsonrpc ${CORDON_PROCESS_IMPL} host launch net
  files review session api server)

# The CLI's sources are the `cordon` executable's (the top CMakeLists.txt), above every layer.
cordon_glob(source cli CORDON_CLI_SOURCES cli/*.cc)
cordon_claim(cli ${CORDON_CLI_SOURCES})
file(GLOB CORDON_CLI_HEADERS RELATIVE ${CMAKE_SOURCE_DIR}/src CONFIGURE_DEPENDS
  ${CMAKE_SOURCE_DIR}/src/cli/*.h)
set_property(GLOBAL APPEND PROPERTY CORDON_LISTED_HEADERS ${CORDON_CLI_HEADERS})

# Fails the configuration on a source under src/ that no layer claims or two claim, and on a
# header no layer lists: such a file would be silently not built, or built twice.
function(cordon_check_claims)
  get_property(claims GLOBAL PROPERTY CORDON_CLAIMS)
  get_property(listed GLOBAL PROPERTY CORDON_LISTED_HEADERS)
  file(GLOB_RECURSE all_sources RELATIVE ${CMAKE_SOURCE_DIR}/src CONFIGURE_DEPENDS
    ${CMAKE_SOURCE_DIR}/src/*.cc ${CMAKE_SOURCE_DIR}/src/*.cpp ${CMAKE_SOURCE_DIR}/src/*.c)
  file(GLOB_RECURSE all_headers RELATIVE ${CMAKE_SOURCE_DIR}/src CONFIGURE_DEPENDS
    ${CMAKE_SOURCE_DIR}/src/*.h ${CMAKE_SOURCE_DIR}/src/*.hpp)
  set(problems)
  foreach(f ${all_sources})
    set(owners)
    foreach(c ${claims})
      string(FIND "${c}" "${f}=" at)
      if(at EQUAL 0)
        string(LENGTH "${f}=" n)
        string(SUBSTRING "${c}" ${n} -1 layer)
        list(APPEND owners ${layer})
      endif()
    endforeach()
    list(REMOVE_DUPLICATES owners)
    list(LENGTH owners count)
    if(count EQUAL 0)
      list(APPEND problems "src/${f} belongs to no layer: move it into a layer's folder or "
        "add it to a layer's SOURCES in cmake/CordonLayers.cmake\n")
    elseif(count GREATER 1)
      string(REPLACE ";" ", " owners "${owners}")
      list(APPEND problems "src/${f} belongs to two layers (${owners}): keep it in one\n")
    endif()
  endforeach()
  foreach(h ${all_headers})
    list(FIND listed ${h} at)
    if(at EQUAL -1)
      list(APPEND problems "src/${h} is in no layer's HEADERS: add it to the layer of its "
        "sources in cmake/CordonLayers.cmake\n")
    endif()
  endforeach()
  if(problems)
    string(REPLACE ";" "" problems "${problems}")
    message(FATAL_ERROR "cordon's layers (cmake/CordonLayers.cmake):\n${problems}")
  endif()
endfunction()
cordon_check_claims()

set(CORDON_LINK_LIBS ${CORDON_SECCOMP_LIB} ${CORDON_RE2_LIB} Threads::Threads)

function(cordon_archive name)
  set(objects)
  foreach(l ${ARGN})
    list(APPEND objects $<TARGET_OBJECTS:cordon_${l}>)
  endforeach()
  add_library(${name} STATIC ${objects})
  foreach(l ${ARGN})
    target_link_libraries(${name} PUBLIC cordon_${l}_use)
  endforeach()
  target_link_libraries(${name} PUBLIC ${CORDON_LINK_LIBS})
endfunction()

cordon_archive(cordon_pure ${CORDON_PURE_LAYERS})
# The protocol cores over any api::Session, for their unit tests and the JSON-RPC fuzzer (with
# a fake session): cordon_pure plus jsonrpc and the sys layer it needs for Cancel.
cordon_archive(cordon_protocol sys jsonrpc)
target_link_libraries(cordon_protocol PUBLIC cordon_pure)
cordon_archive(libcordon ${CORDON_ALL_LAYERS})
set_target_properties(libcordon PROPERTIES OUTPUT_NAME cordon)
# MAC-5: the POSIX process primitive on its own, with what it needs, for its tests on Linux
# (on macOS it is libcordon's own).
if(NOT CORDON_MACOS_BUILD)
  cordon_archive(cordon_posix_primitive sys process_table process_posix)
  target_link_libraries(cordon_posix_primitive PUBLIC cordon_pure)
endif()
