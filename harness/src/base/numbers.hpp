// Numbers printed for people, other than durations (duration.hpp): one spelling per kind, so every
// writer prints a frequency, a percentage or a change alike. The HTML pages' script mirrors each
// one exactly (src/report/html/common.js, the block "---- numbers:"); tests/data/number_cases.json
// holds the values both are checked against. JSON output never goes through these: it keeps the
// numbers themselves.
//
// Every one rounds the double's exact value to the nearest, ties to even, as fmt does; a value
// that is not finite prints as fmt prints it ("inf", "-inf", "nan").
//
// Internal header.
#pragma once

#include <string>

namespace harness {

// `value` with `decimals` decimals (fmt's {:.Nf}): fixed_text(1.5, 3) is "1.500".
std::string fixed_text(double value, int decimals);

// `value` with `digits` significant digits, trailing zeros dropped, in exponent form when it is
// below 1e-4 or from 10^digits on (fmt's {:.Ng}): significant_text(0.000123456, 3) is
// "0.000123", significant_text(1234567, 3) "1.23e+06".
std::string significant_text(double value, int digits);

// `value` with its sign always shown and `decimals` decimals (fmt's {:+.Nf}): "+0.125", "-0.125".
std::string signed_fixed_text(double value, int decimals);

// `fraction` as a percentage with `decimals` decimals: percent_text(0.01234, 1) is "1.2%".
std::string percent_text(double fraction, int decimals);

// `fraction` as a percentage with `digits` significant digits, as significant_text:
// percent_significant_text(0.0005, 3) is "0.05%", (0.025, 6) "2.5%".
std::string percent_significant_text(double fraction, int digits);

// How many times another figure `ratio` is, with two decimals: factor_text(1.3) is "1.30x".
std::string factor_text(double ratio);

// A change in percent, with the decimals that show a small one: 3 below 0.1 (in magnitude), else
// 2: "0.042", "-1.25". Without the sign's "+" or the "%" (the sentence says which way).
std::string change_percent_text(double percent);

// The same with its sign and the "%": "+0.042%", "-1.25%", "+0.000%" (a table's column, a
// headline's interval).
std::string signed_change_percent_text(double percent);

// A count or amount: a whole number below 1e15 without decimals ("1200"), any other with 6
// significant digits ("2.5", "1.5e+15").
std::string amount_text(double value);

// A frequency with the unit that puts it at 1 or more (Hz, kHz, MHz, GHz), with 6 significant
// digits, 7 in MHz: "2.99997 GHz", "999.9687 MHz", "32.768 kHz".
std::string frequency_text(double hz);

}  // namespace harness
