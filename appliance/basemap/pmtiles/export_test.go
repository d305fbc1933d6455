package pmtiles

// ParseDirectoryForTest exposes parseDirectory to the external tests.
func ParseDirectoryForTest(b []byte) (int, error) {
	es, err := parseDirectory(b)
	return len(es), err
}
