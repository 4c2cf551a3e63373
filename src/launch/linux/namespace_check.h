// LL-1: whether this process is refused the namespaces a sandbox needs, checked by doing it: a
// child makes a user and a mount namespace and makes / a slave mount (the first steps bwrap
// takes), then exits. Refused means the kernel, a seccomp filter (Docker's default profile) or
// a security module (Docker's AppArmor profile, Ubuntu's user namespace restriction) said no.
// `auto` falls back to Landlock only then: a bwrap that fails for another reason is a fault to
// report, not a machine without namespaces (launch/backend_probe.cc).
#pragma once

namespace cordon {

// True when a step was refused; false when every step worked, or when the check itself could
// not run (then nothing is concluded).
bool namespaces_refused();

}  // namespace cordon
