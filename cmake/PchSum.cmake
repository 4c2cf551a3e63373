# Writes OUT, the checksum ccache reads instead of a precompiled header (pch_external_checksum):
# a precompiled header differs from build to build even from the same input (GCC's is a memory
# image), so hashing it makes every object that uses it miss in another checkout. The sum is of
# what the header means: the compiler's version, the flags, and the header preprocessed with
# those flags (without line markers, so the checkout's path is not in it). DEPFILE lists the
# headers read, so a changed third-party header makes a new sum.
# The checkout's and the build tree's paths in the flags (-I) are replaced by placeholders, so a
# clone elsewhere has the same sum.
# Arguments: CXX, FLAGS (joined by '|'), HEADER, OUT, SRC and BIN (the two trees).
string(REPLACE "|" ";" FLAGS "${FLAGS}")
execute_process(COMMAND ${CXX} ${FLAGS} -E -P -x c++-header -include ${HEADER} /dev/null
  -MD -MF ${OUT}.d -MT ${OUT}
  OUTPUT_VARIABLE text RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cannot preprocess ${HEADER} for its checksum (${CXX} exited ${rc})")
endif()
execute_process(COMMAND ${CXX} --version OUTPUT_VARIABLE version)
set(shown "${FLAGS}")
string(REPLACE "${BIN}" "<build>" shown "${shown}")
string(REPLACE "${SRC}" "<source>" shown "${shown}")
string(SHA256 sum "${version}\n${shown}\n${text}")
file(WRITE ${OUT} "${sum}\n")
