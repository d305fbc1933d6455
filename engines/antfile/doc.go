// Package antfile reads antenna radiation-pattern files (issue 25 scope 1)
// into appliance.AntennaPattern: Planet/MSI (.msi, .pln, .prn, .txt),
// NSMA / TIA-804-B (.adf) and Radio Mobile V3 (.ant). It is a leaf: it
// imports only appliance, knows no service, store or HTTP, and reads
// bytes, never files. appliance/equipment imports a file through it.
//
// # Basics
//
//	f, err := antfile.Parse(name, data, "")    // format from the extension, else the content
//	a := f.Antenna(name, sha256Hex)             // an appliance.Antenna without id or owner
//
// # Conventions
//
// Every format is converted to the angles of appliance.AntennaPattern:
// horizontal offsets clockwise from the boresight, vertical angles below
// the horizon (0 front horizon, 90 nadir, 180 back horizon, 270 zenith),
// attenuation in dB below the peak gain. The vertical convention is the
// one the files with a known tilt establish: the Amphenol B800A065-18
// "0E" and "4E" files (0° and 4° electrical downtilt) peak at 0° and 4°,
// the Huawei AMB4520R8v06 "04T" and "05T" files at 4° and 5°
// (TestIssue25_TiltConventions). The horizontal direction cannot be settled by
// these files (their cuts are symmetric, or steered by an unstated
// amount); clockwise is the reading of crc-covlib and CloudRF's msi2adf.
// NSMA vertical cuts are elevations above the horizon (TIA-804-B, as
// crc-covlib reads them) and are negated; Radio Mobile's vertical values
// start at the zenith (−90°). MSI files measured from the zenith (θ = 0
// up, the Tongyu files) are recognised and converted (ParseMSI). Between
// samples the attenuation is linear in dB.
//
// # Refusals
//
// A malformed file is refused with a *LineError naming the 1-based line
// (matching appliance.ErrInvalid): a file over MaxFileBytes (2 MiB) or a
// line over MaxLineBytes, a NUL byte, a missing or short table, a field
// that is no number, a value out of range, an angle given twice with
// different values, a cut with fewer than 4 samples or a gap over 45°.
// Nothing in a file can make a parser panic or allocate beyond a few times
// the file's size (FuzzParse*).
//
// # Warnings
//
// What a file says that the parser had to interpret travels with the
// result (File.Warnings, then appliance.Antenna.Warnings):
// pattern_not_normalised (a cut's least attenuation is not 0),
// stated_value_mismatch (H_WIDTH, V_WIDTH, FRONT_TO_BACK or
// ELECTRICAL_TILT beyond max(2°, 10 %), 3 dB or 1° of what the pattern
// shows), unit_assumed (a GAIN without a unit, taken as dBd; NSMA values
// labelled relative that are absolute gains), vertical_zenith_referenced,
// cut_ignored (cross-polar cuts, further frequencies) and gain_not_stated
// (Radio Mobile).
package antfile
