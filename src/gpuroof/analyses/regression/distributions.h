// Normal and Student-t tails and quantiles for the regression gate (docs/metrics.md, "compare").
// Thin wrappers over Boost.Math (a maintained, tested library) rather than hand-written special
// functions; the worked examples of refs/regression-gate.md §5 hold to 1e-12 with them.
#pragma once

namespace gpuroof {

// Q(z) = P(Z > z) for a standard normal Z, through erfc so the far tail keeps its accuracy.
double NormalUpperTail(double z);

// The p-quantile of the standard normal (0 < p < 1): z with P(Z <= z) = p.
double NormalQuantile(double p);

// P(T > t) for Student's t with `df` > 0 degrees of freedom.
double StudentTUpperTail(double t, double df);

// The p-quantile of Student's t with `df` > 0 degrees of freedom (0 < p < 1).
double StudentTQuantile(double p, double df);

// The regularized incomplete beta function I_x(a, b), 0 <= x <= 1, a, b > 0.
double RegularizedIncompleteBeta(double x, double a, double b);

}  // namespace gpuroof
