// The Markdown report: the summary table and the spread comparison, ready to paste into a pull
// request, with one line saying what the figures are and where they were measured.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <ostream>

#include "harness/report.hpp"
#include "report/counters.hpp"
#include "report/summary.hpp"

namespace harness {

using report_detail::markdown_escape;

void write_markdown_report(std::ostream& out, const report_model& model) {
  const run_report& report = *model.run;
  const clock_source& clock = *report.clock.clock;
  const run_context& c = report.context;
  fmt::print(out, "### harness results\n\n");
  if (report.source) {
    fmt::print(out, "{}: `{}`. Figures: {}; spread = max - min, in % of min{}.",
               markdown_escape(report.source->tool), report.source->command,
               markdown_escape(report.source->sample), report_detail::rate_columns_note(model));
  } else {
    fmt::print(out,
               "Ticks of `{}` per call ({} a tick), timer overhead subtracted; spread = "
               "max - min, in % of min; disturbed = samples during host slow-downs or context "
               "switches{}.",
               clock.name(), report_detail::tick_text(clock.ticks_per_second(), true),
               report_detail::rate_columns_note(model));
  }
  if (!c.harness_version.empty()) fmt::print(out, " harness {}", c.harness_version);
  if (!c.host_name.empty()) fmt::print(out, " on {}", markdown_escape(c.host_name));
  if (!c.date.empty()) fmt::print(out, ", {}", c.date);
  fmt::print(out, "\n\n{}",
             report_detail::render_markdown(report_detail::summary_of(model, true).table));
  bool any = false;
  for (const workload_analysis& w : model.workloads) {
    const std::string sentence =
        report_detail::preparation_sentence(w, report.options.tuning.host_slowdown_factor);
    if (!sentence.empty()) {
      fmt::print(out, "{}- {}\n", any ? "" : "\n", markdown_escape(sentence));
      any = true;
    }
    if (w.result->failed()) {
      fmt::print(out, "{}- **{} failed** in {}: {}\n", any ? "" : "\n",
                 markdown_escape(w.result->name), markdown_escape(w.result->failure->where()),
                 markdown_escape(w.result->failure->what()));
      any = true;
    }
    if (w.result->interrupted) {
      fmt::print(out, "{}- {}: interrupted, results so far\n", any ? "" : "\n",
                 markdown_escape(w.result->name));
      any = true;
    }
  }
  report_detail::write_markdown_counters(out, model);
}

}  // namespace harness
