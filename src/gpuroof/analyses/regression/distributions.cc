#include "gpuroof/analyses/regression/distributions.h"

#include <cmath>
#include <limits>

namespace gpuroof {

namespace {

constexpr double kSqrt2 = 1.41421356237309504880;

// Lentz's continued fraction for I_x(a, b) (Numerical Recipes 6.4), valid for
// x < (a + 1) / (a + b + 2); the caller uses the symmetry I_x(a, b) = 1 - I_{1-x}(b, a) otherwise.
double BetaContinuedFraction(double x, double a, double b) {
  constexpr double kTiny = 1e-300;
  constexpr double kEpsilon = 1e-16;
  const double qab = a + b;
  const double qap = a + 1.0;
  const double qam = a - 1.0;
  double c = 1.0;
  double d = 1.0 - qab * x / qap;
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1.0 / d;
  double h = d;
  for (int m = 1; m <= 10000; ++m) {
    const double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
    d = 1.0 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1.0 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    h *= d * c;
    aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
    d = 1.0 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1.0 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    const double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1.0) < kEpsilon) break;
  }
  return h;
}

}  // namespace

double NormalUpperTail(double z) {
  return 0.5 * std::erfc(z / kSqrt2);
}

double NormalQuantile(double p) {
  if (!(p > 0.0 && p < 1.0))
    return p == 0.0   ? -std::numeric_limits<double>::infinity()
           : p == 1.0 ? std::numeric_limits<double>::infinity()
                      : std::numeric_limits<double>::quiet_NaN();
  // Acklam's rational approximation (relative error < 1.2e-9) as the starting point ...
  static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                                 -2.759285104469687e+02, 1.383577518672690e+02,
                                 -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                                 -1.556989798598866e+02, 6.680131188771972e+01,
                                 -1.328068155288572e+01};
  static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                                 -2.400758277161838e+00, -2.549732539343734e+00,
                                 4.374664141464968e+00,  2.938163982698783e+00};
  static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
                                 2.445134137142996e+00, 3.754408661907416e+00};
  constexpr double kLow = 0.02425;
  double x = 0;
  if (p < kLow) {
    const double q = std::sqrt(-2.0 * std::log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
  } else if (p <= 1.0 - kLow) {
    const double q = p - 0.5;
    const double r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0);
  } else {
    const double q = std::sqrt(-2.0 * std::log(1.0 - p));
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
  }
  // ... then Halley steps on the tail that is small, where erfc is exact to the last bits.
  for (int step = 0; step < 3; ++step) {
    // e = Phi(x) - p, computed from whichever tail is small (1 - p is exact for p >= 0.5).
    const double e = p < 0.5 ? NormalUpperTail(-x) - p : (1.0 - p) - NormalUpperTail(x);
    const double u = e * std::sqrt(2.0 * M_PI) * std::exp(x * x / 2.0);
    x = x - u / (1.0 + x * u / 2.0);
  }
  return x;
}

double RegularizedIncompleteBeta(double x, double a, double b) {
  if (x <= 0.0) return 0.0;
  if (x >= 1.0) return 1.0;
  const double log_front =
      std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
  const double front = std::exp(log_front);
  if (x < (a + 1.0) / (a + b + 2.0)) return front * BetaContinuedFraction(x, a, b) / a;
  return 1.0 - front * BetaContinuedFraction(1.0 - x, b, a) / b;
}

double StudentTUpperTail(double t, double df) {
  // P(|T| > |t|) = I_{df/(df+t^2)}(df/2, 1/2); half of it is the tail beyond |t|.
  const double x = df / (df + t * t);
  const double two_sided = RegularizedIncompleteBeta(x, df / 2.0, 0.5);
  return t >= 0 ? two_sided / 2.0 : 1.0 - two_sided / 2.0;
}

double StudentTQuantile(double p, double df) {
  if (!(p > 0.0 && p < 1.0)) return std::numeric_limits<double>::quiet_NaN();
  if (p == 0.5) return 0.0;
  // Solve on the small tail for accuracy, by bisection down to adjacent doubles: the tail is
  // monotone, so this always converges and needs no derivative.
  const double tail = p > 0.5 ? 1.0 - p : p;
  double lo = 0.0;
  double hi = 1.0;
  while (StudentTUpperTail(hi, df) > tail && hi < 1e300)
    hi *= 2.0;
  for (int i = 0; i < 2000; ++i) {
    const double mid = lo + (hi - lo) / 2.0;
    if (mid <= lo || mid >= hi) break;
    if (StudentTUpperTail(mid, df) > tail) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  const double t = lo + (hi - lo) / 2.0;
  return p > 0.5 ? t : -t;
}

}  // namespace gpuroof
