// LL-1: what decides whether this process may make namespaces, as one string: the user
// namespace it is in, its seccomp filters (a container's are inherited) and the kernel's
// settings for unprivileged user namespaces. Two processes with the same string get the same
// answer from bubblewrap; a string that changes means ask again (launch/backend_probe.cc keeps
// bubblewrap's failure under it). "-" stands for what cannot be read (another system).
#pragma once

#include <string>

namespace cordon {

std::string namespace_conditions();

}  // namespace cordon
