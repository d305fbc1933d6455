package itm

import "math"

// Table-driven exp, log, log10 and cbrt for the ITM hot paths.
//
// Each function aims at the accuracy of the math package (error below one
// ulp of the correctly rounded result) at roughly half its cost. The
// common idea is a table-driven range reduction that leaves a tiny
// remainder, a short polynomial on that remainder, and a final step whose
// only sizeable error is its own rounding (half an ulp); everything else
// is kept a few hundred times smaller.
//
// Polynomials are truncated Taylor series (the remainder ranges are so
// small that a minimax fit is not needed); the truncation bounds are
// stated at each function. The constants and tables below the functions
// were generated from math/big evaluations by the test
// TestFastmathTables (FASTMATH_GEN=1 go test -run TestFastmathTables
// ./engines/itm rewrites them), which also checks every entry bit for bit.
//
// Fused multiply-add: the code is deterministic on amd64, where Go never
// fuses. Where the compiler may fuse (arm64, ppc64, s390x) the error
// bounds still hold: every fusable product is either exact or enters a
// sum whose error bound only shrinks when one rounding is dropped, and the
// places that need an unfused product (the exact residual in logF and
// log10F, r·(1/ln10) in log10F) force it with an explicit float64
// conversion and take its error from math.FMA.
//
// Measured maximum errors against the math/big references, correctly
// rounded (TestFastmathRandom with FASTMATH_N=2000000 FASTMATH_SEED=20261126:
// 2,000,000 arguments of the ITM ranges and 2,000,000 of the whole float64
// range per function, plus the named edge cases of TestFastmathSpecial):
//
//	expF    0.5102 ulp (ITM range); 0.7503 ulp where the result is
//	        subnormal (double rounding), 0.51 elsewhere
//	logF    0.5150 ulp (just above 1)
//	log10F  0.5147 ulp (just above 1)
//	cbrtF   0.5045 ulp
//
// Speed (BenchmarkFastmath, amd64 GOAMD64=v1, 2 shared cores, ns per call,
// minimum of 5 runs, this function / math package): throughput exp
// 3.5–3.7 / 6.6–6.7, log 4.2–4.5 / 7.5, log10 5.3–5.4 / 7.9, cbrt
// 5.0 / 7.7; chained latency exp 15.0 / 36.0, log 17.3 / 32.9, log10
// 18.4 / 33.7, cbrt 23.2 / 39.7. math.FMA costs logF and log10F about
// 0.5 ns on GOAMD64=v1 (a feature test and spills around the fallback).
//
// The math package itself is not always within one ulp: math.Log10 rounds
// twice (up to about 1.5 ulp), and on amd64 math.Exp returns +Inf from
// about 709.44 on and math.Log is wrong for subnormal arguments (golang/go
// issue 56600).

// expF returns e**x.
//
// Method: x = k·ln2/128 + r with k = round(x·128/ln2), |r| ≤ ln2/256.
// ln2/128 is split as a 35-bit head and a tail, so k·head is exact and
// x − k·head is exact (Sterbenz). e**x = 2^(k>>7) · 2^((k&127)/128) · e^r,
// where 2^(j/128) = T_j·(1+t_j) is a table of the rounded value T_j and
// its relative tail t_j. e^r − 1 is the degree-5 Taylor polynomial:
// truncation r^6/720 ≤ 5.4e-19 relative (0.005 ulp). The result is
// s + s·u with s = 2^(k>>7)·T_j and u = t_j + r + r²/2 + … (|u| < 0.0028),
// so the error is the final rounding plus about 0.003 ulp. Results that
// are subnormal are scaled, computed normal and rounded once more by the
// final multiplication (error still below one ulp of the subnormal).
func expF(x float64) float64 {
	ux := math.Float64bits(x) &^ (1 << 63)
	if ux >= 0x4084a00000000000 { // |x| ≥ 660, ±Inf, NaN
		return expSpecial(x)
	}
	kd := x*expInvLn2N + expShift
	ki := math.Float64bits(kd)
	kd -= expShift
	r := (x - kd*expLn2HiN) - kd*expLn2LoN
	j := ki % 128
	scale := math.Float64frombits(expScale[j] + (ki>>7)<<52)
	r2 := r * r
	u := expTail[j] + r + r2*(expC2+r*expC3) + r2*r2*(expC4+r*expC5)
	return scale + scale*u
}

// expSpecial is expF for |x| ≥ 660, ±Inf and NaN. Below −660 the product
// s·u of expF could be subnormal and lose up to a quarter ulp of a result
// near 2^-1021; here it is formed 2^1022 larger.
func expSpecial(x float64) float64 {
	switch {
	case x != x:
		return x
	case x > expOverflow:
		return math.Inf(1)
	case x < -746: // e**x < 2^-1076: rounds to +0
		return 0
	}
	kd := x*expInvLn2N + expShift
	ki := math.Float64bits(kd)
	kd -= expShift
	r := (x - kd*expLn2HiN) - kd*expLn2LoN
	j := ki % 128
	r2 := r * r
	u := expTail[j] + r + r2*(expC2+r*expC3) + r2*r2*(expC4+r*expC5)
	if x > 0 { // 2^(k>>7) may reach 2^1024: build it 2^-1009 smaller
		scale := math.Float64frombits(expScale[j] + (ki>>7)<<52 - 1009<<52)
		return (scale + scale*u) * 0x1p1009
	}
	// the result may be subnormal: build it 2^1022 larger
	scale := math.Float64frombits(expScale[j] + (ki>>7)<<52 + 1022<<52)
	return (scale + scale*u) * 0x1p-1022
}

const (
	expShift    = 0x1.8p52              // adding it rounds to an integer kept in the low mantissa bits
	expOverflow = 0x1.62e42fefa39efp+09 // largest x with e**x < MaxFloat64 + ulp/2
	expC2       = 1.0 / 2
	expC3       = 1.0 / 6
	expC4       = 1.0 / 24
	expC5       = 1.0 / 120
)

// logF returns the natural logarithm of x.
//
// Method: x = 2^k·z with z in [0.6855, 1.3711) (the offset puts 1 in the
// middle of a subinterval); the top 7 bits of z's offset mantissa pick one
// of 128 subintervals with centre c (c = 1 exactly for the one around 1).
// With ic ≈ 1/c from the table, log x = k·ln2 − log(ic) + log1p(z·ic − 1),
// where log(ic) is tabulated as a head (a multiple of 2^-42) and a tail.
// The residual r = z·ic − 1 is made exact as the pair
// (fl(z·ic) − 1, fma(z, ic, −fl(z·ic))) (the subtraction is exact by
// Sterbenz), |r| ≤ 2^-8; the error term pe enters as pe·(1 − r), its
// first-order effect on log1p (dropping the −r·pe would cost up to half
// an ulp just above 1). k·ln2hi + log(ic) head is exact (multiples of
// 2^-42 below 2^10); adding r is done as an exact two-sum; the small terms
// (tails, residual error term, log1p(r) − r) are added last.
// log1p(r) − r is the Taylor polynomial −r²/2 + … + r^7/7: truncation
// r^8/8 ≤ 2^-59 relative to the result even where log x ≈ r. The error is
// the final rounding plus about 0.01 ulp.
func logF(x float64) float64 {
	ix := math.Float64bits(x)
	if ix-0x0010000000000000 >= 0x7fe0000000000000 { // not a positive normal finite number
		var v float64
		var done bool
		if ix, v, done = logSpecial(x); done {
			return v
		}
	}
	tmp := ix - logOff
	e := &logTab[(tmp>>45)%128]
	kd := float64(int64(tmp) >> 52)
	z := math.Float64frombits(ix - tmp&(0xfff<<52))
	p := float64(z * e.ic)
	pe := math.FMA(z, e.ic, -p)
	r := p - 1
	w := kd*logLn2Hi + e.hi
	hi := w + r
	lo := (w - hi) + r
	r2 := r * r
	poly := r2*(logA2+r*logA3) + r2*r2*(logA4+r*logA5+r2*(logA6+r*logA7))
	return hi + (lo + (kd*logLn2Lo + e.lo + (pe - r*pe)) + poly)
}

// logSpecial handles what logF and log10F do not reduce (x not a positive
// normal finite number): done and the logarithm v for NaN, zeros,
// negative numbers and +Inf (v is both logarithms'); for a subnormal x the
// bit pattern of x·2^52 with 52 taken off its exponent field (then only
// used through integer arithmetic; 0 for 2^-1023).
func logSpecial(x float64) (ix uint64, v float64, done bool) {
	switch {
	case x != x:
		return 0, x, true
	case x == 0:
		return 0, math.Inf(-1), true
	case x < 0:
		return 0, math.NaN(), true
	case x > math.MaxFloat64:
		return 0, x, true
	}
	return math.Float64bits(x*0x1p52) - 52<<52, 0, false
}

// log10F returns the decimal logarithm of x.
//
// Method: logF's reduction with tables of −log10(ic) (head a multiple of
// 2^-42, tail) and k·log10(2) split the same way, so that only log1p(r)
// needs the factor 1/ln10: r·(1/ln10) is formed exactly as a head and an
// FMA error term, the polynomial has the coefficients of logF times
// 1/ln10 (rounded), and the error terms are added last. The error is the
// final rounding plus about 0.02 ulp; powers of ten up to 1e22 give exact
// integers.
func log10F(x float64) float64 {
	ix := math.Float64bits(x)
	if ix-0x0010000000000000 >= 0x7fe0000000000000 {
		var v float64
		var done bool
		if ix, v, done = logSpecial(x); done {
			return v
		}
	}
	tmp := ix - logOff
	e := &logTab[(tmp>>45)%128]
	kd := float64(int64(tmp) >> 52)
	z := math.Float64frombits(ix - tmp&(0xfff<<52))
	p := float64(z * e.ic)
	pe := math.FMA(z, e.ic, -p)
	r := p - 1
	rh := float64(r * invLn10Hi)
	rl := math.FMA(r, invLn10Hi, -rh)
	w := kd*log10Ln2Hi + e.hi10
	hi := w + rh
	lo := (w - hi) + rh
	r2 := r * r
	poly := r2*(log10B2+r*log10B3) + r2*r2*(log10B4+r*log10B5+r2*(log10B6+r*log10B7))
	return hi + (lo + (rl + r*invLn10Lo + kd*log10Ln2Lo + e.lo10 + (pe-r*pe)*invLn10Hi) + poly)
}

const (
	logOff = 0x3fe5f00000000000 // bits of 0.6855…: z ranges over [logOff, 2·logOff)
	logA2  = -1.0 / 2
	logA3  = 1.0 / 3
	logA4  = -1.0 / 4
	logA5  = 1.0 / 5
	logA6  = -1.0 / 6
	logA7  = 1.0 / 7
)

// logEntry is one subinterval of logF and log10F: ic ≈ 1/c,
// −log(ic) = hi + lo and −log10(ic) = hi10 + lo10.
type logEntry struct{ ic, hi, lo, hi10, lo10 float64 }

// cbrtF returns the cube root of x.
//
// Method: |x| = 2^(3q+s)·m with s in {0,1,2}, m in [1,2); m' = 2^s·m is
// in [1,8). The top 7 mantissa bits and s pick one of 384 subintervals
// with a 17-bit c ≈ cbrt(centre), c3 = c³ (exact in 51 bits) and
// ic3 ≈ 1/c3. v = (m' − c3)·ic3 (the subtraction is exact by Sterbenz),
// |v| ≤ 2^-8 + 2^-16, and cbrt(m') = c·(1+v)^(1/3) = c + c·v·q(v) with
// q(v) the degree-5 Taylor polynomial of ((1+v)^(1/3) − 1)/v: truncation
// |v|^7·7/… ≤ 2^-61.7 relative. The error is the final rounding plus
// about 0.01 ulp; the exponent 2^q is put back exactly through the bits.
func cbrtF(x float64) float64 {
	ix := math.Float64bits(x)
	sign := ix & (1 << 63)
	ax := ix &^ (1 << 63)
	var adj uint64
	if ax-0x0010000000000000 >= 0x7fe0000000000000 { // ±0, subnormal, ±Inf, NaN
		if ax == 0 || ax >= 0x7ff0000000000000 {
			return x
		}
		ax = math.Float64bits(math.Float64frombits(ax) * 0x1p54)
		adj = 18 << 52
	}
	t := ax>>52 + 3          // biased exponent + 3 = 3·(q+342) + s, below 2^12
	q3 := (t * 0x5556) >> 16 // t/3: exact for t < 2^15 (0x5556/2^16 − 1/3 < 1/(3·2^15))
	s := t - 3*q3
	e := &cbrtTab[s<<7|(ax>>45)%128]
	m := math.Float64frombits(ax&(1<<52-1) | (s+1023)<<52)
	v := (m - e.c3) * e.ic3
	cv := e.c * v
	v2 := v * v
	qv := (cbrtA1 + v*cbrtA2) + v2*(cbrtA3+v*cbrtA4) + v2*v2*(cbrtA5+v*cbrtA6)
	y := e.c + cv*qv
	return math.Float64frombits(math.Float64bits(y) + q3<<52 - 342<<52 - adj | sign)
}

const (
	cbrtA1 = 1.0 / 3
	cbrtA2 = -1.0 / 9
	cbrtA3 = 5.0 / 81
	cbrtA4 = -10.0 / 243
	cbrtA5 = 22.0 / 729
	cbrtA6 = -154.0 / 6561
)

// cbrtEntry is one subinterval of cbrtF.
type cbrtEntry struct{ c, c3, ic3 float64 }

// BEGIN GENERATED TABLES
// Generated by TestFastmathTables from math/big evaluations (ln2 by its
// atanh series, exp by scaled Taylor series, log by Halley steps, cbrt by
// Newton steps, all at 160 bits); do not edit by hand.
const (
	expInvLn2N = 0x1.71547652b82fep+07  // 128/ln2
	expLn2HiN  = 0x1.62e42fefcp-08      // ln2/128 to 35 bits
	expLn2LoN  = -0x1.c610ca86c3899p-44 // ln2/128 − expLn2HiN
	logLn2Hi   = 0x1.62e42fefa38p-01    // ln2 to a multiple of 2^-42
	logLn2Lo   = 0x1.ef35793c7673p-45   // ln2 − logLn2Hi
	invLn10Hi  = 0x1.bcb7b1526e50ep-02  // 1/ln10
	invLn10Lo  = 0x1.95355baaafad3p-57  // 1/ln10 − invLn10Hi
	log10Ln2Hi = 0x1.34413509f8p-02     // log10(2) to a multiple of 2^-42
	log10Ln2Lo = -0x1.80433b83b532ap-44 // log10(2) − log10Ln2Hi
	log10B2    = -0x1.bcb7b1526e50ep-03 // (−1)^(n+1)/(n·ln10), n = 2
	log10B3    = 0x1.287a7636f435fp-03  // (−1)^(n+1)/(n·ln10), n = 3
	log10B4    = -0x1.bcb7b1526e50ep-04 // (−1)^(n+1)/(n·ln10), n = 4
	log10B5    = 0x1.63c62775250d8p-04  // (−1)^(n+1)/(n·ln10), n = 5
	log10B6    = -0x1.287a7636f435fp-04 // (−1)^(n+1)/(n·ln10), n = 6
	log10B7    = 0x1.fc3fa615105c7p-05  // (−1)^(n+1)/(n·ln10), n = 7
)

// expScale[j] is the bit pattern of 2^(j/128) rounded to nearest.
var expScale = [128]uint64{
	0x3ff0000000000000, 0x3ff0163da9fb3335, 0x3ff02c9a3e778061, 0x3ff04315e86e7f85,
	0x3ff059b0d3158574, 0x3ff0706b29ddf6de, 0x3ff0874518759bc8, 0x3ff09e3ecac6f383,
	0x3ff0b5586cf9890f, 0x3ff0cc922b7247f7, 0x3ff0e3ec32d3d1a2, 0x3ff0fb66affed31b,
	0x3ff11301d0125b51, 0x3ff12abdc06c31cc, 0x3ff1429aaea92de0, 0x3ff15a98c8a58e51,
	0x3ff172b83c7d517b, 0x3ff18af9388c8dea, 0x3ff1a35beb6fcb75, 0x3ff1bbe084045cd4,
	0x3ff1d4873168b9aa, 0x3ff1ed5022fcd91d, 0x3ff2063b88628cd6, 0x3ff21f49917ddc96,
	0x3ff2387a6e756238, 0x3ff251ce4fb2a63f, 0x3ff26b4565e27cdd, 0x3ff284dfe1f56381,
	0x3ff29e9df51fdee1, 0x3ff2b87fd0dad990, 0x3ff2d285a6e4030b, 0x3ff2ecafa93e2f56,
	0x3ff306fe0a31b715, 0x3ff32170fc4cd831, 0x3ff33c08b26416ff, 0x3ff356c55f929ff1,
	0x3ff371a7373aa9cb, 0x3ff38cae6d05d866, 0x3ff3a7db34e59ff7, 0x3ff3c32dc313a8e5,
	0x3ff3dea64c123422, 0x3ff3fa4504ac801c, 0x3ff4160a21f72e2a, 0x3ff431f5d950a897,
	0x3ff44e086061892d, 0x3ff46a41ed1d0057, 0x3ff486a2b5c13cd0, 0x3ff4a32af0d7d3de,
	0x3ff4bfdad5362a27, 0x3ff4dcb299fddd0d, 0x3ff4f9b2769d2ca7, 0x3ff516daa2cf6642,
	0x3ff5342b569d4f82, 0x3ff551a4ca5d920f, 0x3ff56f4736b527da, 0x3ff58d12d497c7fd,
	0x3ff5ab07dd485429, 0x3ff5c9268a5946b7, 0x3ff5e76f15ad2148, 0x3ff605e1b976dc09,
	0x3ff6247eb03a5585, 0x3ff6434634ccc320, 0x3ff6623882552225, 0x3ff68155d44ca973,
	0x3ff6a09e667f3bcd, 0x3ff6c012750bdabf, 0x3ff6dfb23c651a2f, 0x3ff6ff7df9519484,
	0x3ff71f75e8ec5f74, 0x3ff73f9a48a58174, 0x3ff75feb564267c9, 0x3ff780694fde5d3f,
	0x3ff7a11473eb0187, 0x3ff7c1ed0130c132, 0x3ff7e2f336cf4e62, 0x3ff80427543e1a12,
	0x3ff82589994cce13, 0x3ff8471a4623c7ad, 0x3ff868d99b4492ed, 0x3ff88ac7d98a6699,
	0x3ff8ace5422aa0db, 0x3ff8cf3216b5448c, 0x3ff8f1ae99157736, 0x3ff9145b0b91ffc6,
	0x3ff93737b0cdc5e5, 0x3ff95a44cbc8520f, 0x3ff97d829fde4e50, 0x3ff9a0f170ca07ba,
	0x3ff9c49182a3f090, 0x3ff9e86319e32323, 0x3ffa0c667b5de565, 0x3ffa309bec4a2d33,
	0x3ffa5503b23e255d, 0x3ffa799e1330b358, 0x3ffa9e6b5579fdbf, 0x3ffac36bbfd3f37a,
	0x3ffae89f995ad3ad, 0x3ffb0e07298db666, 0x3ffb33a2b84f15fb, 0x3ffb59728de5593a,
	0x3ffb7f76f2fb5e47, 0x3ffba5b030a1064a, 0x3ffbcc1e904bc1d2, 0x3ffbf2c25bd71e09,
	0x3ffc199bdd85529c, 0x3ffc40ab5fffd07a, 0x3ffc67f12e57d14b, 0x3ffc8f6d9406e7b5,
	0x3ffcb720dcef9069, 0x3ffcdf0b555dc3fa, 0x3ffd072d4a07897c, 0x3ffd2f87080d89f2,
	0x3ffd5818dcfba487, 0x3ffd80e316c98398, 0x3ffda9e603db3285, 0x3ffdd321f301b460,
	0x3ffdfc97337b9b5f, 0x3ffe264614f5a129, 0x3ffe502ee78b3ff6, 0x3ffe7a51fbc74c83,
	0x3ffea4afa2a490da, 0x3ffecf482d8e67f1, 0x3ffefa1bee615a27, 0x3fff252b376bba97,
	0x3fff50765b6e4540, 0x3fff7bfdad9cbe14, 0x3fffa7c1819e90d8, 0x3fffd3c22b8f71f1,
}

// expTail[j] is (2^(j/128) − T_j)/T_j, T_j the value of expScale[j].
var expTail = [128]float64{
	0, 0x1.b3b4f1a88bf6ep-54, -0x1.160139cd8dc5dp-56, -0x1.05e7a108766d1p-54,
	0x1.cd2523567f613p-55, -0x1.bce8023f98efap-55, 0x1.0f74e61e6c861p-57, 0x1.0a3e45b33d399p-54,
	0x1.79aa65d837b6dp-54, 0x1.eb51a92fdeffcp-55, 0x1.ebe3d702f9cd1p-60, -0x1.a033489906e0bp-57,
	-0x1.556522a2fbd0ep-54, -0x1.080ef8c4eea55p-58, -0x1.1c923b9d5f416p-54, 0x1.0d3e3e95c55afp-55,
	-0x1.01b15eaa59348p-55, -0x1.f1ff055de323dp-55, 0x1.b898c3f1353bfp-55, -0x1.6d99c7611eb26p-54,
	0x1.aecf73e3a2f6p-54, -0x1.fe782cb86389dp-55, 0x1.a6f4144a6c38dp-55, 0x1.07a05b0e4047dp-55,
	0x1.68efde3a8a894p-54, 0x1.75e18f274487dp-55, 0x1.0472b981fe7f2p-55, -0x1.6b87b3f71085ep-54,
	0x1.2f7e16d09ab31p-55, -0x1.d219b1a6fbffap-60, 0x1.b3782720c0ab4p-55, 0x1.e149289cecb8fp-57,
	0x1.34d754db0abb6p-55, 0x1.64201e2ac744cp-55, 0x1.fdd395dd3f84ap-55, -0x1.6a3803b8e5b04p-55,
	-0x1.24aedcc4b5068p-54, -0x1.907f81b512d8ep-54, -0x1.1d1e83e9436d2p-56, -0x1.91919b3ce1b15p-54,
	0x1.59f48a72a4c6dp-55, -0x1.312607a28698ap-54, -0x1.8a78f4817895bp-58, -0x1.c2c9b67499a1bp-56,
	0x1.363ed60c2ac11p-59, 0x1.666093b0664efp-54, 0x1.ecce1daa10379p-57, 0x1.3ff8e3f0f123p-54,
	0x1.690cebb7aafbp-56, 0x1.31dbdeb54e077p-54, -0x1.f94340071a38ep-55, -0x1.7deccdc93a349p-55,
	-0x1.8dec6bd0f385fp-56, -0x1.61246ec7b5cf6p-55, 0x1.3350518fdd78ep-54, 0x1.b98b72f8a9b05p-56,
	0x1.063e1e21c5409p-54, 0x1.4c7855019c6eap-60, 0x1.432e62b64c035p-54, -0x1.ce44a6199769fp-55,
	-0x1.c33c53bef4da8p-55, -0x1.45378892be9aep-55, -0x1.3cedd78565858p-54, 0x1.710aa807e1964p-58,
	-0x1.3b3efbf5e2228p-54, -0x1.a12ad8734b982p-57, -0x1.367efb86da9eep-57, -0x1.0dc3d54e08851p-55,
	-0x1.81f647e5a3ecfp-56, -0x1.6ee4ac08b7dbp-55, -0x1.619321e55e68ap-55, 0x1.09ccb5e09d4d3p-54,
	-0x1.b32dcb94da51dp-56, 0x1.4ecfd5467c06bp-54, 0x1.5ebe1abd66c55p-57, -0x1.8a1c52fb3cf42p-55,
	-0x1.369b6f13b3734p-54, -0x1.05e843a19ff1ep-55, -0x1.4d450d872576ep-54, 0x1.0ad675b0e8ap-54,
	0x1.db72fc1f0eab4p-55, -0x1.5b6609cc5e7ffp-57, 0x1.bf68359f35f44p-56, -0x1.3091fa71e3d83p-54,
	-0x1.da9b88b6c1e29p-58, -0x1.c23f97c90b959p-57, -0x1.2434322f4f9aap-54, -0x1.5ca6cd7668e4bp-55,
	0x1.1affc2b91ce27p-56, 0x1.dd235e10a73bbp-57, -0x1.7c50422622263p-55, 0x1.b1c86e3e231d5p-55,
	-0x1.1bbd1d3bcbb15p-54, 0x1.0cc319cee31d2p-54, 0x1.469846e735ab3p-55, -0x1.2dfcd978e9db4p-55,
	0x1.c1a7792cb3387p-55, -0x1.07b8f4ad1d9fap-54, -0x1.5c3d956dcaebap-58, -0x1.0a40e3da6f64p-54,
	-0x1.8d6f438ad9334p-57, -0x1.1eee26b588a35p-54, 0x1.4ffd70a5fddcdp-56, -0x1.1bdfbfa9298acp-54,
	0x1.36eae30af0cb3p-56, 0x1.ee3325c9ffd94p-55, 0x1.4e08fd10959acp-55, 0x1.3cdaf384e1a67p-57,
	0x1.76b2c6c921968p-57, -0x1.08a1883ccb5d2p-55, -0x1.fad5d3ffffa6fp-55, -0x1.00dae3875a949p-54,
	0x1.4a385a63d07a7p-56, -0x1.2919e2040220fp-55, 0x1.e5a50d5c192acp-55, 0x1.43a59ac016b4bp-55,
	-0x1.2d52107b43e1fp-55, -0x1.92ab93b470dc9p-55, 0x1.4b604603a88d3p-56, 0x1.3c5ec519d7271p-55,
	-0x1.ff7128fd391fp-55, -0x1.dae98e223747dp-55, 0x1.ec3bc41aa2008p-55, 0x1.42b94c3a9eb32p-55,
	0x1.a64a931d185eep-55, -0x1.e37bae43be3edp-55, 0x1.7893b4d91cd9dp-56, 0x1.305c14160cc89p-58,
}

// logTab[i]: ic = 1/c rounded (c the centre of subinterval i, 1 for i = 80)
// and −log(ic) as hi (a multiple of 2^-42) + lo, −log10(ic) as hi10 + lo10.
var logTab = [128]logEntry{
	{0x1.745d1745d1746p+00, -0x1.7fafa3bd81p-02, -0x1.471b79bf6d4cbp-44, -0x1.4d43f8275ap-03, -0x1.20e665a6e1996p-45},
	{0x1.724287f46debcp+00, -0x1.79e26687dp-02, 0x1.30a0168817444p-44, -0x1.4839e83506p-03, -0x1.90d062422c2c3p-44},
	{0x1.702e05c0b817p+00, -0x1.741d876c68p-02, 0x1.13c7b5b11cfa7p-44, -0x1.43371cde08p-03, 0x1.27d4d06c5fc3ep-44},
	{0x1.6e1f76b4337c7p+00, -0x1.6e60ee6af2p-02, 0x1.a3556a0f7749ep-44, -0x1.3e3b814974p-03, 0x1.8acbaaf877fe8p-45},
	{0x1.6c16c16c16c17p+00, -0x1.68ac83e9c7p-02, 0x1.7acd66c548a3p-44, -0x1.394700f796p-03, 0x1.8047e636f7abbp-44},
	{0x1.6a13cd153729p+00, -0x1.630030b3abp-02, 0x1.dbc23e731aep-45, -0x1.345987bfeep-03, -0x1.52007f783a641p-44},
	{0x1.6816816816817p+00, -0x1.5d5bddf596p-02, 0x1.9de2a08a465dcp-47, -0x1.2f7301cf4ep-03, -0x1.0f8386f6bbf2cp-44},
	{0x1.661ec6a5122f9p+00, -0x1.57bf753c8dp-02, -0x1.fadadee5d40efp-46, -0x1.2a935ba5f2p-03, 0x1.70e0ecb2cce49p-44},
	{0x1.642c8590b2164p+00, -0x1.522ae0738ap-02, -0x1.eba708164c759p-45, -0x1.25ba8215bp-03, 0x1.0089d896499b2p-44},
	{0x1.623fa7701624p+00, -0x1.4c9e09e173p-02, 0x1.e18891b0ad8a4p-45, -0x1.20e8624038p-03, -0x1.fdb036b01493ap-44},
	{0x1.6058160581606p+00, -0x1.4718dc271cp-02, -0x1.071d8fb4c14c5p-44, -0x1.1c1ce9955cp-03, -0x1.8e08637bec25cp-48},
	{0x1.5e75bb8d015e7p+00, -0x1.419b423d5fp-02, 0x1.ce7a9226de3ecp-44, -0x1.175805d158p-03, -0x1.f0133131c4bbdp-45},
	{0x1.5c9882b931057p+00, -0x1.3c25277333p-02, -0x1.83454b606bd5cp-46, -0x1.1299a4fb3ep-03, -0x1.82958e580baf4p-46},
	{0x1.5ac056b015acp+00, -0x1.36b6776be1p-02, -0x1.15ecdb0f177c8p-46, -0x1.0de1b56356p-03, -0x1.606f0f91cefb8p-44},
	{0x1.58ed2308158edp+00, -0x1.314f1e1d36p-02, 0x1.8e5bad3213cb8p-45, -0x1.093025a19ap-03, 0x1.129853fae0fd7p-44},
	{0x1.571ed3c506b3ap+00, -0x1.2bef07cdc9p-02, -0x1.aa5ba4a5004f4p-45, -0x1.0484e4942ap-03, -0x1.488632f147e31p-44},
	{0x1.5555555555555p+00, -0x1.269621134ep-02, 0x1.1ba1f10522625p-44, -0x1.ffbfc2bbc8p-04, 0x1.ff91cd0d41d8bp-46},
	{0x1.5390948f40febp+00, -0x1.214456d0ecp-02, 0x1.cac5428b728a3p-44, -0x1.f68216c9ccp-04, -0x1.c9ee6fe35a954p-46},
	{0x1.51d07eae2f815p+00, -0x1.1bf99635a7p-02, 0x1.1ade9575c2125p-44, -0x1.ed50a4a27p-04, 0x1.504a1336f875p-44},
	{0x1.5015015015015p+00, -0x1.16b5ccbadp-02, 0x1.232a9042d74bfp-44, -0x1.e42b4c16ccp-04, 0x1.50d7ef9181e55p-44},
	{0x1.4e5e0a72f0539p+00, -0x1.1178e8227ep-02, -0x1.1e9b8ce2d07f2p-44, -0x1.db11ed766cp-04, 0x1.40e4c6bd2cacap-44},
	{0x1.4cab88725af6ep+00, -0x1.0c42d67616p-02, -0x1.70d4b163ceae9p-45, -0x1.d204698cb4p-04, -0x1.5d1a7f583efd9p-47},
	{0x1.4afd6a052bf5bp+00, -0x1.07138604d6p-02, 0x1.e70124e912b17p-44, -0x1.c902a19e64p-04, -0x1.1141c89d9d30ep-44},
	{0x1.49539e3b2d067p+00, -0x1.01eae5626cp-02, -0x1.a44ecfade85aep-44, -0x1.c00c776724p-04, 0x1.a34f657ee84f7p-44},
	{0x1.47ae147ae147bp+00, -0x1.f991c6cb3cp-03, 0x1.90b84cd7cc834p-44, -0x1.b721cd1714p-04, -0x1.7e33cbb4338c4p-44},
	{0x1.460cbc7f5cf9ap+00, -0x1.ef5ade4ddp-03, 0x1.ad11565bb8e11p-51, -0x1.ae42855098p-04, -0x1.50abec9debf1p-44},
	{0x1.446f86562d9fbp+00, -0x1.e530effe72p-03, 0x1.fdafbb13f7c18p-44, -0x1.a56e8325f4p-04, -0x1.c8750348ccdd4p-44},
	{0x1.42d6625d51f87p+00, -0x1.db13db0d48p-03, -0x1.2813a847527e6p-44, -0x1.9ca5aa1728p-04, -0x1.f4501a054aa74p-44},
	{0x1.4141414141414p+00, -0x1.d1037f2656p-03, 0x1.8527e75b6f6e4p-47, -0x1.93e7de0fc4p-04, 0x1.80e361f2a4f9fp-48},
	{0x1.3fb013fb013fbp+00, -0x1.c6ffbc6fp-03, -0x1.ee128d3a69d43p-44, -0x1.8b350364c8p-04, 0x1.da8cbb0640c3p-44},
	{0x1.3e22cbce4a902p+00, -0x1.bd087383bep-03, 0x1.d5844595412b6p-45, -0x1.828cfed29cp-04, 0x1.dee06a087583ap-44},
	{0x1.3c995a47babe7p+00, -0x1.b31d8575bcp-03, -0x1.c75de562a63cbp-44, -0x1.79efb57b1p-04, 0x1.ff87a70d1a841p-46},
	{0x1.3b13b13b13b14p+00, -0x1.a93ed3c8aep-03, 0x1.86a4350562169p-45, -0x1.715d0ce368p-04, 0x1.40a56a54960abp-46},
	{0x1.3991c2c187f63p+00, -0x1.9f6c40708ap-03, 0x1.33aa94bcd3f43p-44, -0x1.68d4eaf26cp-04, -0x1.7ed1a6c14fbecp-44},
	{0x1.3813813813814p+00, -0x1.95a5adcf7p-03, -0x1.8262858a0ff6fp-47, -0x1.605735ee98p-04, -0x1.7cf19cda2156cp-46},
	{0x1.3698df3de0748p+00, -0x1.8beafeb39p-03, 0x1.71154aae92cd1p-47, -0x1.57e3d47c3cp-04, 0x1.082a2a2e7662ep-44},
	{0x1.3521cfb2b78c1p+00, -0x1.823c16551ap-03, -0x1.e02db9a631e83p-46, -0x1.4f7aad9bbcp-04, -0x1.75b4528f34a43p-45},
	{0x1.33ae45b57bcb2p+00, -0x1.7898d85444p-03, -0x1.8e81be3dbaf3fp-44, -0x1.471ba8a7ep-04, 0x1.d483ce0ec2ba8p-44},
	{0x1.323e34a2b10bfp+00, -0x1.6f0128b756p-03, -0x1.571d90d31ef0fp-44, -0x1.3ec6ad5408p-04, 0x1.e67919405418bp-46},
	{0x1.30d190130d19p+00, -0x1.6574ebe8c2p-03, 0x1.98d1d34f0f462p-44, -0x1.367ba3aaap-04, -0x1.882193f9c3f0cp-44},
	{0x1.2f684bda12f68p+00, -0x1.5bf406b544p-03, 0x1.28023eb68981cp-46, -0x1.2e3a740b78p-04, -0x1.9af15fdc3bc7p-53},
	{0x1.2e025c04b8097p+00, -0x1.527e5e4a1cp-03, 0x1.4e61b8d4b411dp-44, -0x1.2603072a24p-04, -0x1.f82261330032cp-44},
	{0x1.2c9fb4d812cap+00, -0x1.4913d8333cp-03, 0x1.53a43558124c4p-44, -0x1.1dd5460c8cp-04, 0x1.d1f03f29743bp-45},
	{0x1.2b404ad012b4p+00, -0x1.3fb45a5992p-03, -0x1.19313c0cae559p-44, -0x1.15b11a094cp-04, 0x1.e5817407c606bp-44},
	{0x1.29e4129e4129ep+00, -0x1.365fcb015ap-03, 0x1.fd720afb9691bp-44, -0x1.0d966cc65p-04, -0x1.f0690fe283eb2p-49},
	{0x1.288b01288b013p+00, -0x1.2d1610c868p-03, -0x1.3d0eccb81b4a1p-47, -0x1.0585283764p-04, -0x1.7a8f9f1b1aa68p-48},
	{0x1.27350b8812735p+00, -0x1.23d712a49cp-03, -0x1.00aa38fd3df5cp-46, -0x1.fafa6d398p-05, 0x1.02574c9f44cc4p-45},
	{0x1.25e22708092f1p+00, -0x1.1aa2b7e24p-03, 0x1.1ad48dde3b366p-44, -0x1.eafd050358p-05, -0x1.e9d1cb2c2aa27p-44},
	{0x1.2492492492492p+00, -0x1.1178e8227ep-03, -0x1.1e778ce2d07f2p-45, -0x1.db11ed7668p-05, -0x1.5f85cb66cbb6cp-44},
	{0x1.23456789abcdfp+00, -0x1.08598b59e4p-03, 0x1.7e5fd7009902cp-45, -0x1.cb38fccd88p-05, -0x1.fedadc2b5ddd1p-44},
	{0x1.21fb78121fb78p+00, -0x1.fe89139dbcp-04, -0x1.56494d82f7a82p-44, -0x1.bb7209d1ep-05, -0x1.2723a30c0ebbap-44},
	{0x1.20b470c67c0d9p+00, -0x1.ec739830ap-04, -0x1.1267ba80cdd1p-44, -0x1.abbcebd85p-05, 0x1.ad31fa1043b27p-48},
	{0x1.1f7047dc11f7p+00, -0x1.da72763844p-04, -0x1.a79401fa71733p-46, -0x1.9c197abfp-05, -0x1.ba6dc5ea8fbadp-46},
	{0x1.1e2ef3b3fb874p+00, -0x1.c885801bc4p-04, -0x1.63f51c65aacd3p-45, -0x1.8c878eeb08p-05, 0x1.7c779d4e3c4b3p-44},
	{0x1.1cf06ada2811dp+00, -0x1.b6ac88dad4p-04, -0x1.b1cbff50225c7p-44, -0x1.7d070145f8p-05, 0x1.813f90e0f1ffp-44},
	{0x1.1bb4a4046ed29p+00, -0x1.a4e7640b1cp-04, 0x1.e4336b94407c8p-47, -0x1.6d97ab3ba8p-05, 0x1.0f7ef77aab5a6p-44},
	{0x1.1a7b9611a7b96p+00, -0x1.9335e5d594p-04, -0x1.30f5c3abd47dap-45, -0x1.5e3966b7e8p-05, -0x1.2943d5df4868p-45},
	{0x1.19453808ca29cp+00, -0x1.8197e2f41p-04, 0x1.c102460d20041p-44, -0x1.4eec0e2458p-05, -0x1.e5f8415b0e1f1p-46},
	{0x1.1811811811812p+00, -0x1.700d30aeacp-04, -0x1.d068da99ded32p-49, -0x1.3faf7c663p-05, -0x1.84f93590d207fp-47},
	{0x1.16e0689427379p+00, -0x1.5e95a4d978p-04, -0x1.1ccace1d17171p-44, -0x1.30838cdc3p-05, 0x1.007f2c35c91cp-47},
	{0x1.15b1e5f75270dp+00, -0x1.4d3115d208p-04, 0x1.53e2582f4e1efp-48, -0x1.21681b5c9p-05, 0x1.ef66f5f598848p-44},
	{0x1.1485f0e0acd3bp+00, -0x1.3bdf5a7d2p-04, 0x1.1a1e0ad125895p-44, -0x1.125d0432e8p-05, -0x1.1043e90214cd5p-44},
	{0x1.135c81135c811p+00, -0x1.2aa04a447p-04, -0x1.7a16ba8b1cb41p-44, -0x1.0362241e6p-05, -0x1.c74d44718ea0ap-44},
	{0x1.12358e75d3033p+00, -0x1.1973bd1464p-04, -0x1.560a154f930b3p-44, -0x1.e8eeb09f3p-06, 0x1.28047d8aa9cacp-47},
	{0x1.1111111111111p+00, -0x1.08598b59e4p-04, 0x1.7e9dd7009902cp-46, -0x1.cb38fccd9p-06, 0x1.00994d322030ep-44},
	{0x1.0fef010fef011p+00, -0x1.eea31c0068p-05, -0x1.c3de83606d891p-44, -0x1.ada2e8e3ep-06, -0x1.51bd8914d3563p-44},
	{0x1.0ecf56be69c9p+00, -0x1.ccb73cddd8p-05, -0x1.967c36e09f5fep-44, -0x1.902c31d63p-06, 0x1.5ee44492f3c77p-44},
	{0x1.0db20a88f4696p+00, -0x1.aaef2d0fbp-05, -0x1.1085a353bb42ep-45, -0x1.72d4956cap-06, -0x1.038b7f657478dp-45},
	{0x1.0c9714fbcda3bp+00, -0x1.894aa149f8p-05, -0x1.9a55a8be97661p-44, -0x1.559bd2407p-06, 0x1.e1fb8df282d87p-45},
	{0x1.0b7e6ec259dc8p+00, -0x1.67c94f2d48p-05, -0x1.db2a0827cca0cp-44, -0x1.3881a7b82p-06, 0x1.c1595a1f5b7d7p-44},
	{0x1.0a6810a6810a7p+00, -0x1.466aed42ep-05, 0x1.c073375bdfd28p-45, -0x1.1b85d6045p-06, 0x1.644c26bc6a844p-46},
	{0x1.0953f39010954p+00, -0x1.252f32f8dp-05, -0x1.8401ae021b67bp-45, -0x1.fd503c39p-07, -0x1.3c7fe9a99b653p-45},
	{0x1.0842108421084p+00, -0x1.0415d89e78p-05, 0x1.ddfc7f461c516p-44, -0x1.c3d083778p-07, -0x1.30e6a783022c9p-45},
	{0x1.073260a47f7c6p+00, -0x1.c63d2ec15p-06, 0x1.54a3ce030a687p-44, -0x1.8a8c06bb2p-07, 0x1.6917e524523dap-46},
	{0x1.0624dd2f1a9fcp+00, -0x1.8492528c9p-06, 0x1.a9dba325a0c34p-45, -0x1.51824c758p-07, -0x1.fad4325227e8bp-45},
	{0x1.05197f7d73404p+00, -0x1.432a92598p-06, -0x1.97739928637fep-47, -0x1.18b2dc8d2p-07, -0x1.771918d3bc468p-44},
	{0x1.041041041041p+00, -0x1.020565893p-06, -0x1.60dd27c8e8417p-44, -0x1.c03a80ae4p-08, -0x1.e037b75a0a4adp-44},
	{0x1.03091b51f5e1ap+00, -0x1.82448a388p-07, -0x1.4506412c584ep-44, -0x1.4f8205234p-08, -0x1.100ab5c2da9cdp-44},
	{0x1.0204081020408p+00, -0x1.010157588p-07, -0x1.bcd251998b506p-44, -0x1.be76bd778p-09, -0x1.a7da93d795a9ep-44},
	{0x1.010101010101p+00, -0x1.008055958p-08, -0x1.164afcb31c67bp-45, -0x1.bd96a1d8p-10, 0x1.31afd15493cfp-45},
	{0x1p+00, 0, 0, 0, 0},
	{0x1.fc07f01fc07fp-01, 0x1.fe02a6b1p-08, 0x1.9e63f0dda40e4p-46, 0x1.bafd4722p-09, 0x1.ed344b7f4528p-45},
	{0x1.f81f81f81f82p-01, 0x1.fc0a8b0fcp-07, 0x1.e1e7cf6d3a69cp-50, 0x1.b9476a4fcp-08, 0x1.a1e61a408a351p-45},
	{0x1.f44659e4a4271p-01, 0x1.7b91b07d6p-06, -0x1.3b685b602ace4p-44, 0x1.49b085144p-07, 0x1.b46c9d29b1105p-46},
	{0x1.f07c1f07c1f08p-01, 0x1.f829b0e78p-06, 0x1.97c267c7e09e4p-45, 0x1.b5e908eb2p-07, -0x1.90edc68eeab01p-44},
	{0x1.ecc07b301eccp-01, 0x1.39e87b9fe8p-05, 0x1.eb3d480ad9015p-44, 0x1.10a83a844p-06, 0x1.b1fa4fdb3fe46p-44},
	{0x1.e9131abf0b767p-01, 0x1.77458f633p-05, -0x1.1807ce586af09p-44, 0x1.45f4f5accp-06, -0x1.d074946627405p-44},
	{0x1.e573ac901e574p-01, 0x1.b42dd71198p-05, -0x1.c8d7ae5d6704cp-46, 0x1.7adc3df3bp-06, 0x1.ff3549edf7216p-46},
	{0x1.e1e1e1e1e1e1ep-01, 0x1.f0a30c0118p-05, -0x1.d579e83368e91p-45, 0x1.af5f92b01p-06, -0x1.9ee9c6a443feap-46},
	{0x1.de5d6e3f8868ap-01, 0x1.16536eea38p-04, -0x1.472de768fa309p-46, 0x1.e3806acbdp-06, 0x1.64cb6b8eb05ap-48},
	{0x1.dae6076b981dbp-01, 0x1.341d7961bcp-04, 0x1.1cfb29983761p-44, 0x1.0ba01a817p-05, -0x1.2d5969df0cb5fp-58},
	{0x1.d77b654b82c34p-01, 0x1.51b073f06p-04, 0x1.83ba9278e686ap-44, 0x1.25502c0fcp-05, 0x1.8a41f22a081afp-44},
	{0x1.d41d41d41d41dp-01, 0x1.6f0d28ae58p-04, -0x1.4b2241b664613p-44, 0x1.3ed1199a6p-05, -0x1.bd9083c30abfcp-45},
	{0x1.d0cb58f6ec074p-01, 0x1.8c345d6318p-04, 0x1.b22b5acb42a66p-44, 0x1.58238eeb38p-05, -0x1.611ff7517ccf2p-44},
	{0x1.cd85689039b0bp-01, 0x1.a926d3a4acp-04, 0x1.561c50bd22a9cp-44, 0x1.71483427dp-05, 0x1.54bb2646876b3p-44},
	{0x1.ca4b3055ee191p-01, 0x1.c5e548f5bcp-04, 0x1.d0c97585fbe06p-46, 0x1.8a3fadeb88p-05, -0x1.c062f35b746dbp-44},
	{0x1.c71c71c71c71cp-01, 0x1.e27076e2bp-04, -0x1.a2c2c2af0003cp-45, 0x1.a30a9d60ap-05, -0x1.012c40f052da5p-45},
	{0x1.c3f8f01c3f8fp-01, 0x1.fec9131dcp-04, -0x1.54455d1ae6607p-44, 0x1.bba9a058ep-05, -0x1.3d83864849c22p-48},
	{0x1.c0e070381c0ep-01, 0x1.0d77e7cd08p-03, 0x1.cb6cd2ee2f482p-44, 0x1.d41d5164f8p-05, 0x1.65b8cc3f8ab76p-44},
	{0x1.bdd2b899406f7p-01, 0x1.1b72ad52f6p-03, 0x1.e86041811a396p-45, 0x1.ec6647eb58p-05, 0x1.0153acddda5e2p-46},
	{0x1.bacf914c1badp-01, 0x1.29552f82p-03, -0x1.5bd67f4471dfcp-44, 0x1.02428c1f08p-04, 0x1.42db4116a1ddbp-52},
	{0x1.b7d6c3dda338bp-01, 0x1.371fc201e8p-03, 0x1.eea079b2d8abcp-44, 0x1.0e3d29d81p-04, 0x1.65f100d575d25p-44},
	{0x1.b4e81b4e81b4fp-01, 0x1.44d2b6ccb8p-03, -0x1.71f416135783cp-46, 0x1.1a234455p-04, 0x1.813be9982a0a1p-44},
	{0x1.b2036406c80d9p-01, 0x1.526e5e3a1cp-03, -0x1.790aa37fc5238p-44, 0x1.25f5215eb4p-04, 0x1.949e61d3e79b5p-44},
	{0x1.af286bca1af28p-01, 0x1.5ff3070a7ap-03, -0x1.8546f183bebf2p-44, 0x1.31b3055c48p-04, -0x1.dcc83285be7bfp-45},
	{0x1.ac5701ac5701bp-01, 0x1.6d60fe719ep-03, -0x1.bc91557134767p-44, 0x1.3d5d335c54p-04, -0x1.d1050784c8dd7p-45},
	{0x1.a98ef606a63bep-01, 0x1.7ab890210ep-03, -0x1.be51072534a58p-45, 0x1.48f3ed1df4p-04, 0x1.1f29bdc4b530ap-45},
	{0x1.a6d01a6d01a6dp-01, 0x1.87fa06520cp-03, 0x1.22130401202fcp-44, 0x1.5477731974p-04, -0x1.7b717c5ffbd4p-48},
	{0x1.a41a41a41a41ap-01, 0x1.9525a9cf46p-03, -0x1.294937d9f158fp-44, 0x1.5fe80488bp-04, -0x1.60481cfca402fp-45},
	{0x1.a16d3f97a4b02p-01, 0x1.a23bc1fe2cp-03, -0x1.53d6d91dc9f0bp-44, 0x1.6b45df6f4p-04, -0x1.d3839f86b5dedp-44},
	{0x1.9ec8e951033d9p-01, 0x1.af3c94e80cp-03, -0x1.92e633fcd9066p-52, 0x1.769140a254p-04, -0x1.902edff63e38ap-44},
	{0x1.9c2d14ee4a102p-01, 0x1.bc286742d8p-03, 0x1.9a873f39d121cp-44, 0x1.81ca63d05cp-04, -0x1.bb82c606ef3ddp-44},
	{0x1.999999999999ap-01, 0x1.c8ff7c79aap-03, -0x1.7814f689f8434p-45, 0x1.8cf1838864p-04, 0x1.015bce2014e1fp-45},
	{0x1.970e4f80cb872p-01, 0x1.d5c216b4fcp-03, -0x1.1b0d1bbca681bp-45, 0x1.9806d9414cp-04, -0x1.df46ff8ed5413p-44},
	{0x1.948b0fcd6e9ep-01, 0x1.e27076e2bp-03, -0x1.a302c2af0003cp-44, 0x1.a30a9d60ap-04, -0x1.01480c6b68014p-44},
	{0x1.920fb49d0e229p-01, 0x1.ef0adcbdc6p-03, -0x1.b2a179c86af24p-45, 0x1.adfd07416cp-04, -0x1.f9be269464d81p-48},
	{0x1.8f9c18f9c18fap-01, 0x1.fb9186d5e4p-03, -0x1.d6b2aab993c87p-47, 0x1.b8de4d3ab4p-04, -0x1.34900b1b6ca32p-47},
	{0x1.8d3018d3018d3p-01, 0x1.0402594b4dp-02, 0x1.037b89ef42d7fp-48, 0x1.c3aea4a5c8p-04, -0x1.1015bf1854302p-44},
	{0x1.8acb90f6bf3aap-01, 0x1.0a324e2739p-02, 0x1.c4dee7ef4030ep-47, 0x1.ce6e41e464p-04, -0x1.2e5632332ce62p-47},
	{0x1.886e5f0abb04ap-01, 0x1.1058bf9ae5p-02, -0x1.4affd817d52cdp-44, 0x1.d91d5866acp-04, -0x1.6665a0a1c6ce4p-44},
	{0x1.8618618618618p-01, 0x1.1675cababap-02, 0x1.83c0e731f55c4p-44, 0x1.e3bc1ab0ep-04, 0x1.9fffa0ddba65fp-44},
	{0x1.83c977ab2beddp-01, 0x1.1c898c169ap-02, -0x1.81260e5c62affp-44, 0x1.ee4aba611p-04, -0x1.bf5a6b16a5e62p-45},
	{0x1.8181818181818p-01, 0x1.22941fbcf8p-02, -0x1.a6876f5eb0963p-44, 0x1.f8c9683468p-04, 0x1.90f40e20e9837p-48},
	{0x1.7f405fd017f4p-01, 0x1.2895a13de8p-02, 0x1.a917ad24c13fp-44, 0x1.019c2a064cp-03, -0x1.6f1605361dd21p-44},
	{0x1.7d05f417d05f4p-01, 0x1.2e8e2bae12p-02, -0x1.6791e99b72bd8p-45, 0x1.06cbd67a6cp-03, 0x1.db45f7dd9d12ep-46},
	{0x1.7ad2208e0ecc3p-01, 0x1.347dd9a988p-02, -0x1.5522dd4c58092p-45, 0x1.0bf3d0937cp-03, 0x1.07408e4371c8bp-45},
	{0x1.78a4c8178a4c8p-01, 0x1.3a64c55694p-02, 0x1.7a81cbcd735dp-44, 0x1.11142f0812p-03, -0x1.951c7eab1e176p-44},
	{0x1.767dce434a9b1p-01, 0x1.404308686ap-02, 0x1.f8f043049f7d3p-44, 0x1.162d082acap-03, -0x1.78370a76d5652p-46},
}

// cbrtTab[s<<7|j]: c = cbrt(2^s·(1 + (j+½)/128)) to 17 bits, c3 = c³ exactly,
// ic3 = 1/c3 rounded.
var cbrtTab = [384]cbrtEntry{
	{0x1.0055p+00, 0x1.00ff54b45eedp+00, 0x1.fe0351f0f2a84p-01},
	{0x1.00ffp+00, 0x1.02fffb0002ffp+00, 0x1.fa11d46523ce5p-01},
	{0x1.01a8p+00, 0x1.05003f4b1ap+00, 0x1.f6309101b0a2p-01},
	{0x1.025p+00, 0x1.0700175ddp+00, 0x1.f25f37faf3c94p-01},
	{0x1.02f7p+00, 0x1.08ff7902d627p+00, 0x1.ee9d7b785617bp-01},
	{0x1.039ep+00, 0x1.0b016fdfd378p+00, 0x1.eae5634f88717p-01},
	{0x1.0443p+00, 0x1.0cffca0202dbp+00, 0x1.e7420c262a74bp-01},
	{0x1.04e8p+00, 0x1.0f00acd98ap+00, 0x1.e3a7e32142789p-01},
	{0x1.058cp+00, 0x1.1100f85a4ecp+00, 0x1.e01c4d1c55f39p-01},
	{0x1.062fp+00, 0x1.1300a253e78fp+00, 0x1.dc9f0472a62dep-01},
	{0x1.06d1p+00, 0x1.14ffa0999f71p+00, 0x1.d92fc5298d1a1p-01},
	{0x1.0773p+00, 0x1.1701165811ebp+00, 0x1.d5c8f35927411p-01},
	{0x1.0813p+00, 0x1.18fea29cf2cbp+00, 0x1.d2750e3a5cadap-01},
	{0x1.08b3p+00, 0x1.1afe99ce5babp+00, 0x1.cf292ffda888bp-01},
	{0x1.0953p+00, 0x1.1d00fd634c8bp+00, 0x1.cbe5407dcbfe3p-01},
	{0x1.09f1p+00, 0x1.1eff552950d1p+00, 0x1.c8b3758a6800ap-01},
	{0x1.0a8fp+00, 0x1.21000cbffcafp+00, 0x1.c589390e8fc0dp-01},
	{0x1.0b2cp+00, 0x1.22ffe10edccp+00, 0x1.c26b837787297p-01},
	{0x1.0bc8p+00, 0x1.24fec7f652p+00, 0x1.bf5a1b53a4b96p-01},
	{0x1.0c64p+00, 0x1.2700037d824p+00, 0x1.bc4fd116c3b3bp-01},
	{0x1.0cffp+00, 0x1.2900450826ffp+00, 0x1.b9517c1e2774ap-01},
	{0x1.0d99p+00, 0x1.2aff827add89p+00, 0x1.b65ee6430d7cdp-01},
	{0x1.0e33p+00, 0x1.2d01094bc02bp+00, 0x1.b37304e174d7p-01},
	{0x1.0eccp+00, 0x1.2f017f6d2acp+00, 0x1.b0928fb941573p-01},
	{0x1.0f64p+00, 0x1.3100dac9124p+00, 0x1.adbd53b580c7cp-01},
	{0x1.0ffbp+00, 0x1.32ff114faf83p+00, 0x1.aaf31eeb37f9ap-01},
	{0x1.1092p+00, 0x1.34ff7f983cc8p+00, 0x1.a82f155835ec6p-01},
	{0x1.1128p+00, 0x1.36febc77bap+00, 0x1.a575c6e816dd3p-01},
	{0x1.11bep+00, 0x1.39002c0674f8p+00, 0x1.a2c26d95b0e35p-01},
	{0x1.1253p+00, 0x1.3b005d94df8bp+00, 0x1.a01986023c50ep-01},
	{0x1.12e7p+00, 0x1.3cff471aebf7p+00, 0x1.9d7ae2a1c5ff5p-01},
	{0x1.137bp+00, 0x1.3f0057e8f603p+00, 0x1.9ae1dd6a3387fp-01},
	{0x1.140ep+00, 0x1.41001419fab8p+00, 0x1.9852d7470ce9bp-01},
	{0x1.14ap+00, 0x1.42fe71ae8p+00, 0x1.95cda52c4f117p-01},
	{0x1.1532p+00, 0x1.44feeb1b2448p+00, 0x1.934dbf9529b37p-01},
	{0x1.15c4p+00, 0x1.4701817cd44p+00, 0x1.90d3189bdb87fp-01},
	{0x1.1654p+00, 0x1.48ff1e442b4p+00, 0x1.8e663908ae364p-01},
	{0x1.16e4p+00, 0x1.4afecb6efa4p+00, 0x1.8bfe592de5204p-01},
	{0x1.1774p+00, 0x1.4d008a0ea14p+00, 0x1.899b6c30fd1e6p-01},
	{0x1.1803p+00, 0x1.4f00c45d881bp+00, 0x1.87419674cb3e8p-01},
	{0x1.1891p+00, 0x1.50ff706accb1p+00, 0x1.84f0b1ddea464p-01},
	{0x1.191fp+00, 0x1.53002269ff5fp+00, 0x1.82a478d806a4fp-01},
	{0x1.19acp+00, 0x1.54ff399cd4cp+00, 0x1.8060f7a5d5f15p-01},
	{0x1.1a39p+00, 0x1.5700517fc169p+00, 0x1.7e21fa498d3eep-01},
	{0x1.1ac5p+00, 0x1.58ffc20c46bdp+00, 0x1.7beb7d5bdf9abp-01},
	{0x1.1b51p+00, 0x1.5b012e020cf1p+00, 0x1.79b95dfbcb506p-01},
	{0x1.1bdcp+00, 0x1.5d00e61889cp+00, 0x1.778f897e328ffp-01},
	{0x1.1c66p+00, 0x1.5efee0720158p+00, 0x1.756dde0e13a38p-01},
	{0x1.1cfp+00, 0x1.60fecaa6fp+00, 0x1.735051b9bf4b3p-01},
	{0x1.1d7ap+00, 0x1.6300a5a7f128p+00, 0x1.7136da8fd0cbap-01},
	{0x1.1e03p+00, 0x1.6500b3c22a1bp+00, 0x1.6f2548912fc5bp-01},
	{0x1.1e8bp+00, 0x1.66feeb2084b3p+00, 0x1.6d1b7bfd67bbbp-01},
	{0x1.1f13p+00, 0x1.68ff07b73fcbp+00, 0x1.6b158a61e590cp-01},
	{0x1.1f9bp+00, 0x1.6b010a6ca763p+00, 0x1.69136aa56df33p-01},
	{0x1.2022p+00, 0x1.6d01273e1988p+00, 0x1.6718d0e85c30bp-01},
	{0x1.20a8p+00, 0x1.6eff54605ap+00, 0x1.65259f57ca8fbp-01},
	{0x1.212ep+00, 0x1.70ff5c09c838p+00, 0x1.6336095e6205bp-01},
	{0x1.21b4p+00, 0x1.73013f16ad4p+00, 0x1.614a06a7fecb6p-01},
	{0x1.2239p+00, 0x1.750123505969p+00, 0x1.5f6530d1cca1fp-01},
	{0x1.22bdp+00, 0x1.76fefef69a25p+00, 0x1.5d876bd2cb7c2p-01},
	{0x1.2341p+00, 0x1.78feaa6719c1p+00, 0x1.5bad076b6151dp-01},
	{0x1.23c5p+00, 0x1.7b00267469bdp+00, 0x1.59d5fbfb40b3fp-01},
	{0x1.2448p+00, 0x1.7cff8ad0b2p+00, 0x1.5805c9e544a3bp-01},
	{0x1.24cbp+00, 0x1.7f00ba63b173p+00, 0x1.5638d51c5d8e5p-01},
	{0x1.254dp+00, 0x1.80ffc5dbbe55p+00, 0x1.547291d58f481p-01},
	{0x1.25cfp+00, 0x1.83009722666fp+00, 0x1.52af71265ee2ap-01},
	{0x1.265p+00, 0x1.84ff37e9dp+00, 0x1.50f2db615b1b4p-01},
	{0x1.26d1p+00, 0x1.86ff9915ff71p+00, 0x1.4f394e69938c2p-01},
	{0x1.2752p+00, 0x1.8901bb6b7dc8p+00, 0x1.4d82c3a1569a2p-01},
	{0x1.27d2p+00, 0x1.8b019e2a63c8p+00, 0x1.4bd291ee3155bp-01},
	{0x1.2851p+00, 0x1.8cff37ae93f1p+00, 0x1.4a28a16ec060dp-01},
	{0x1.28dp+00, 0x1.8efe86c15p+00, 0x1.488188b84502fp-01},
	{0x1.294fp+00, 0x1.90ff8c1e20efp+00, 0x1.46dd41baeacefp-01},
	{0x1.29cdp+00, 0x1.92fe393527d5p+00, 0x1.453f0d383ce0ep-01},
	{0x1.2a4bp+00, 0x1.94fe9725fdf3p+00, 0x1.43a39366cd8a5p-01},
	{0x1.2ac9p+00, 0x1.9700a6a7c719p+00, 0x1.420ace87d1cfdp-01},
	{0x1.2b46p+00, 0x1.99004ed85fd8p+00, 0x1.4077ef499a8cbp-01},
	{0x1.2bc3p+00, 0x1.9b01a3262d5bp+00, 0x1.3ee7aeeff4a7bp-01},
	{0x1.2c3fp+00, 0x1.9d0083d554bfp+00, 0x1.3d5d33cc73d7bp-01},
	{0x1.2cbbp+00, 0x1.9f010b2dabc3p+00, 0x1.3bd5423c98b08p-01},
	{0x1.2d36p+00, 0x1.a0ff12a22318p+00, 0x1.3a52f6737283cp-01},
	{0x1.2db1p+00, 0x1.a2febb4bc411p+00, 0x1.38d31fa2caacep-01},
	{0x1.2e2cp+00, 0x1.a50005d4eccp+00, 0x1.3755b8cc8aeeap-01},
	{0x1.2ea6p+00, 0x1.a6fec1803458p+00, 0x1.35ddcf4a91e0fp-01},
	{0x1.2f2p+00, 0x1.a8ff19948p+00, 0x1.346842031e2bbp-01},
	{0x1.2f9ap+00, 0x1.ab010eb80ea8p+00, 0x1.32f50c3a11a0cp-01},
	{0x1.3013p+00, 0x1.ad0066062acbp+00, 0x1.31872ce59cdd6p-01},
	{0x1.308cp+00, 0x1.af0154eadecp+00, 0x1.301b92204c18bp-01},
	{0x1.3104p+00, 0x1.b0ff99c5304p+00, 0x1.2eb53197c9e2p-01},
	{0x1.317cp+00, 0x1.b2ff70be47cp+00, 0x1.2d51034e0a2b9p-01},
	{0x1.31f4p+00, 0x1.b500da74594p+00, 0x1.2bef02f621299p-01},
	{0x1.326bp+00, 0x1.b6ff8b361753p+00, 0x1.2a92189d43c75p-01},
	{0x1.32e2p+00, 0x1.b8ffc93b7a88p+00, 0x1.29374aa4c27ccp-01},
	{0x1.3359p+00, 0x1.bb01951ecac9p+00, 0x1.27de94f8126b9p-01},
	{0x1.33cfp+00, 0x1.bd009928506fp+00, 0x1.268ad26dad292p-01},
	{0x1.3445p+00, 0x1.bf0125953f3dp+00, 0x1.2539175372e88p-01},
	{0x1.34bap+00, 0x1.c0fede082028p+00, 0x1.23ec35f832cb3p-01},
	{0x1.352fp+00, 0x1.c2fe1965948fp+00, 0x1.22a14bbcbf2b8p-01},
	{0x1.35a4p+00, 0x1.c4fed8403e4p+00, 0x1.215854ebf36dp-01},
	{0x1.3619p+00, 0x1.c7011b2abf09p+00, 0x1.20114dd90c74ap-01},
	{0x1.368dp+00, 0x1.c9007886b815p+00, 0x1.1ecef823e141p-01},
	{0x1.3701p+00, 0x1.cb015476a501p+00, 0x1.1d8e82a312d38p-01},
	{0x1.3774p+00, 0x1.ccff3ec4a14p+00, 0x1.1c52a6eeeca36p-01},
	{0x1.37e7p+00, 0x1.cefea22ceaf7p+00, 0x1.1b189c649dff8p-01},
	{0x1.385ap+00, 0x1.d0ff7f3abfa8p+00, 0x1.19e05fad1375ep-01},
	{0x1.38cdp+00, 0x1.d301d6795cd5p+00, 0x1.18a9ed7895105p-01},
	{0x1.393fp+00, 0x1.d5012a8efbbfp+00, 0x1.1777efa9eb133p-01},
	{0x1.39b1p+00, 0x1.d701f3596811p+00, 0x1.1647ae0834082p-01},
	{0x1.3a22p+00, 0x1.d8ffacf65188p+00, 0x1.151bcae5bed83p-01},
	{0x1.3a93p+00, 0x1.dafed5ced64bp+00, 0x1.13f1960e20ce6p-01},
	{0x1.3b04p+00, 0x1.dcff6e67104p+00, 0x1.12c90c7ead3d3p-01},
	{0x1.3b75p+00, 0x1.df017743194dp+00, 0x1.11a22b3b2d872p-01},
	{0x1.3be5p+00, 0x1.e1005f7b471dp+00, 0x1.107f85c85bbfbp-01},
	{0x1.3c55p+00, 0x1.e300b27c72edp+00, 0x1.0f5e7b63516b8p-01},
	{0x1.3cc4p+00, 0x1.e4fdd8e6244p+00, 0x1.0e41986f19976p-01},
	{0x1.3d34p+00, 0x1.e700ffbb154p+00, 0x1.0d23b80f1aedcp-01},
	{0x1.3da3p+00, 0x1.e900f47ec3fbp+00, 0x1.0c09f264681dap-01},
	{0x1.3e12p+00, 0x1.eb024f8f7ec8p+00, 0x1.0af1b585245a9p-01},
	{0x1.3e8p+00, 0x1.ed006cap+00, 0x1.09dd7fd6a9172p-01},
	{0x1.3eeep+00, 0x1.eeffea851d38p+00, 0x1.08cac6b4e0326p-01},
	{0x1.3f5cp+00, 0x1.f100c9b8b1cp+00, 0x1.07b9879149b5p-01},
	{0x1.3fc9p+00, 0x1.f2fe5c4d3619p+00, 0x1.06ac36b542692p-01},
	{0x1.4037p+00, 0x1.f501fc5249e7p+00, 0x1.059de0968b1bbp-01},
	{0x1.40a4p+00, 0x1.f7024a3f4e4p+00, 0x1.04936d0dca468p-01},
	{0x1.411p+00, 0x1.f8ff3cf31p+00, 0x1.038ccfb7b305fp-01},
	{0x1.417dp+00, 0x1.fb0241ada865p+00, 0x1.028529384cc6ep-01},
	{0x1.41e9p+00, 0x1.fd01e5b7f679p+00, 0x1.01814daafebe6p-01},
	{0x1.4254p+00, 0x1.fefe1ffa6b4p+00, 0x1.008131147405bp-01},
	{0x1.42f6p+00, 0x1.01010d36400cp+01, 0x1.fdffe7c63fa24p-02},
	{0x1.43cbp+00, 0x1.02fedcdb93398p+01, 0x1.fa1403823b24fp-02},
	{0x1.44ap+00, 0x1.04ff4cf74p+01, 0x1.f6326346077d7p-02},
	{0x1.4574p+00, 0x1.06fff2a220ap+01, 0x1.f25f7d967b8c8p-02},
	{0x1.4647p+00, 0x1.0900c619d40b8p+01, 0x1.ee9b0dc634abbp-02},
	{0x1.4718p+00, 0x1.0aff4cb3bbp+01, 0x1.eae95154c126ap-02},
	{0x1.47e9p+00, 0x1.0d006158943c8p+01, 0x1.e740fa0581395p-02},
	{0x1.48b8p+00, 0x1.0eff135a87p+01, 0x1.e3aabdf879a85p-02},
	{0x1.4987p+00, 0x1.11004a223aeb8p+01, 0x1.e01d7f7fca4adp-02},
	{0x1.4a54p+00, 0x1.12ff0887f5ap+01, 0x1.dca1cab439781p-02},
	{0x1.4b21p+00, 0x1.15004265d6b08p+01, 0x1.d92eb0c5862c7p-02},
	{0x1.4becp+00, 0x1.16feee2a106p+01, 0x1.d5cc9521bdf02p-02},
	{0x1.4cb7p+00, 0x1.19000c1153b38p+01, 0x1.d272b6379ed28p-02},
	{0x1.4d81p+00, 0x1.1b0111e354408p+01, 0x1.cf252588b1da1p-02},
	{0x1.4e49p+00, 0x1.1cff6915fccc8p+01, 0x1.cbe7cce7f3262p-02},
	{0x1.4f11p+00, 0x1.1f002460d0188p+01, 0x1.c8b22bcc791f9p-02},
	{0x1.4fd8p+00, 0x1.2100b04d83p+01, 0x1.c58838641f293p-02},
	{0x1.509ep+00, 0x1.23010519f7bcp+01, 0x1.c269bf7029e5cp-02},
	{0x1.5163p+00, 0x1.25011b050c9d8p+01, 0x1.bf568ecea03ccp-02},
	{0x1.5227p+00, 0x1.2700ea4ebedb8p+01, 0x1.bc4e75731540fp-02},
	{0x1.52eap+00, 0x1.29006b384d34p+01, 0x1.b951435fa80edp-02},
	{0x1.53acp+00, 0x1.2aff96045a6p+01, 0x1.b65ec99e37dcap-02},
	{0x1.546ep+00, 0x1.2d010a039f9cp+01, 0x1.b37303d774a98p-02},
	{0x1.552ep+00, 0x1.2eff74619c1cp+01, 0x1.b0957a71e56ap-02},
	{0x1.55eep+00, 0x1.31001e7d389cp+01, 0x1.adbe5d03c3aafp-02},
	{0x1.56adp+00, 0x1.3300598c69ba8p+01, 0x1.aaf1566fad257p-02},
	{0x1.576bp+00, 0x1.35001dd3a7298p+01, 0x1.a82e3c2130f6bp-02},
	{0x1.5828p+00, 0x1.36ff63997dp+01, 0x1.a574e4695c8bfp-02},
	{0x1.58e5p+00, 0x1.3900dc21030e8p+01, 0x1.a2c181fad9d95p-02},
	{0x1.59ap+00, 0x1.3aff10b54p+01, 0x1.a01b3db93d6c4p-02},
	{0x1.5a5bp+00, 0x1.3cff6e8c2ed18p+01, 0x1.9d7aaf2f48d77p-02},
	{0x1.5b15p+00, 0x1.3eff34f436968p+01, 0x1.9ae3542de3beep-02},
	{0x1.5bcfp+00, 0x1.41012106e4378p+01, 0x1.9851813309c13p-02},
	{0x1.5c87p+00, 0x1.42ffa464af6b8p+01, 0x1.95cc23d503399p-02},
	{0x1.5d3fp+00, 0x1.450043e8b3df8p+01, 0x1.934c13b4c5571p-02},
	{0x1.5df6p+00, 0x1.47003311120cp+01, 0x1.90d4b2875ba33p-02},
	{0x1.5eacp+00, 0x1.48ff6a2d226p+01, 0x1.8e65dd1c5bf05p-02},
	{0x1.5f62p+00, 0x1.4b00b5022844p+01, 0x1.8bfc0f7a8bd6p-02},
	{0x1.6017p+00, 0x1.4d013e4327c38p+01, 0x1.899a9730fbd86p-02},
	{0x1.60cbp+00, 0x1.4f00fe4162b98p+01, 0x1.874152d8752c1p-02},
	{0x1.617ep+00, 0x1.50ffed5188fcp+01, 0x1.84f021b708a9cp-02},
	{0x1.6231p+00, 0x1.5300e2db18c88p+01, 0x1.82a39d5bde88cp-02},
	{0x1.62e3p+00, 0x1.5500fdeda8dd8p+01, 0x1.805ef9cc6d59fp-02},
	{0x1.6394p+00, 0x1.570036e0c3ap+01, 0x1.7e2217f20b465p-02},
	{0x1.6445p+00, 0x1.59016dc5a79e8p+01, 0x1.7be9a65971baep-02},
	{0x1.64f4p+00, 0x1.5afece6b34ap+01, 0x1.79bbf360ff0bcp-02},
	{0x1.65a4p+00, 0x1.5d0110ec9f2p+01, 0x1.778f5b67d4eep-02},
	{0x1.6652p+00, 0x1.5eff6de8d8e4p+01, 0x1.756d478cd575ap-02},
	{0x1.67p+00, 0x1.60ffbb8p+01, 0x1.734f5461b4a29p-02},
	{0x1.67adp+00, 0x1.62ff049f1f3a8p+01, 0x1.71388c4c8f77p-02},
	{0x1.685ap+00, 0x1.65003a837fd4p+01, 0x1.6f25c541dd54ep-02},
	{0x1.6906p+00, 0x1.67006265266cp+01, 0x1.6d19fe56d9325p-02},
	{0x1.69b1p+00, 0x1.68ff74a7fc088p+01, 0x1.6b151ccffcd42p-02},
	{0x1.6a5cp+00, 0x1.6b006b0ee0ep+01, 0x1.6914092ac3fb3p-02},
	{0x1.6b06p+00, 0x1.6d00424d926cp+01, 0x1.6719b224dd997p-02},
	{0x1.6bafp+00, 0x1.6efef2cd54078p+01, 0x1.6525fe4c76452p-02},
	{0x1.6c58p+00, 0x1.70ff7ec9b3p+01, 0x1.6335e7ead8821p-02},
	{0x1.6dp+00, 0x1.72feda8p+01, 0x1.614c4e020eca7p-02},
	{0x1.6da8p+00, 0x1.75000dca0dp+01, 0x1.5f663644f3792p-02},
	{0x1.6e4fp+00, 0x1.77000745c7f78p+01, 0x1.5d86757780048p-02},
	{0x1.6ef5p+00, 0x1.78febf63afe68p+01, 0x1.5bacf4109fc05p-02},
	{0x1.6f9bp+00, 0x1.7aff46640bb18p+01, 0x1.59d6c870bbbc3p-02},
	{0x1.704p+00, 0x1.7cfe8282p+01, 0x1.5806b88dfea41p-02},
	{0x1.70e5p+00, 0x1.7eff898f870e8p+01, 0x1.5639e57c5a17ep-02},
	{0x1.7189p+00, 0x1.80ff3c35bfac8p+01, 0x1.54730b8e08101p-02},
	{0x1.722dp+00, 0x1.8300b5d4d4fa8p+01, 0x1.52af564911371p-02},
	{0x1.72dp+00, 0x1.8500d187a8p+01, 0x1.50f178939eab6p-02},
	{0x1.7372p+00, 0x1.86ff87c95fa4p+01, 0x1.4f395d3e79a53p-02},
	{0x1.7414p+00, 0x1.88fffc47efap+01, 0x1.4d843f15b9142p-02},
	{0x1.74b5p+00, 0x1.8aff01d5fb868p+01, 0x1.4bd4c35efd1dep-02},
	{0x1.7556p+00, 0x1.8cffc1a2284cp+01, 0x1.4a282eb50b064p-02},
	{0x1.75f6p+00, 0x1.8eff08ff220cp+01, 0x1.48811d7ce9b6fp-02},
	{0x1.7696p+00, 0x1.9100069863ccp+01, 0x1.46dcdde558e3ep-02},
	{0x1.7735p+00, 0x1.92ff8244c1468p+01, 0x1.453e03a545183p-02},
	{0x1.77d4p+00, 0x1.9500b02899ap+01, 0x1.43a1e646653f9p-02},
	{0x1.7872p+00, 0x1.970052a31da4p+01, 0x1.420b1102adbd3p-02},
	{0x1.790fp+00, 0x1.98fe623f8c178p+01, 0x1.4079714380416p-02},
	{0x1.79adp+00, 0x1.9b015f13b23a8p+01, 0x1.3ee7e3c16a31bp-02},
	{0x1.7a49p+00, 0x1.9cff7e83decc8p+01, 0x1.3d5dfc9b1dbccp-02},
	{0x1.7ae5p+00, 0x1.9eff435e3e0e8p+01, 0x1.3bd69d216b1d1p-02},
	{0x1.7b81p+00, 0x1.a100ae5099408p+01, 0x1.3a51c02348de3p-02},
	{0x1.7c1cp+00, 0x1.a3007171caep+01, 0x1.38d1d8842b512p-02},
	{0x1.7cb6p+00, 0x1.a4fe8556a68cp+01, 0x1.3756d523fb07fp-02},
	{0x1.7d51p+00, 0x1.a7018a8079788p+01, 0x1.35dbc4fe57173p-02},
	{0x1.7deap+00, 0x1.a8ff85b73f34p+01, 0x1.3467f38aa731p-02},
	{0x1.7e83p+00, 0x1.aaff1a2e4bcd8p+01, 0x1.32f6740d22d34p-02},
	{0x1.7f1cp+00, 0x1.ad00488992ep+01, 0x1.318741e59b07p-02},
	{0x1.7fb4p+00, 0x1.aeffb2c0a6ap+01, 0x1.301cb92dac36ep-02},
	{0x1.804cp+00, 0x1.b100b2c7596p+01, 0x1.2eb46d248dffbp-02},
	{0x1.80e3p+00, 0x1.b2ffe53d7ddd8p+01, 0x1.2d50b29c08832p-02},
	{0x1.817ap+00, 0x1.b500a96d1094p+01, 0x1.2bef249c9d572p-02},
	{0x1.821p+00, 0x1.b6ff96a308p+01, 0x1.2a9210d7f5e09p-02},
	{0x1.82a6p+00, 0x1.b900117ad22cp+01, 0x1.293719f3a982bp-02},
	{0x1.833bp+00, 0x1.bafeabf381a18p+01, 0x1.27e086a7f41b4p-02},
	{0x1.83dp+00, 0x1.bcfecff528p+01, 0x1.268c010c806ccp-02},
	{0x1.8465p+00, 0x1.bf007e17324e8p+01, 0x1.25398532777f3p-02},
	{0x1.84f9p+00, 0x1.c10040692ed48p+01, 0x1.23eb4f90f3912p-02},
	{0x1.858dp+00, 0x1.c30188bf968a8p+01, 0x1.229f151461b4ep-02},
	{0x1.862p+00, 0x1.c500dbe44p+01, 0x1.21570b918d6b1p-02},
	{0x1.86b3p+00, 0x1.c701b0f072d58p+01, 0x1.2010ef06abeap-02},
	{0x1.8745p+00, 0x1.c900876d881e8p+01, 0x1.1eceeec9c0f66p-02},
	{0x1.87d7p+00, 0x1.cb00dbb485638p+01, 0x1.1d8ecdc37858ap-02},
	{0x1.8868p+00, 0x1.ccff281395p+01, 0x1.1c52b4edb1b86p-02},
	{0x1.88f9p+00, 0x1.cefeee1e54d48p+01, 0x1.1b186df546c88p-02},
	{0x1.898ap+00, 0x1.d1002e6052f4p+01, 0x1.19dff58135b66p-02},
	{0x1.8a1ap+00, 0x1.d2ff5b54be54p+01, 0x1.18ab6b308e128p-02},
	{0x1.8aaap+00, 0x1.d4fffe5fd7b4p+01, 0x1.1778a289b90dap-02},
	{0x1.8b39p+00, 0x1.d6fe84ca92348p+01, 0x1.1649b51d75cefp-02},
	{0x1.8bc8p+00, 0x1.d8fe7d2b29p+01, 0x1.151c7ce0cbd56p-02},
	{0x1.8c57p+00, 0x1.daffe80778238p+01, 0x1.13f0f6c027e85p-02},
	{0x1.8ce5p+00, 0x1.dcff2ae3210e8p+01, 0x1.12c933637fc48p-02},
	{0x1.8d73p+00, 0x1.deffdc17b9f58p+01, 0x1.11a3161db3683p-02},
	{0x1.8ep+00, 0x1.e0fe5cp+01, 0x1.1080a9d1be542p-02},
	{0x1.8e8dp+00, 0x1.e2fe461e800a8p+01, 0x1.0f5fd7f0b533p-02},
	{0x1.8f1ap+00, 0x1.e4ff9af38c54p+01, 0x1.0e409da69ad5ap-02},
	{0x1.8fa6p+00, 0x1.e6feb322d02cp+01, 0x1.0d24fd591bbe4p-02},
	{0x1.9032p+00, 0x1.e8ff31e45424p+01, 0x1.0c0ae962d0d47p-02},
	{0x1.90bep+00, 0x1.eb0117b5b47cp+01, 0x1.0af25f105c323p-02},
	{0x1.9149p+00, 0x1.ed00b589894c8p+01, 0x1.09dd5884c2664p-02},
	{0x1.91d4p+00, 0x1.ef01b64789ap+01, 0x1.08c9d0c4e4d78p-02},
	{0x1.925ep+00, 0x1.f10065c7423cp+01, 0x1.07b9bc99ba736p-02},
	{0x1.92e8p+00, 0x1.f300740c05p+01, 0x1.06ab1cb19328fp-02},
	{0x1.9371p+00, 0x1.f4fe27d84ea88p+01, 0x1.059fe096e95abp-02},
	{0x1.93fbp+00, 0x1.f700f2832dc18p+01, 0x1.04941f1f46d99p-02},
	{0x1.9484p+00, 0x1.f9015e8f6c2p+01, 0x1.038bb74c54854p-02},
	{0x1.950cp+00, 0x1.faff64d7bb6p+01, 0x1.02869ee553968p-02},
	{0x1.9594p+00, 0x1.fcfec211f3ap+01, 0x1.0182e43da0d2dp-02},
	{0x1.961cp+00, 0x1.feff76b13aep+01, 0x1.0080850c601fap-02},
	{0x1.96e7p+00, 0x1.00ffa02a6dfdcp+02, 0x1.fe02bc304eafep-03},
	{0x1.97f5p+00, 0x1.03008c00a0b34p+02, 0x1.fa10b91265eb6p-03},
	{0x1.9901p+00, 0x1.05004c55f2c04p+02, 0x1.f63077e972ddap-03},
	{0x1.9a0cp+00, 0x1.0700c070f9bp+02, 0x1.f25df7986c284p-03},
	{0x1.9b15p+00, 0x1.08fff36ccb4b4p+02, 0x1.ee9c96fcdd0e1p-03},
	{0x1.9c1dp+00, 0x1.0affc99334d14p+02, 0x1.eae86bbc8c5f1p-03},
	{0x1.9d24p+00, 0x1.0d003d13499p+02, 0x1.e7413bb861f0cp-03},
	{0x1.9e29p+00, 0x1.0eff519221ce4p+02, 0x1.e3aa4eed6ba5fp-03},
	{0x1.9f2ep+00, 0x1.1100ebcf8c0ep+02, 0x1.e01c632adad1cp-03},
	{0x1.a03p+00, 0x1.12ff1af86cp+02, 0x1.dca1aabe94acdp-03},
	{0x1.a132p+00, 0x1.14ffc4342d12p+02, 0x1.d92f885785139p-03},
	{0x1.a233p+00, 0x1.1700e8aab70acp+02, 0x1.d5c940425fa12p-03},
	{0x1.a332p+00, 0x1.19007faed312p+02, 0x1.d271f64d5e8ap-03},
	{0x1.a43p+00, 0x1.1b0081536cp+02, 0x1.cf26121dc0cd7p-03},
	{0x1.a52dp+00, 0x1.1d00e7bdbabd4p+02, 0x1.cbe5636bf1255p-03},
	{0x1.a628p+00, 0x1.1effa2f25e8p+02, 0x1.c8b2f9c2c09c6p-03},
	{0x1.a723p+00, 0x1.2100bee4811ecp+02, 0x1.c588217eccc12p-03},
	{0x1.a81cp+00, 0x1.23001f0df57p+02, 0x1.c26b2381bae04p-03},
	{0x1.a914p+00, 0x1.24ffc7b113dp+02, 0x1.bf5894e0ccb25p-03},
	{0x1.aa0bp+00, 0x1.26ffb2f004cccp+02, 0x1.bc504a69c5eb1p-03},
	{0x1.ab01p+00, 0x1.28ffdaec00404p+02, 0x1.b95219c9fe067p-03},
	{0x1.abf6p+00, 0x1.2b0039c56306p+02, 0x1.b65dd989145c1p-03},
	{0x1.aceap+00, 0x1.2d00c99bc49ap+02, 0x1.b3736103c9308p-03},
	{0x1.addcp+00, 0x1.2eff67347a7p+02, 0x1.b0958d41a6923p-03},
	{0x1.aecep+00, 0x1.310044fec2eep+02, 0x1.adbe26c2953f2p-03},
	{0x1.afbep+00, 0x1.32ff2007f73ep+02, 0x1.aaf30a728de2ep-03},
	{0x1.b0aep+00, 0x1.35003442288ep+02, 0x1.a82e1d562bdf4p-03},
	{0x1.b19cp+00, 0x1.36ff353b077p+02, 0x1.a575233ff6b52p-03},
	{0x1.b28ap+00, 0x1.3900685e2c7ap+02, 0x1.a2c21cda74582p-03},
	{0x1.b376p+00, 0x1.3aff77c3b586p+02, 0x1.a01ab596803afp-03},
	{0x1.b462p+00, 0x1.3d00b2473322p+02, 0x1.9d7908ee1bf8bp-03},
	{0x1.b54cp+00, 0x1.3effb89588bp+02, 0x1.9ae2aaa1e6dcfp-03},
	{0x1.b636p+00, 0x1.4100e2f06bc6p+02, 0x1.9851d02ce6f9cp-03},
	{0x1.b71ep+00, 0x1.42ffc8a41f5ep+02, 0x1.95cbf64add844p-03},
	{0x1.b806p+00, 0x1.4500cb4e6836p+02, 0x1.934b6bb0f944ap-03},
	{0x1.b8ecp+00, 0x1.46ff78e5c43p+02, 0x1.90d596bba9c0cp-03},
	{0x1.b9d2p+00, 0x1.49003c59aef2p+02, 0x1.8e64de9aaeb0cp-03},
	{0x1.bab7p+00, 0x1.4b00d88a0459cp+02, 0x1.8bfbe4f905a2fp-03},
	{0x1.bb9ap+00, 0x1.4cff071147aap+02, 0x1.899d359ea113dp-03},
	{0x1.bc7dp+00, 0x1.4eff40c828594p+02, 0x1.87435b2151cfcp-03},
	{0x1.bd5fp+00, 0x1.50ff419a8307cp+02, 0x1.84f0e7e56754p-03},
	{0x1.be4p+00, 0x1.52ff03a9p+02, 0x1.82a5bfe6bf3b3p-03},
	{0x1.bf21p+00, 0x1.5500cacb02584p+02, 0x1.805f336fe9c77p-03},
	{0x1.cp+00, 0x1.57p+02, 0x1.7e225515a4f1dp-03},
	{0x1.c0dep+00, 0x1.58fee4d6fc9ep+02, 0x1.7bec70f5cb23ap-03},
	{0x1.c1bcp+00, 0x1.5affc402e4fp+02, 0x1.79bae80882ac5p-03},
	{0x1.c299p+00, 0x1.5d004ba623224p+02, 0x1.77902fb1886d6p-03},
	{0x1.c375p+00, 0x1.5f0075e2fc534p+02, 0x1.756c2eb53608cp-03},
	{0x1.c45p+00, 0x1.61003cdcf4p+02, 0x1.734ecc4f16d74p-03},
	{0x1.c52ap+00, 0x1.62ff9ab8df5ap+02, 0x1.7137f02f583d1p-03},
	{0x1.c604p+00, 0x1.6500e581481p+02, 0x1.6f25156846dbdp-03},
	{0x1.c6dcp+00, 0x1.66ff61d4667p+02, 0x1.6d1b03445a406p-03},
	{0x1.c7b4p+00, 0x1.68ffc3e2b35p+02, 0x1.6b14cd203774p-03},
	{0x1.c88bp+00, 0x1.6affa9ede4accp+02, 0x1.6914c9462fafep-03},
	{0x1.c961p+00, 0x1.6cff0e1da2084p+02, 0x1.671ae15a5dc4ap-03},
	{0x1.ca37p+00, 0x1.6f0051b891f9cp+02, 0x1.6524a8cd03e6ap-03},
	{0x1.cb0cp+00, 0x1.71010c42a5bp+02, 0x1.6334694d76e15p-03},
	{0x1.cbdfp+00, 0x1.72fecc4f75e7cp+02, 0x1.614c5b85514e4p-03},
	{0x1.ccb3p+00, 0x1.7500cec621eacp+02, 0x1.5f6580764b32ep-03},
	{0x1.cd85p+00, 0x1.76ffcb153d3f4p+02, 0x1.5d86ad915425dp-03},
	{0x1.ce57p+00, 0x1.7900993c4591cp+02, 0x1.5bab3f143c386p-03},
	{0x1.cf28p+00, 0x1.7b00c5988e8p+02, 0x1.59d56ac4578d5p-03},
	{0x1.cff8p+00, 0x1.7d004a56ff8p+02, 0x1.58051cf5a9078p-03},
	{0x1.d0c7p+00, 0x1.7eff21a6abe5cp+02, 0x1.563a425583d0dp-03},
	{0x1.d196p+00, 0x1.80ffc0c93ae6p+02, 0x1.54729651cfa5fp-03},
	{0x1.d264p+00, 0x1.82ffab44289p+02, 0x1.52b03f926b93fp-03},
	{0x1.d331p+00, 0x1.84fedb4829244p+02, 0x1.50f32b9e2a5e3p-03},
	{0x1.d3fep+00, 0x1.86ffccad7bfep+02, 0x1.4f39222e1d717p-03},
	{0x1.d4cap+00, 0x1.88fffc618d3ap+02, 0x1.4d843efffc046p-03},
	{0x1.d595p+00, 0x1.8aff6497102b4p+02, 0x1.4bd47068c33b2p-03},
	{0x1.d66p+00, 0x1.8d0087b56p+02, 0x1.4a2789fba372cp-03},
	{0x1.d72ap+00, 0x1.8f00dc19e55ap+02, 0x1.487f9cea40686p-03},
	{0x1.d7f3p+00, 0x1.91005bf9afdacp+02, 0x1.46dc984d1bf0ep-03},
	{0x1.d8bbp+00, 0x1.92ff018c83f0cp+02, 0x1.453e6b87b8703p-03},
	{0x1.d983p+00, 0x1.94ff57eb8c26cp+02, 0x1.43a2f95ae69b8p-03},
	{0x1.da4ap+00, 0x1.96feccc3e9bap+02, 0x1.420c458122cp-03},
	{0x1.db11p+00, 0x1.98ffef80f10c4p+02, 0x1.407839fdda6fap-03},
	{0x1.dbd7p+00, 0x1.9b00297bf1b1cp+02, 0x1.3ee8d3f9f6b77p-03},
	{0x1.dc9cp+00, 0x1.9cff74efcb7p+02, 0x1.3d5e03f768413p-03},
	{0x1.dd61p+00, 0x1.9f0067bef1084p+02, 0x1.3bd5be9d91261p-03},
	{0x1.de25p+00, 0x1.a10064cc53f74p+02, 0x1.3a51f78d43762p-03},
	{0x1.dee8p+00, 0x1.a2ff6656428p+02, 0x1.38d29fefaf783p-03},
	{0x1.dfabp+00, 0x1.a50008add044cp+02, 0x1.3755b6b18537dp-03},
	{0x1.e06dp+00, 0x1.a6ffa84898ad4p+02, 0x1.35dd263b665dap-03},
	{0x1.e12fp+00, 0x1.a900e5bc8623cp+02, 0x1.3466f41892098p-03},
	{0x1.e1fp+00, 0x1.ab0119397cp+02, 0x1.32f504acbdd4ap-03},
	{0x1.e2bp+00, 0x1.ad003d024cp+02, 0x1.31874a1b76802p-03},
	{0x1.e37p+00, 0x1.af00f80f9cp+02, 0x1.301bd3a4d3776p-03},
	{0x1.e42fp+00, 0x1.b1009c30b063cp+02, 0x1.2eb47cef1dd4cp-03},
	{0x1.e4edp+00, 0x1.b2ff23acab0d4p+02, 0x1.2d5138b07b9bap-03},
	{0x1.e5abp+00, 0x1.b4ff3bd5d0c4cp+02, 0x1.2bf01f893cda6p-03},
	{0x1.e669p+00, 0x1.b700e5491efe4p+02, 0x1.2a912d3ee52a3p-03},
	{0x1.e725p+00, 0x1.b8feb2212cb74p+02, 0x1.293806bfe6d8ap-03},
	{0x1.e7e2p+00, 0x1.bb00c2669da2p+02, 0x1.27df21b3e635dp-03},
	{0x1.e89dp+00, 0x1.bcfeeaa721314p+02, 0x1.268bef6107c07p-03},
	{0x1.e959p+00, 0x1.bf01578533324p+02, 0x1.2538f69187f64p-03},
	{0x1.ea13p+00, 0x1.c0ffd0f74232cp+02, 0x1.23eb9805d3ee3p-03},
	{0x1.eacdp+00, 0x1.c2ffce78b8b54p+02, 0x1.22a0321491e12p-03},
	{0x1.eb87p+00, 0x1.c501509cdef5cp+02, 0x1.2156c1046d85bp-03},
	{0x1.ec3fp+00, 0x1.c6fecc2de52fcp+02, 0x1.2012c403e6796p-03},
	{0x1.ecf8p+00, 0x1.c9008d266f8p+02, 0x1.1eceeb32666ap-03},
	{0x1.edbp+00, 0x1.cb01063c8cp+02, 0x1.1d8eb34dc206ep-03},
	{0x1.ee67p+00, 0x1.cd0031c3359dcp+02, 0x1.1c521110ee0c9p-03},
	{0x1.ef1ep+00, 0x1.cf00d83fc75ep+02, 0x1.1b174246b051dp-03},
	{0x1.efd4p+00, 0x1.d10029fcecdp+02, 0x1.19dff82a3191ap-03},
	{0x1.f08ap+00, 0x1.d300f3a3567ap+02, 0x1.18aa75cbfd2c1p-03},
	{0x1.f13fp+00, 0x1.d500615b48efcp+02, 0x1.1778678e506c7p-03},
	{0x1.f1f4p+00, 0x1.d70143ee165p+02, 0x1.164815ac6d74fp-03},
	{0x1.f2a8p+00, 0x1.d900c364768p+02, 0x1.151b27c77ac31p-03},
	{0x1.f35bp+00, 0x1.dafeda1b3c28cp+02, 0x1.13f1938edd0acp-03},
	{0x1.f40fp+00, 0x1.dd013b9d9a4bcp+02, 0x1.12c802ce7a823p-03},
	{0x1.f4c1p+00, 0x1.deff52ab63904p+02, 0x1.11a3649f308acp-03},
	{0x1.f573p+00, 0x1.e0fed4dd5afacp+02, 0x1.1080655843a24p-03},
	{0x1.f625p+00, 0x1.e2ffc2b495f74p+02, 0x1.0f5f021b56c8cp-03},
	{0x1.f6d6p+00, 0x1.e4ff37efb4a6p+02, 0x1.0e40d4d30e2e9p-03},
	{0x1.f787p+00, 0x1.e70015bb97f5cp+02, 0x1.0d2439609eca1p-03},
	{0x1.f837p+00, 0x1.e8ff73c33c79cp+02, 0x1.0c0ac547776e8p-03},
	{0x1.f8e7p+00, 0x1.eb003745df7dcp+02, 0x1.0af2d915e129cp-03},
	{0x1.f996p+00, 0x1.ecff73ddf2e6p+02, 0x1.09de05fd4a729p-03},
	{0x1.fa45p+00, 0x1.ef0012da104f4p+02, 0x1.08cab121b7a1fp-03},
	{0x1.faf3p+00, 0x1.f0ff23c7441acp+02, 0x1.07ba6777507cfp-03},
	{0x1.fba1p+00, 0x1.f2ff940077b84p+02, 0x1.06ab92a10a455p-03},
	{0x1.fc4fp+00, 0x1.f50163fe3e7bcp+02, 0x1.059e3021a12ffp-03},
	{0x1.fcfbp+00, 0x1.f6fea64387a0cp+02, 0x1.04954fddef1bdp-03},
	{0x1.fda8p+00, 0x1.f9003a28068p+02, 0x1.038c4d9458293p-03},
	{0x1.fe54p+00, 0x1.fb00302ceadp+02, 0x1.02863736c5a7ep-03},
	{0x1.feffp+00, 0x1.fcfe82c0bf3fcp+02, 0x1.018304463832ap-03},
	{0x1.ffabp+00, 0x1.ff012a532844cp+02, 0x1.007faa613993bp-03},
}

// END GENERATED TABLES
