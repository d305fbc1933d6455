package geotiff

import (
	"fmt"
	"math"
)

// Datum selects the reference ellipsoid of a UTM projection.
type Datum uint8

// Datums.
const (
	// DatumWGS84 uses the WGS 84 ellipsoid (a = 6 378 137 m,
	// 1/f = 298.257223563).
	DatumWGS84 Datum = iota + 1
	// DatumSIRGAS2000 uses the GRS 80 ellipsoid of SIRGAS 2000
	// (a = 6 378 137 m, 1/f = 298.257222101).
	DatumSIRGAS2000
)

// ellipsoid returns the semi-major axis (metres) and flattening.
func (d Datum) ellipsoid() (a, f float64) {
	if d == DatumSIRGAS2000 {
		return 6378137, 1 / 298.257222101
	}
	return 6378137, 1 / 298.257223563
}

// EPSG codes of the supported CRSs.
const (
	EPSGWGS84        = 4326  // WGS 84 geographic, degrees
	EPSGSIRGAS2000   = 4674  // SIRGAS 2000 geographic, degrees
	epsgSIRGASUTM11N = 31965 // SIRGAS 2000 / UTM zone 11N .. 22N = 31965 .. 31976
	epsgSIRGASUTM22N = 31976
	epsgSIRGASUTM17S = 31977 // SIRGAS 2000 / UTM zone 17S .. 25S = 31977 .. 31985
	epsgSIRGASUTM25S = 31985
	epsgWGS84UTMN    = 32600 // + zone (1..60)
	epsgWGS84UTMS    = 32700 // + zone (1..60)
)

// Projection converts between geodetic latitude/longitude (degrees) and the
// coordinates of one CRS: identity for geographic CRSs (x = longitude,
// y = latitude, degrees) or Universal Transverse Mercator (metres), computed
// with Krüger's series to sixth order in the third flattening n (Karney
// 2011), accurate to well below a millimetre within the UTM zone and a few
// degrees beyond. No datum shift is applied: SIRGAS 2000 and WGS 84 agree to
// a few centimetres. The zero value is invalid; use NewProjection or UTM.
type Projection struct {
	epsg       int
	geographic bool
	zone       int
	south      bool
	lon0       float64 // central meridian, radians
	k0         float64 // scale on the central meridian
	fe, fn     float64 // false easting / northing, metres
	e          float64 // first eccentricity
	ka         float64 // k0 * rectifying radius A, metres
	alpha      [6]float64
	beta       [6]float64
}

// NewProjection returns the Projection for an EPSG code: 4326 (WGS 84),
// 4674 (SIRGAS 2000), 31965–31985 (SIRGAS 2000 / UTM 11N–22N, 17S–25S),
// 32601–32660 and 32701–32760 (WGS 84 / UTM north and south).
func NewProjection(epsg int) (Projection, error) {
	switch {
	case epsg == EPSGWGS84 || epsg == EPSGSIRGAS2000:
		return Projection{epsg: epsg, geographic: true}, nil
	case epsg >= epsgSIRGASUTM11N && epsg <= epsgSIRGASUTM22N:
		p := UTM(11+epsg-epsgSIRGASUTM11N, false, DatumSIRGAS2000)
		p.epsg = epsg
		return p, nil
	case epsg >= epsgSIRGASUTM17S && epsg <= epsgSIRGASUTM25S:
		p := UTM(17+epsg-epsgSIRGASUTM17S, true, DatumSIRGAS2000)
		p.epsg = epsg
		return p, nil
	case epsg > epsgWGS84UTMN && epsg <= epsgWGS84UTMN+60:
		p := UTM(epsg-epsgWGS84UTMN, false, DatumWGS84)
		p.epsg = epsg
		return p, nil
	case epsg > epsgWGS84UTMS && epsg <= epsgWGS84UTMS+60:
		p := UTM(epsg-epsgWGS84UTMS, true, DatumWGS84)
		p.epsg = epsg
		return p, nil
	case epsg == 0:
		return Projection{}, fmt.Errorf("projection: crs unknown: %w", ErrNoGeoreference)
	}
	return Projection{}, fmt.Errorf("projection: epsg:%d: %w", epsg, ErrUnsupported)
}

// UTM returns the Universal Transverse Mercator projection of zone (1..60,
// clamped) on the ellipsoid of datum: central meridian −183° + 6°·zone, scale
// 0.9996, false easting 500 000 m, false northing 10 000 000 m in the south.
// Its EPSG() is 0 unless obtained through NewProjection.
func UTM(zone int, south bool, datum Datum) Projection {
	zone = min(max(zone, 1), 60)
	semiMajor, f := datum.ellipsoid()
	n := f / (2 - f)
	n2 := n * n
	n3, n4 := n2*n, n2*n2
	n5, n6 := n4*n, n3*n3
	a := semiMajor / (1 + n) * (1 + n2/4 + n4/64 + n6/256)
	p := Projection{
		zone:  zone,
		south: south,
		lon0:  float64(6*zone-183) * math.Pi / 180,
		k0:    0.9996,
		fe:    500000,
		e:     math.Sqrt(f * (2 - f)),
		ka:    0.9996 * a,
	}
	if south {
		p.fn = 10000000
	}
	p.alpha = [6]float64{
		n/2 - 2*n2/3 + 5*n3/16 + 41*n4/180 - 127*n5/288 + 7891*n6/37800,
		13*n2/48 - 3*n3/5 + 557*n4/1440 + 281*n5/630 - 1983433*n6/1935360,
		61*n3/240 - 103*n4/140 + 15061*n5/26880 + 167603*n6/181440,
		49561*n4/161280 - 179*n5/168 + 6601661*n6/7257600,
		34729*n5/80640 - 3418889*n6/1995840,
		212378941 * n6 / 319334400,
	}
	p.beta = [6]float64{
		n/2 - 2*n2/3 + 37*n3/96 - n4/360 - 81*n5/512 + 96199*n6/604800,
		n2/48 + n3/15 - 437*n4/1440 + 46*n5/105 - 1118711*n6/3870720,
		17*n3/480 - 37*n4/840 - 209261*n5/4838400 + 5569*n6/90720,
		4397*n4/161280 - 11*n5/504 - 830251*n6/7257600,
		4583*n5/161280 - 108847*n6/3991680,
		20648693 * n6 / 638668800,
	}
	return p
}

// UTMZone returns the standard UTM zone (1..60) of a longitude in degrees.
func UTMZone(lonDeg float64) int {
	z := int(math.Floor((lonDeg+180)/6)) + 1
	return min(max(z, 1), 60)
}

// EPSG returns the EPSG code, 0 for a projection built directly with UTM.
func (p Projection) EPSG() int { return p.epsg }

// Geographic reports whether the CRS is geographic (coordinates in degrees).
func (p Projection) Geographic() bool { return p.geographic }

// Zone returns the UTM zone and hemisphere; zone is 0 for geographic CRSs.
func (p Projection) Zone() (zone int, south bool) { return p.zone, p.south }

// Forward converts latitude and longitude (degrees) to CRS coordinates:
// easting/northing in metres for UTM, (longitude, latitude) in degrees for a
// geographic CRS.
func (p Projection) Forward(latDeg, lonDeg float64) (x, y float64) {
	if p.geographic {
		return lonDeg, latDeg
	}
	phi := latDeg * math.Pi / 180
	lam := math.Remainder(lonDeg*math.Pi/180-p.lon0, 2*math.Pi)
	tau := math.Tan(phi)
	if math.Abs(latDeg) == 90 {
		tau = math.Copysign(math.Inf(1), latDeg)
	}
	taup := p.taup(tau)
	cl := math.Cos(lam)
	xip := math.Atan2(taup, cl)
	etap := math.Asinh(math.Sin(lam) / math.Hypot(taup, cl))
	xi, eta := xip, etap
	for j := 0; j < 6; j++ {
		k := 2 * float64(j+1)
		xi += p.alpha[j] * math.Sin(k*xip) * math.Cosh(k*etap)
		eta += p.alpha[j] * math.Cos(k*xip) * math.Sinh(k*etap)
	}
	return p.fe + p.ka*eta, p.fn + p.ka*xi
}

// Inverse converts CRS coordinates (metres for UTM, degrees for a
// geographic CRS: x = longitude, y = latitude) to latitude and longitude in
// degrees.
func (p Projection) Inverse(x, y float64) (latDeg, lonDeg float64) {
	if p.geographic {
		return y, x
	}
	xi := (y - p.fn) / p.ka
	eta := (x - p.fe) / p.ka
	xip, etap := xi, eta
	for j := 0; j < 6; j++ {
		k := 2 * float64(j+1)
		xip -= p.beta[j] * math.Sin(k*xi) * math.Cosh(k*eta)
		etap -= p.beta[j] * math.Cos(k*xi) * math.Sinh(k*eta)
	}
	se, cx := math.Sinh(etap), math.Cos(xip)
	taup := math.Sin(xip) / math.Hypot(se, cx)
	lam := math.Atan2(se, cx)
	// Newton iteration for tau from tau' (Karney 2011, eqs 19-21).
	e2m := 1 - p.e*p.e
	tau := taup / e2m
	for i := 0; i < 10; i++ {
		ti := p.taup(tau)
		d := (taup - ti) / math.Sqrt(1+ti*ti) * (1 + e2m*tau*tau) / (e2m * math.Sqrt(1+tau*tau))
		tau += d
		if !(math.Abs(d) > 1e-14*math.Max(1, math.Abs(tau))) {
			break
		}
	}
	latDeg = math.Atan(tau) * 180 / math.Pi
	lonDeg = (p.lon0 + lam) * 180 / math.Pi
	return latDeg, lonDeg
}

// taup returns tan of the conformal latitude for tau = tan of the geodetic
// latitude.
func (p Projection) taup(tau float64) float64 {
	if math.IsInf(tau, 0) {
		return tau
	}
	r := math.Sqrt(1 + tau*tau)
	sig := math.Sinh(p.e * math.Atanh(p.e*tau/r))
	return tau*math.Sqrt(1+sig*sig) - sig*r
}
