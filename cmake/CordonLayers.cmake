# cordon's layers (docs/architecture.md draws the graph), enforced by the build.
#
# A layer is a folder: the layer <name> is src/<name>/, and nothing else (issue 29). Code for one
# system lives in the layer's src/<name>/linux/ or src/<name>/macos/ subfolder.
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

# Every source under src/ belongs to exactly one layer (issue 29), the one whose folder holds
# it. A layer compiles src/<name>/*.cc and its system's subfolder (src/<name>/linux/*.cc, or
# macos/ in a macOS build); it owns the other system's subfolder too, which this configuration
# does not compile (claimed "elsewhere"). Every header under src/<name>/, src/<name>/linux/ and
# src/<name>/macos/ is in its include tree, whatever the system (declarations that the other
# system's stand-ins define). cordon_check_claims, at the end, fails the configuration on a
# source no layer claims or two do, and on a header in no layer's folder.
set_property(GLOBAL PROPERTY CORDON_CLAIMS "")
set_property(GLOBAL PROPERTY CORDON_LISTED_HEADERS "")
if(CORDON_MACOS_BUILD)
  set(CORDON_OS macos)
else()
  set(CORDON_OS linux)
endif()
set(CORDON_SYSTEMS linux macos)

# cordon_claim(<layer> <files>...): records that <layer> owns these sources.
function(cordon_claim layer)
  foreach(f ${ARGN})
    file(RELATIVE_PATH rel ${CMAKE_SOURCE_DIR}/src ${f})
    set_property(GLOBAL APPEND PROPERTY CORDON_CLAIMS "${rel}=${layer}")
  endforeach()
endfunction()

# cordon_glob(<out> <globs>...): the files under src/ matching the globs (none is fine).
function(cordon_glob out)
  set(all)
  foreach(g ${ARGN})
    file(GLOB found CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/${g})
    list(APPEND all ${found})
  endforeach()
  set(${out} ${all} PARENT_SCOPE)
endfunction()

# cordon_layer(<name> [OS <system>] [NOT_HERE] [ALSO <layers>] [DEPS <layers>] [LIBS <targets>])
# The layer of the folder src/<name>/. OS names the system subfolder to compile when it is not
# this build's (the process table: a pretend-macOS build on Linux reads /proc). NOT_HERE: the
# layer owns its sources but another layer compiles them (ALSO). ALSO compiles the common
# sources (src/<layer>/*.cc) of the layers named a second time, without claiming them.
# Defines the OBJECT library cordon_<name> and the INTERFACE library cordon_<name>_use (its
# include tree, its deps' trees, LIBS), for the layers above.
function(cordon_layer name)
  cmake_parse_arguments(L "NOT_HERE" "OS" "ALSO;DEPS;LIBS" ${ARGN})
  if(NOT L_OS)
    set(L_OS ${CORDON_OS})
  endif()
  set(src ${CMAKE_SOURCE_DIR}/src)
  set(tree ${CORDON_LAYER_ROOT}/${name})
  if(NOT IS_DIRECTORY ${src}/${name})
    message(FATAL_ERROR "layer ${name}: src/${name}/ does not exist (cmake/CordonLayers.cmake)")
  endif()
  file(MAKE_DIRECTORY ${tree})
  cordon_glob(sources ${name}/*.cc ${name}/${L_OS}/*.cc)
  set(elsewhere)
  foreach(os ${CORDON_SYSTEMS})
    if(NOT os STREQUAL L_OS)
      cordon_glob(other ${name}/${os}/*.cc)
      list(APPEND elsewhere ${other})
    endif()
  endforeach()
  cordon_claim(${name} ${sources} ${elsewhere})
  if(L_NOT_HERE)
    set(sources)
  endif()
  foreach(l ${L_ALSO})
    cordon_glob(also ${l}/*.cc)
    list(APPEND sources ${also})
  endforeach()
  set(header_globs ${name}/*.h)
  foreach(os ${CORDON_SYSTEMS})
    list(APPEND header_globs ${name}/${os}/*.h)
  endforeach()
  cordon_glob(headers ${header_globs})
  foreach(h ${headers})
    file(RELATIVE_PATH rel ${src} ${h})
    set_property(GLOBAL APPEND PROPERTY CORDON_LISTED_HEADERS ${rel})
    get_filename_component(dir ${tree}/${rel} DIRECTORY)
    file(MAKE_DIRECTORY ${dir})
    file(CREATE_LINK ${h} ${tree}/${rel} SYMBOLIC)
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
if(CORDON_PCH AND CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  # clang records its inputs' times in a precompiled header and refuses it when they differ;
  # ccache may give back one made in another checkout.
  add_compile_options(-Xclang -fno-pch-timestamp)
  # The header named to the driver (`-include`), which takes the .pch beside it: CMake's own
  # form passes both paths behind -Xclang, where ccache leaves the absolute path of this
  # checkout in the hash, so another checkout never hit (measured: 0 of 2 across two clones).
  set(CMAKE_CXX_COMPILE_OPTIONS_USE_PCH -include <PCH_HEADER>)
endif()
set(CORDON_PCH_HEADERS <fmt/format.h> <nlohmann/json.hpp> <algorithm> <functional> <map>
  <memory> <optional> <set> <string> <string_view> <vector>)
# Flags for the host layers only (after the tree's): the sanitizer tree compiles them at -O0
# and the pure layers at -O1 (scripts/build_sanitizer_tree.sh), where the fuzz targets and the
# planner spend their time; -O1 with the sanitizers triples a source's compile time. The host
# layers then have a precompiled header of their own flags (clang refuses one of others).
set(CORDON_HOST_CXX_FLAGS "" CACHE STRING "Extra compile flags for the host layers and the CLI")
separate_arguments(CORDON_HOST_FLAGS NATIVE_COMMAND "${CORDON_HOST_CXX_FLAGS}")
# The pure layers: no syscalls that read or change the host (defined below, in this order).
set(CORDON_PURE_LAYERS core config plan commands approval file_rules render integrations audit)
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
      -DHEADER=${dir}/cmake_pch.hxx -DOUT=${out} -DSRC=${CMAKE_SOURCE_DIR} -DBIN=${CMAKE_BINARY_DIR}
      -P ${CMAKE_SOURCE_DIR}/cmake/PchSum.cmake
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
cordon_layer(core LIBS cordon_third_party)
cordon_layer(config DEPS core)
cordon_layer(plan DEPS config)
cordon_layer(commands DEPS plan)
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
cordon_layer(approval DEPS config)
# file_rules: what the file tools decide (credential names, text, search), without reading.
cordon_layer(file_rules DEPS plan approval)
# render: Plan -> bwrap's options, bwrap's status protocol, the Seatbelt profile, the backend
# choice; the seccomp compiler (render/linux/: libseccomp, not in a macOS build).
cordon_layer(render DEPS plan approval)
cordon_layer(integrations DEPS core)
# audit: AUD-1's audit log as values: its events, their redaction, the hash chain and its check.
cordon_layer(audit DEPS core)

# --- The host side. -----------------------------------------------------------------------
# sys: cordon's own files (mkdir -p, atomic writes), the Cancel pipe.
cordon_layer(sys DEPS core)
# The JSON-RPC protocols of `cordon serve` and `cordon mcp` on the public API's Session (any
# Session: the unit tests give a fake one). Not pure: a request's Cancel is a pipe (sys),
# and the requests run on threads.
cordon_layer(jsonrpc DEPS approval sys)
# The machine's process table (which processes exist, their environment): /proc on Linux
# (process_table/linux/) and in a pretend-macOS build here, sysctl on a Mac (macos/, the one
# source that needs macOS headers): chosen by the system built on, not by the configuration.
if(APPLE)
  cordon_layer(process_table OS macos DEPS core)
else()
  cordon_layer(process_table OS linux DEPS core)
endif()
# process: the one primitive that starts a process and waits for it (process/process.h).
# Linux: clone, pidfd and /proc (process/linux/process.cc; bwrap's status parsed by
# render/bwrap_status.h). macOS: the POSIX primitive (process_posix/), which a Linux build
# compiles too, as its own layer, for its tests (posix_process_tests). What both primitives
# share (process/*.cc: the child's set-up, the record of our children, PATH lookups, output
# streams) belongs to the process layer and is compiled into each primitive: in a macOS build
# the process layer has only its headers (NOT_HERE) and process_posix compiles the shared part.
if(CORDON_MACOS_BUILD)
  cordon_layer(process NOT_HERE DEPS sys config process_table render)
  set(CORDON_PROCESS_IMPL process_table process_posix)
else()
  cordon_layer(process DEPS sys config process_table render)
  set(CORDON_PROCESS_IMPL process_table process)
endif()
cordon_layer(process_posix ALSO process DEPS process_table process)
# host: the facts (lstat, realpath, git, the mount table).
cordon_layer(host DEPS process commands file_rules)
# launch: the launchers (bwrap's in launch/linux/; Seatbelt's, built on every system), the
# probes, cgroups, the judge runner. A macOS build has launch/macos/linux_absent.cc in place of
# bwrap's launcher, its probe and cgroups (every entry point says why it cannot run there).
cordon_layer(launch DEPS host render)
# net: NET-7's allowlist proxy (standalone Asio, header-only, C++20 coroutines) and the net
# stage that runs first inside a sandbox (net/linux/; net/macos/net_absent.cc stands in for it
# in a macOS build). Only commands under [network] allow start its thread.
# PERF-1: OpenSSL is loaded when first needed (net/openssl_api.h), not linked, except on macOS;
# the two sources that call it are built on their own, as net/openssl_calls.h requires.
if(APPLE)
  set(CORDON_NET_OPENSSL OpenSSL::SSL OpenSSL::Crypto)
else()
  add_library(cordon_openssl_headers INTERFACE)
  target_include_directories(cordon_openssl_headers SYSTEM INTERFACE ${OPENSSL_INCLUDE_DIR})
  set(CORDON_NET_OPENSSL cordon_openssl_headers ${CMAKE_DL_LIBS})
endif()
cordon_layer(net DEPS launch LIBS Threads::Threads cordon_asio ${CORDON_NET_OPENSSL})
set_source_files_properties(${CMAKE_SOURCE_DIR}/src/net/cert_authority.cc
  ${CMAKE_SOURCE_DIR}/src/net/credential_relay.cc PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
# file_tools: the file tools (read, write, edit, search) on the host.
cordon_layer(file_tools DEPS host)
cordon_layer(review DEPS host)
cordon_layer(session DEPS launch net audit)
# api: the public C++ API (include/cordon/cordon.h) over the session; api/face_options.h is
# the faces' own (not installed).
cordon_layer(api DEPS session file_tools review)
# PERF-1: the policy builder (for embedders) on its own, so that a program that does not use it
# links none of it: its TOML printer is the only user of the maths library (log10), which the
# cordon program then need not load at every start (0.1 ms).
set_source_files_properties(${CMAKE_SOURCE_DIR}/src/api/policy_builder.cc
  PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
cordon_layer(server DEPS api jsonrpc)
set(CORDON_ALL_LAYERS ${CORDON_PURE_LAYERS} sys jsonrpc ${CORDON_PROCESS_IMPL} host launch net
  file_tools review session api server)

# The CLI's sources are the `cordon` executable's (the top CMakeLists.txt), above every layer.
cordon_glob(CORDON_CLI_SOURCES cli/*.cc)
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
      list(APPEND problems "src/${f} belongs to no layer: move it into its layer's folder "
        "(src/<layer>/, or src/<layer>/linux/ or macos/ for one system's code; "
        "cmake/CordonLayers.cmake)\n")
    elseif(count GREATER 1)
      string(REPLACE ";" ", " owners "${owners}")
      list(APPEND problems "src/${f} belongs to two layers (${owners}): keep it in one\n")
    endif()
  endforeach()
  foreach(h ${all_headers})
    list(FIND listed ${h} at)
    if(at EQUAL -1)
      list(APPEND problems "src/${h} is in no layer's folder: move it to its sources' "
        "(src/<layer>/, or src/<layer>/linux/ or macos/; cmake/CordonLayers.cmake)\n")
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
