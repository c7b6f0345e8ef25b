// Every named enum (harness/enum_names.hpp): each enumerator has a non-empty identifier and
// wording, no identifier twice, and parse_id reads each identifier back to its enumerator. The
// tables are checked when compiled too (tests/compile_fail/enum_table_cases.cpp).
#include "harness/enum_names.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "ab/worker_protocol.hpp"
#include "harness/ab.hpp"
#include "harness/ab_report.hpp"
#include "harness/clock.hpp"
#include "harness/clock_survey.hpp"
#include "harness/compare.hpp"
#include "harness/doctor.hpp"
#include "harness/floor.hpp"
#include "harness/format_template.hpp"
#include "harness/platform.hpp"
#include "harness/report.hpp"
#include "harness/runner.hpp"
#include "harness/speed_probe.hpp"
#include "harness/statistics.hpp"
#include "report/html.hpp"

namespace harness {
namespace {

template <typename E>
class EnumNames : public ::testing::Test {};

using named_enums =
    ::testing::Types<stats::stability, floor_finding, compare::outcome, report_format, ab_mode,
                     html::page_kind, clock_kind, step_rule, doctor::status,
                     platform::priority_level, probe_kind, worker_protocol::error_kind, ab_order,
                     ab_verdict, ab_stop, phase_kind, stop_reason, run_stage, setup_kind,
                     compare::estimator, value_kind, template_errc>;
TYPED_TEST_SUITE(EnumNames, named_enums);

TYPED_TEST(EnumNames, EveryEnumeratorHasDistinctNamesThatReadBack) {
  using E = TypeParam;
  const auto& rows = names_table<E>();
  ASSERT_GE(rows.size(), 2U);
  std::set<std::string> ids;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const E e = static_cast<E>(i);
    EXPECT_EQ(rows[i].value, e);
    EXPECT_FALSE(id_of(e).empty()) << i;
    EXPECT_FALSE(to_string(e).empty()) << i;
    EXPECT_TRUE(ids.insert(std::string(id_of(e))).second) << "twice: " << id_of(e);
    const std::optional<E> back = parse_id<E>(id_of(e));
    ASSERT_TRUE(back.has_value()) << id_of(e);
    EXPECT_EQ(*back, e);
  }
  EXPECT_FALSE(parse_id<E>("").has_value());
  EXPECT_FALSE(parse_id<E>("no such name").has_value());
  // A value outside the enum (a cast bug) is refused loudly, not named.
  EXPECT_THROW(static_cast<void>(id_of(static_cast<E>(rows.size()))), std::out_of_range);
}

// The spellings the reports print (goldens, JSON schema) for the enums whose identifier and
// wording differ.
TEST(EnumNames, IdentifiersAndWordingsStayAsTheReportsSpellThem) {
  EXPECT_EQ(id_of(stats::stability::too_few), "too_few_samples");
  EXPECT_EQ(to_string(stats::stability::too_few), "too few samples");
  EXPECT_EQ(id_of(compare::outcome::undefined), "not_compared");
  EXPECT_EQ(to_string(compare::outcome::undefined), "not compared");
  EXPECT_EQ(id_of(phase_kind::first), "first");
  EXPECT_EQ(to_string(phase_kind::first), "first call");
  EXPECT_EQ(id_of(run_stage::batch_calibration), "calibration");
  EXPECT_EQ(to_string(run_stage::batch_calibration), "batch calibration");
  EXPECT_EQ(to_string(ab_verdict::same), "no difference beyond the threshold");
  EXPECT_EQ(to_string(ab_stop::failed), "a side reported an error");
  EXPECT_EQ(to_string(probe_kind::tight_loop), "tight loop");
  EXPECT_EQ(instance_index(phase_kind::prepared), 2);
  EXPECT_EQ(id_of(setup_kind::per_call), "per_call");
  EXPECT_EQ(to_string(setup_kind::per_argument), "setup per argument");
  EXPECT_EQ(id_of(compare::estimator::median_shift), "median_shift");
  EXPECT_EQ(to_string(value_kind::real), "a real number");
  EXPECT_EQ(to_string(template_errc::unmatched_close),
            "'}' closes no field (write }} for a literal brace)");
}

}  // namespace
}  // namespace harness
