// Numbers for people (base/numbers.hpp): every case of tests/data/number_cases.json, which the
// HTML pages' script (common.js, its numbers block) prints alike in Chromium
// (tests/e2e/duration_format_check.py, the test number_format_js).
#include "base/numbers.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

namespace harness {
namespace {

// JSON holds no infinity, no NaN and no negative zero: the table spells them.
double value_of(const nlohmann::json& v) {
  if (!v.is_string()) return v.get<double>();
  if (v == "inf") return std::numeric_limits<double>::infinity();
  if (v == "-inf") return -std::numeric_limits<double>::infinity();
  if (v == "nan") return std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(v, "-0");
  return -0.0;
}

TEST(NumberText, PrintsEveryCaseThePageDoes) {
  std::ifstream in(std::string(HARNESS_TEST_DATA_DIR) + "/number_cases.json");
  ASSERT_TRUE(in) << "tests/data/number_cases.json is missing";
  const nlohmann::json cases = nlohmann::json::parse(in).at("cases");
  ASSERT_GE(cases.size(), 50U);
  for (const nlohmann::json& c : cases) {
    const double v = value_of(c.at("value"));
    const std::string kind = c.at("kind");
    std::string text;
    if (kind == "fixed") {
      text = fixed_text(v, c.at("digits"));
    } else if (kind == "significant") {
      text = significant_text(v, c.at("digits"));
    } else if (kind == "signed_fixed") {
      text = signed_fixed_text(v, c.at("digits"));
    } else if (kind == "percent") {
      text = percent_text(v, c.at("digits"));
    } else if (kind == "percent_significant") {
      text = percent_significant_text(v, c.at("digits"));
    } else if (kind == "factor") {
      text = factor_text(v);
    } else if (kind == "change_percent") {
      text = change_percent_text(v);
    } else if (kind == "signed_change_percent") {
      text = signed_change_percent_text(v);
    } else if (kind == "amount") {
      text = amount_text(v);
    } else {
      ASSERT_EQ(kind, "frequency") << c.dump();
      text = frequency_text(v);
    }
    EXPECT_EQ(text, c.at("text").get<std::string>()) << c.dump();
  }
}

TEST(NumberText, SpellsEachKindAsItsHeaderSays) {
  EXPECT_EQ(fixed_text(1.5, 3), "1.500");
  EXPECT_EQ(significant_text(0.000123456, 3), "0.000123");
  EXPECT_EQ(significant_text(1234567, 3), "1.23e+06");
  EXPECT_EQ(percent_text(0.01234, 1), "1.2%");
  EXPECT_EQ(change_percent_text(0.042), "0.042");
  EXPECT_EQ(change_percent_text(-1.25), "-1.25");
  EXPECT_EQ(signed_fixed_text(0.125, 3), "+0.125");
  EXPECT_EQ(signed_fixed_text(-0.125, 3), "-0.125");
  EXPECT_EQ(percent_significant_text(0.0005, 3), "0.05%");
  EXPECT_EQ(percent_significant_text(0.025, 6), "2.5%");
  EXPECT_EQ(factor_text(1.3), "1.30x");
  EXPECT_EQ(signed_change_percent_text(0.042), "+0.042%");
  EXPECT_EQ(signed_change_percent_text(-1.25), "-1.25%");
  EXPECT_EQ(amount_text(1200), "1200");
  EXPECT_EQ(amount_text(2.5), "2.5");
  EXPECT_EQ(amount_text(1.5e15), "1.5e+15");
  EXPECT_EQ(frequency_text(2.99997e9), "2.99997 GHz");
  EXPECT_EQ(frequency_text(2999.968e6), "2.99997 GHz");
  EXPECT_EQ(frequency_text(2999968e3), "2.99997 GHz");
  EXPECT_EQ(frequency_text(24e6), "24 MHz");
}

}  // namespace
}  // namespace harness
