// Special functions the estimators' tests need: the binomial(n, 1/2) distribution function (the
// median's order-statistic interval) and Student's t two-sided p-value through the regularized
// incomplete beta function (the drift test).
#include <algorithm>
#include <cmath>

#include "harness/statistics.hpp"

namespace harness::stats {

namespace {

// Regularized incomplete beta I_x(a, b) by its continued fraction (modified Lentz), which
// converges quickly for x < (a + 1) / (a + b + 2); the symmetry I_x(a, b) = 1 - I_{1-x}(b, a)
// covers the rest.
double incomplete_beta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  if (x > (a + 1) / (a + b + 2)) return 1 - incomplete_beta(b, a, 1 - x);
  constexpr double kTiny = 1e-300;
  constexpr double kEpsilon = 1e-15;
  constexpr int kMaxTerms = 1000;
  double f = kTiny;
  double c = f;
  double d = 0;
  for (int j = 0; j <= kMaxTerms; ++j) {
    double numerator = 1;
    if (j > 0) {
      const double m = j / 2;
      numerator = j % 2 == 0 ? m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
                             : -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
    }
    d = 1 + numerator * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    d = 1 / d;
    c = 1 + numerator / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    const double delta = c * d;
    f *= delta;
    if (std::fabs(delta - 1) < kEpsilon) break;
  }
  const double log_front =
      a * std::log(x) + b * std::log1p(-x) - (std::lgamma(a) + std::lgamma(b) - std::lgamma(a + b));
  return std::exp(log_front) / a * f;
}

}  // namespace

double binomial_half_cdf(std::size_t n, std::size_t k) {
  if (k >= n) return 1;
  // Sum from k downwards, where terms shrink geometrically once below the mode; past the middle,
  // the symmetric complement keeps the sum short.
  if (2 * k > n) return 1 - binomial_half_cdf(n, n - k - 1);
  const double nd = static_cast<double>(n);
  double j = static_cast<double>(k);
  double term = std::exp(std::lgamma(nd + 1) - std::lgamma(j + 1) - std::lgamma(nd - j + 1) -
                         nd * std::log(2.0));
  double sum = 0;
  while (term > 0) {
    sum += term;
    if (j == 0 || term < sum * 1e-17) break;
    term *= j / (nd - j + 1);  // C(n, j-1) / C(n, j)
    j -= 1;
  }
  return std::min(sum, 1.0);
}

double student_t_two_sided_p(double t, double dof) {
  if (std::isinf(t)) return 0;
  return incomplete_beta(dof / 2, 0.5, dof / (dof + t * t));
}

}  // namespace harness::stats
