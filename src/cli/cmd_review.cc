#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "core/strings.h"
#include "host/facts_reader.h"
#include "host/path_info.h"
#include "review/review.h"

namespace cordon {

int cmd_review(const CliContext& ctx, const ReviewArgs& args) {
  std::string project =
      real_or_lexical(args.project.empty() ? find_project_root(ctx.cwd) : args.project);
  std::string session = args.session.empty() ? ctx.env.value("CORDON_SESSION") : args.session;
  std::string record = review_record_path(ctx.folders, project, session);
  if (args.start) {
    auto rec = review_start(project, ctx.env, record);
    if (!rec.ok()) {
      print_error(rec.error().message);
      return 1;
    }
    std::printf("review started at commit %s (%zu ignored files recorded in %s)\n",
                rec->commit.c_str(), rec->ignored.size(), record.c_str());
    return 0;
  }
  auto r = review_run(project, ctx.env, record);
  if (!r.ok()) {
    print_error(r.error().message);
    return 1;
  }
  // The names are the command's (files it added): printable before shown (issue 13).
  for (auto* v : {&r->replace_refs, &r->changed, &r->added, &r->added_ignored})
    for (auto& name : *v) name = printable(name);
  if (args.json) {
    nlohmann::json j{
        {"commit", r->commit}, {"replace_refs", r->replace_refs},   {"changed", r->changed},
        {"added", r->added},   {"added_ignored", r->added_ignored}, {"limits", r->limits}};
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::fputs(format_review(*r).c_str(), stdout);
  }
  return r->replace_refs.empty() ? 0 : 2;
}

}  // namespace cordon
