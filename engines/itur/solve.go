package itur

import "math"

// solveDecreasing finds x in [lo, hi] with f(x) = target for a continuous,
// positive f that does not increase on the interval, f(lo) ≥ target ≥
// f(hi), to within tol in x (the end nearer the root when the target is
// outside [f(hi), f(lo)]). It solves ln f(x) − ln target = 0, which is close
// to linear in the fade depth for every distribution here (p ∝ 10^(−A/10)
// in the deep tails), by Brent's method (R. P. Brent, Algorithms for
// Minimization without Derivatives, 1973, ch. 4: inverse quadratic
// interpolation and secant steps kept inside a bisection bracket): about
// ten evaluations for 1e-9 dB.
func solveDecreasing(pf func(float64) float64, target, lo, hi, tol float64) float64 {
	lt := math.Log(target)
	f := func(x float64) float64 { return math.Log(pf(x)) - lt }
	a, b := lo, hi
	fa, fb := f(a), f(b)
	if fa <= 0 {
		return a
	}
	if fb >= 0 {
		return b
	}
	c, fc := a, fa
	d := b - a
	e := d
	for i := 0; i < 100; i++ {
		if (fb > 0) == (fc > 0) {
			c, fc = a, fa
			d = b - a
			e = d
		}
		if math.Abs(fc) < math.Abs(fb) {
			a, b, c = b, c, b
			fa, fb, fc = fb, fc, fb
		}
		tol1 := 2*2.2e-16*math.Abs(b) + 0.5*tol
		xm := 0.5 * (c - b)
		if math.Abs(xm) <= tol1 || fb == 0 {
			return b
		}
		if math.Abs(e) >= tol1 && math.Abs(fa) > math.Abs(fb) {
			var p, q float64
			s := fb / fa
			if a == c {
				p = 2 * xm * s
				q = 1 - s
			} else {
				qq := fa / fc
				r := fb / fc
				p = s * (2*xm*qq*(qq-r) - (b-a)*(r-1))
				q = (qq - 1) * (r - 1) * (s - 1)
			}
			if p > 0 {
				q = -q
			}
			p = math.Abs(p)
			if 2*p < math.Min(3*xm*q-math.Abs(tol1*q), math.Abs(e*q)) {
				e = d
				d = p / q
			} else {
				d = xm
				e = d
			}
		} else {
			d = xm
			e = d
		}
		a, fa = b, fb
		if math.Abs(d) > tol1 {
			b += d
		} else if xm > 0 {
			b += tol1
		} else {
			b -= tol1
		}
		fb = f(b)
	}
	return b
}
