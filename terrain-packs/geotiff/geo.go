package geotiff

import (
	"fmt"
	"math"
)

// PixelToCRS converts continuous pixel coordinates to CRS coordinates
// (degrees or metres, see GeoTransform). (0, 0) is the top-left corner of the
// raster; the centre of pixel (c, r) is (c+0.5, r+0.5).
func (img *Image) PixelToCRS(col, row float64) (x, y float64, err error) {
	if !img.HasTransform {
		return 0, 0, fmt.Errorf("pixel to crs: %w", ErrNoGeoreference)
	}
	t := img.Transform
	return t.OriginX + col*t.PixelWidth, t.OriginY + row*t.PixelHeight, nil
}

// CRSToPixel converts CRS coordinates to continuous pixel coordinates; the
// pixel holding the point is (floor(col), floor(row)).
func (img *Image) CRSToPixel(x, y float64) (col, row float64, err error) {
	if !img.HasTransform {
		return 0, 0, fmt.Errorf("crs to pixel: %w", ErrNoGeoreference)
	}
	t := img.Transform
	return (x - t.OriginX) / t.PixelWidth, (y - t.OriginY) / t.PixelHeight, nil
}

// Projection returns the projection of the image's CRS (EPSG field); it
// fails with ErrNoGeoreference when the CRS is unknown and ErrUnsupported for
// a CRS outside NewProjection's list.
func (img *Image) Projection() (Projection, error) {
	return img.proj, img.projErr
}

// LatLonToPixel converts a latitude/longitude in degrees to continuous pixel
// coordinates (see CRSToPixel), projecting through the image's CRS.
func (img *Image) LatLonToPixel(latDeg, lonDeg float64) (col, row float64, err error) {
	if img.projErr != nil {
		return 0, 0, fmt.Errorf("lat/lon to pixel: %w", img.projErr)
	}
	if !img.HasTransform {
		return 0, 0, fmt.Errorf("lat/lon to pixel: %w", ErrNoGeoreference)
	}
	x, y := img.proj.Forward(latDeg, lonDeg)
	t := img.Transform
	return (x - t.OriginX) / t.PixelWidth, (y - t.OriginY) / t.PixelHeight, nil
}

// PixelToLatLon converts continuous pixel coordinates to latitude and
// longitude in degrees.
func (img *Image) PixelToLatLon(col, row float64) (latDeg, lonDeg float64, err error) {
	if img.projErr != nil {
		return 0, 0, fmt.Errorf("pixel to lat/lon: %w", img.projErr)
	}
	x, y, err := img.PixelToCRS(col, row)
	if err != nil {
		return 0, 0, err
	}
	latDeg, lonDeg = img.proj.Inverse(x, y)
	return latDeg, lonDeg, nil
}

// PixelAtLatLon returns the integer pixel holding a latitude/longitude in
// degrees; ErrOutOfBounds when it lies outside the raster.
func (img *Image) PixelAtLatLon(latDeg, lonDeg float64) (col, row int, err error) {
	c, r, err := img.LatLonToPixel(latDeg, lonDeg)
	if err != nil {
		return 0, 0, err
	}
	if !(c >= 0 && r >= 0 && c < float64(img.Width) && r < float64(img.Height)) {
		return 0, 0, fmt.Errorf("pixel at (%.6f, %.6f): pixel (%.1f, %.1f) of %d×%d: %w", latDeg, lonDeg, c, r, img.Width, img.Height, ErrOutOfBounds)
	}
	return int(math.Floor(c)), int(math.Floor(r)), nil
}

// AtLatLon returns the sample of the pixel holding a latitude/longitude in
// degrees (nearest neighbour, no interpolation).
func (img *Image) AtLatLon(latDeg, lonDeg float64) (float64, error) {
	c, r, err := img.PixelAtLatLon(latDeg, lonDeg)
	if err != nil {
		return 0, err
	}
	return img.At(c, r)
}

// Bounds returns the CRS extent of the raster (outer pixel edges):
// minimum and maximum x and y in CRS units.
func (img *Image) Bounds() (minX, minY, maxX, maxY float64, err error) {
	x0, y0, err := img.PixelToCRS(0, 0)
	if err != nil {
		return 0, 0, 0, 0, err
	}
	x1, y1, _ := img.PixelToCRS(float64(img.Width), float64(img.Height))
	return math.Min(x0, x1), math.Min(y0, y1), math.Max(x0, x1), math.Max(y0, y1), nil
}
