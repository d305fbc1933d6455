package geotiff

import "errors"

// Sentinel errors. Every error returned by this package wraps one of these
// (or an I/O error from the underlying reader) with the operation that failed.
var (
	// ErrFormat means the file is not a well-formed TIFF (bad header, IFD,
	// tag type or count, offsets outside the file, corrupt compressed data).
	ErrFormat = errors.New("malformed tiff")
	// ErrUnsupported means the file is a valid TIFF that uses a feature this
	// decoder does not implement (JPEG/LERC compression, several bands,
	// 1-bit samples, rotated geotransform, unknown projection...).
	ErrUnsupported = errors.New("unsupported tiff feature")
	// ErrLimit means the file asks for more than the configured limits
	// (image dimensions, decoded block size).
	ErrLimit = errors.New("tiff exceeds decoder limits")
	// ErrOutOfBounds means a pixel or window lies outside the raster.
	ErrOutOfBounds = errors.New("pixel outside raster")
	// ErrNoGeoreference means the file carries no usable geotransform or CRS
	// for the requested coordinate operation.
	ErrNoGeoreference = errors.New("no georeference")
)
