#include "plan/leftover_record.h"

namespace cordon {

LeftoverRecord leftover_record(const Plan& plan, const LeftoverOwner& owner) {
  LeftoverRecord r;
  r.cordon_version = owner.cordon_version;
  r.session = owner.session;
  r.project = owner.project;
  r.sandboxed = plan.runner == Runner::kSandbox;
  r.owner_pid = owner.owner_pid;
  r.owner_start = owner.owner_start;
  r.command = plan.argv;
  r.started = owner.now;
  r.boot_id = owner.boot_id;
  return r;
}

void record_started(LeftoverRecord& r, int pid, long long pid_start) {
  if (pid <= 0) return;
  r.pid = pid;
  r.pid_start = pid_start;
  r.pgid = pid;
}

}  // namespace cordon
