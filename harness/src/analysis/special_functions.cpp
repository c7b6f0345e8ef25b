// The distributions the estimators' tests need, through Boost.Math: the binomial(n, 1/2)
// distribution function (the median's order-statistic interval) and Student's t two-sided p-value
// and its quantile (the drift test, and ab's interval over pairs).
#include <cmath>

#include <boost/math/distributions/binomial.hpp>
#include <boost/math/distributions/students_t.hpp>

#include "harness/statistics.hpp"

namespace harness::stats {

namespace {

// Boost.Math's default policy throws on a domain, pole or overflow error; an argument out of its
// domain here is a bug of the caller, which the throw reports. Underflow to 0 is the answer the
// far tails need (a p-value below the smallest double is 0), not an error.
using policy = boost::math::policies::policy<
    boost::math::policies::underflow_error<boost::math::policies::ignore_error>>;

}  // namespace

double binomial_half_cdf(std::size_t n, std::size_t k) {
  if (k >= n) return 1;
  const boost::math::binomial_distribution<double, policy> b(static_cast<double>(n), 0.5);
  return boost::math::cdf(b, static_cast<double>(k));
}

double student_t_two_sided_p(double t, double dof) {
  if (std::isinf(t)) return 0;
  const boost::math::students_t_distribution<double, policy> d(dof);
  return 2 * boost::math::cdf(boost::math::complement(d, std::fabs(t)));
}

double student_t_two_sided_quantile(double level, double dof) {
  const boost::math::students_t_distribution<double, policy> d(dof);
  return boost::math::quantile(boost::math::complement(d, (1 - level) / 2));
}

}  // namespace harness::stats
