// LL-1: the Landlock backend's path rules, computed from the plan and the folder listings read
// on the host. Pure.
//
// Landlock only grants: a rule on a folder covers everything below it, and nothing can take a
// part back. So a hidden path is left out by granting each of its siblings, folder by folder,
// down from the root of the grant; its parents get only the right to be listed (the names in
// them, a hidden one's included, stay visible; reading a hidden file fails to open).
//
// Example: hidden {"/home/u/.ssh"}, writable {"/home/u/p"}, listings of /, /home, /home/u:
//   read grants: every entry of / but "home", every entry of /home but "u", every entry of
//   /home/u but ".ssh"; list-only grants: /, /home, /home/u; a write grant on /home/u/p.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace cordon {

enum class LandlockAccess {
  kList,       // list the folder's entries (and nothing below)
  kRead,       // read and execute everything below
  kReadWrite,  // and write, make, remove and rename below
};

struct LandlockGrant {
  std::string path;
  LandlockAccess access = LandlockAccess::kRead;
  // A sibling found in a listing: opened without following a final symlink (a link into a
  // hidden folder must not grant its target).
  bool no_follow = false;
  bool operator==(const LandlockGrant&) const = default;
};

struct LandlockInput {
  std::vector<std::string> hidden;  // absolute paths the command may not read
  // Absolute writable roots (project, temp, `writable`), as the planner made them: granted
  // even inside a hidden folder (the session's temp folder lies in cordon's hidden cache);
  // hidden paths inside them are left out.
  std::vector<std::string> writable;
  // The devices a command writes to by name (/dev/null, ...): write on the node alone.
  std::vector<std::string> devices;
  // Entry names of the folders landlock_folders_to_list() asked for, as read on the host. A
  // folder missing here could not be read: nothing below it is granted (the stricter case).
  std::map<std::string, std::vector<std::string>> listings;
};

struct LandlockRules {
  std::vector<LandlockGrant> grants;
  std::vector<std::string> unlisted;  // folders that had to be listed and were not
};

// The folders whose entries the rules need: every parent of a hidden path, from "/" down.
std::vector<std::string> landlock_folders_to_list(const std::vector<std::string>& hidden);

LandlockRules landlock_rules(const LandlockInput& in);

// The absolute paths a plan hides: its HiddenDecisions kept hidden ("~/..." under its home),
// and every path its mounts put something else over (Landlock cannot substitute: it hides).
struct Plan;
std::vector<std::string> hidden_paths_of(const Plan& plan);

// The devices every command may write: the ones shells and tools open by name.
std::vector<std::string> landlock_default_devices();

// What bubblewrap replaces with the sandbox's own and Landlock can only hide: the machine's
// terminals (/dev/pts: another terminal of the user could be read), its shared memory and
// message queues. Hidden for every command of this backend.
std::vector<std::string> landlock_machine_private();

}  // namespace cordon
