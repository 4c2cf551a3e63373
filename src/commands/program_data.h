// The text of the read-only tables (src/commands/data/*.txt), compiled in at build time by
// cmake/EmbedText.cmake: the commands layer reads no file at run time. Pure.
#pragma once

#include <string_view>
#include <vector>

namespace cordon {

struct DataFile {
  std::string_view name;  // "coreutils.txt"
  std::string_view text;
};

// Every data file, in name order.
const std::vector<DataFile>& program_data_files();

}  // namespace cordon
