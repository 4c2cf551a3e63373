# DIST-1: cordon(1) and the shell completions, printed by the built cordon from its own command
# line definition (src/cli/cli_docs.cc), so they say what --help says.
#   cmake -DCORDON=path/to/cordon -DOUT=dir -P generate_docs.cmake
file(MAKE_DIRECTORY "${OUT}")
execute_process(COMMAND "${CORDON}" __man OUTPUT_FILE "${OUT}/cordon.1" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cordon __man failed: ${rc}")
endif()
# -n: no name or time stamp inside, so the package is the same on every build.
execute_process(COMMAND gzip -9nc "${OUT}/cordon.1" OUTPUT_FILE "${OUT}/cordon.1.gz"
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gzip failed: ${rc}")
endif()
foreach(pair "bash;cordon.bash" "zsh;_cordon" "fish;cordon.fish")
  list(GET pair 0 shell)
  list(GET pair 1 name)
  execute_process(COMMAND "${CORDON}" __completion ${shell} OUTPUT_FILE "${OUT}/${name}"
    RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cordon __completion ${shell} failed: ${rc}")
  endif()
endforeach()
