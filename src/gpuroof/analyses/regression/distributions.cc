#include "gpuroof/analyses/regression/distributions.h"

#include <limits>

#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <boost/math/special_functions/beta.hpp>

namespace gpuroof {

namespace {

// Values outside a function's domain come back as NaN (or ±infinity) instead of exceptions: the
// gate's inputs are computed, and a NaN is reported as "no decision" by its callers.
using Policy = boost::math::policies::policy<
    boost::math::policies::domain_error<boost::math::policies::ignore_error>,
    boost::math::policies::overflow_error<boost::math::policies::ignore_error>,
    boost::math::policies::evaluation_error<boost::math::policies::ignore_error>,
    boost::math::policies::pole_error<boost::math::policies::ignore_error>>;
using Normal = boost::math::normal_distribution<double, Policy>;
using StudentT = boost::math::students_t_distribution<double, Policy>;

}  // namespace

double NormalUpperTail(double z) {
  return boost::math::cdf(boost::math::complement(Normal(), z));
}

double NormalQuantile(double p) {
  if (!(p > 0.0 && p < 1.0))
    return p == 0.0   ? -std::numeric_limits<double>::infinity()
           : p == 1.0 ? std::numeric_limits<double>::infinity()
                      : std::numeric_limits<double>::quiet_NaN();
  return boost::math::quantile(Normal(), p);
}

double RegularizedIncompleteBeta(double x, double a, double b) {
  if (x <= 0.0) return 0.0;
  if (x >= 1.0) return 1.0;
  return boost::math::ibeta(a, b, x, Policy());
}

double StudentTUpperTail(double t, double df) {
  return boost::math::cdf(boost::math::complement(StudentT(df), t));
}

double StudentTQuantile(double p, double df) {
  if (!(p > 0.0 && p < 1.0)) return std::numeric_limits<double>::quiet_NaN();
  if (p == 0.5) return 0.0;
  // From the small tail, where the quantile keeps its relative accuracy.
  return p > 0.5 ? boost::math::quantile(boost::math::complement(StudentT(df), 1.0 - p))
                 : boost::math::quantile(StudentT(df), p);
}

}  // namespace gpuroof
