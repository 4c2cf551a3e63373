// The host side of the command policy's symlink check (CMD-5): where a path really leads.
#pragma once

#include <string>

#include "commands/classify.h"

namespace cordon {

// realpath() of the longest existing prefix of `path`, with the rest appended; "" for a path
// longer than PATH_MAX or not absolute.
//   resolve_path_for_policy("/home/u/proj/keys/x")  // "/home/u/.ssh/x" when keys -> ~/.ssh
std::string resolve_path_for_policy(const std::string& path);

// The resolver to put in ClassifyContext::resolve on a real machine.
PathResolver host_path_resolver();

}  // namespace cordon
