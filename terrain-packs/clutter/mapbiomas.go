package clutter

// MapBiomasEntry is one row of the MapBiomas Collection 6 → clutter mapping.
type MapBiomasEntry struct {
	Code    int    // MapBiomas class code (pixel value)
	LabelPT string // official Portuguese label
	Class   Class  // clutter class
	Note    string // why, when not obvious; "" otherwise
}

// MapBiomasTable returns the mapping from MapBiomas Collection 6 codes to
// clutter classes, in code order: the 26 codes of the official legend
// (mapbiomas-legend-collection60.qml), code 6 (flooded forest, present in the
// rasters but missing from that legend) and the level-1/level-2 parent codes
// 1, 10, 14, 22 and 26 that some products use. MAPPING.md is this table
// written out; a test keeps them equal. Every other code maps to Unknown.
func MapBiomasTable() []MapBiomasEntry {
	return []MapBiomasEntry{
		{1, "Floresta", Forest, "level-1 parent class (not in the collection-6 QML legend)"},
		{3, "Formação Florestal", Forest, ""},
		{4, "Formação Savânica", Savanna, ""},
		{5, "Mangue", Forest, "mangrove: closed woody canopy 5–20 m"},
		{6, "Floresta Alagável", Forest, "flooded forest (várzea/igapó); in the rasters, missing from the collection-6 QML legend"},
		{9, "Floresta Plantada", Forest, "eucalyptus/pine plantations, 15–30 m"},
		{10, "Formação Natural não Florestal", Other, "level-1 parent class (not in the collection-6 QML legend)"},
		{11, "Área Úmida não Florestal", Grassland, "herbaceous wetland: low vegetation, open like grassland"},
		{12, "Formação Campestre", Grassland, ""},
		{13, "Outra Formação Natural não Florestal", Other, "shrubby or mixed natural formations that fit no other class"},
		{14, "Agropecuária", Mosaic, "level-1 parent class (not in the collection-6 QML legend)"},
		{15, "Pastagem", Pasture, ""},
		{18, "Agricultura", Mosaic, "agriculture without crop type: Mosaic collects all non-soybean agriculture"},
		{19, "Cultura Anual e Perene", Mosaic, "annual and perennial crops other than soybean"},
		{20, "Cultura Semi-Perene", Mosaic, "mostly sugar cane, 2–4 m"},
		{21, "Mosaico de Agricultura e Pastagem", Mosaic, ""},
		{22, "Área não Vegetada", Bare, "level-1 parent class (not in the collection-6 QML legend)"},
		{23, "Praia e Duna", Bare, ""},
		{24, "Infraestrutura Urbana", Urban, ""},
		{25, "Outra Área não Vegetada", Bare, ""},
		{26, "Corpo D'água", Water, "level-1 parent class (not in the collection-6 QML legend)"},
		{27, "Não observado", Unknown, "not observed (clouds); also the NoData value of the AP sample raster"},
		{29, "Afloramento Rochoso", Bare, ""},
		{30, "Mineração", Bare, ""},
		{31, "Aquicultura", Water, "fish/shrimp ponds: open water"},
		{32, "Apicum", Bare, "hypersaline tidal flat, unvegetated"},
		{33, "Rio, Lago e Oceano", Water, ""},
		{34, "Glacias", Bare, "glaciers (not present in Brazil): no vegetation"},
		{36, "Lavoura Perene", Mosaic, "perennial crops (coffee, citrus), 2–5 m"},
		{39, "Soja", Soybean, ""},
		{40, "Arroz (beta)", Mosaic, "rice: annual crop other than soybean"},
		{41, "Outras Lavouras Temporárias", Mosaic, "other temporary crops (maize, cotton, beans...)"},
	}
}

// FromMapBiomas returns the clutter class of a MapBiomas Collection 6 code
// (see MapBiomasTable); Unknown for 0, 27 (not observed) and codes outside
// the table.
func FromMapBiomas(code int) Class {
	switch code {
	case 1, 3, 5, 6, 9:
		return Forest
	case 4:
		return Savanna
	case 11, 12:
		return Grassland
	case 15:
		return Pasture
	case 14, 18, 19, 20, 21, 36, 40, 41:
		return Mosaic
	case 24:
		return Urban
	case 22, 23, 25, 29, 30, 32, 34:
		return Bare
	case 26, 31, 33:
		return Water
	case 39:
		return Soybean
	case 10, 13:
		return Other
	}
	return Unknown
}

// FromMapBiomasSample is FromMapBiomas for a raster sample as returned by
// geotiff.Image.At (a float64 holding an integer code); non-integer and
// out-of-range values map to Unknown.
func FromMapBiomasSample(v float64) Class {
	if !(v >= 0 && v <= 255) || v != float64(int(v)) {
		return Unknown
	}
	return FromMapBiomas(int(v))
}
