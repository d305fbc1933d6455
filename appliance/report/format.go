package report

import (
	"math"
	"strconv"
	"strings"
)

// Language is the language of a report: its headings, labels and number
// format.
type Language string

// Report languages.
const (
	// English: decimal point, thousands comma (1,234.5 m).
	English Language = "en"
	// Portuguese is Brazilian Portuguese: decimal comma, thousands dot
	// (1.234,5 m).
	Portuguese Language = "pt-BR"
)

// Disclaimer is the disclaimer of SPEC §1 item 6, verbatim (with the
// capital of a sentence), that every report carries; a pt-BR report carries
// it too, after its translation.
const Disclaimer = "The automatic explanation does not replace the technical opinion of the responsible engineer."

// Number formats v with dec decimals in the number format of l: English
// 1,234.5, Brazilian Portuguese 1.234,5. The minus sign is the ASCII
// hyphen-minus (searchable in extracted text); a value that rounds to zero
// has no sign; NaN and ±Inf are an em dash.
func (l Language) Number(v float64, dec int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "—"
	}
	s := strconv.FormatFloat(math.Abs(v), 'f', dec, 64)
	neg := v < 0 && strings.ContainsAny(s, "123456789")
	intPart, frac, _ := strings.Cut(s, ".")
	thousands, decimal := ",", "."
	if l == Portuguese {
		thousands, decimal = ".", ","
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, r := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteString(thousands)
		}
		b.WriteRune(r)
	}
	if frac != "" {
		b.WriteString(decimal)
		b.WriteString(frac)
	}
	return b.String()
}

// texts are the words of a report in one language.
type texts struct {
	title, generated, page, support                         string
	sites, receiver, tower, latitude, longitude             string
	ground, antenna, operator, towerID, source, mAMSL, mAGL string
	path, distance, azRxTower, azTowerRx, frequency         string
	profile, axisX, axisY, noProfile                        string
	legTerrain, legLOS, legF1, legF60, legObstacle          string
	legTower, legReceiver, samples                          string
	clearance, losClear, fresnelOK, minClearance, yes, no   string
	obstacle, fromTower, fromReceiver, obstClearance, f1    string
	voidFilled                                              string
	minHeights, rxLOS, rxF60, txLOS, txF60, notAchievable   string
	budget, eirp, eirpAssumed, pathLoss, pattern, rxGain    string
	cable, rxPower, threshold, margin                       string
	engine, engineID, engineVersion, diffraction            string
	warnings, noWarnings, warningsLang                      string
	lackedOne, lackedMany                                   string // the note of the characters the fonts lack (%d, %s)
	provenance, placement, uncertainty, dataset, synthetic  string
	syntheticNo, syntheticYes, updated, unknown             string
	disclaimer, disclaimerText, screening                   string
	approval, engineerName, registration, signature, date   string

	// Batch summary.
	sumTitle, job, jobID, tenant, brand, created, engines, rows string
	byStatus, status, count, share, total                       string
	stOK, stLow, stNoTower, stError                             string
	distribution, noMargins, marginDB, rowsWithMargin           string
	qMin, qMedian, qMax, histAxis, histRows                     string
	worst, colRow, colReceiver, colLat, colLon, colTower        string
	colStatus, noMargin, reason, firstRow, moreReasons          string
	pdfs, pdfsIn, pdfsOut, pdfsWhy, dataProvenance              string
}

// words returns the texts of l; anything but Portuguese is English.
func (l Language) words() *texts {
	if l == Portuguese {
		return &texts{
			title: "Relatório de enlace", generated: "Gerado em", page: "Página %d de %s", support: "Suporte",
			sites: "Pontas do enlace", receiver: "Receptor", tower: "Torre", latitude: "Latitude",
			longitude: "Longitude", ground: "Altitude do terreno", antenna: "Altura da antena",
			operator: "Operadora", towerID: "Identificador", source: "Fonte", mAMSL: "m (altitude)", mAGL: "m acima do solo",
			path: "Trajeto", distance: "Distância", azRxTower: "Azimute receptor → torre",
			azTowerRx: "Azimute torre → receptor", frequency: "Frequência",
			profile: "Perfil do trajeto", axisX: "Distância a partir da torre (km)", axisY: "Altitude (m)",
			noProfile:  "O perfil do trajeto não foi calculado para este resultado (peça include=profile).",
			legTerrain: "Terreno com curvatura da Terra (k = 4/3)", legLOS: "Linha de visada",
			legF1: "1ª zona de Fresnel", legF60: "60 % de F1", legObstacle: "Obstáculo dominante",
			legTower: "Torre", legReceiver: "Receptor", samples: "amostras",
			clearance: "Desobstrução", losClear: "Visada direta livre", fresnelOK: "60 % da 1ª zona de Fresnel livre",
			minClearance: "Desobstrução mínima", yes: "sim", no: "não",
			obstacle: "Obstáculo dominante", fromTower: "Distância da torre", fromReceiver: "Distância do receptor",
			obstClearance: "Folga sobre o obstáculo", f1: "Raio de F1 no obstáculo",
			voidFilled: "altitude interpolada sobre lacuna do MDE",
			minHeights: "Alturas mínimas de antena", rxLOS: "Receptor, visada direta", rxF60: "Receptor, 60 % de F1",
			txLOS: "Torre, visada direta", txF60: "Torre, 60 % de F1", notAchievable: "inatingível até %s m",
			budget: "Orçamento do enlace", eirp: "EIRP da torre", eirpAssumed: "assumida: a torre não informa ERP",
			pathLoss: "Perda no trajeto", pattern: "Perda do diagrama da antena", rxGain: "Ganho da antena receptora",
			cable: "Perda em cabos e conectores", rxPower: "Potência recebida", threshold: "Limiar do receptor",
			margin: "Margem do enlace",
			engine: "Motor de propagação", engineID: "Motor", engineVersion: "Versão", diffraction: "Perda por difração",
			warnings: "Avisos", noWarnings: "Nenhum aviso.", warningsLang: "Mensagens em inglês, como a API as devolve.",
			lackedOne:  "%d caractere deste documento não pôde ser desenhado com as suas fontes e aparece como o caractere de substituição (U+FFFD): %s.",
			lackedMany: "%d caracteres deste documento não puderam ser desenhados com as suas fontes e aparecem como o caractere de substituição (U+FFFD): %s.",
			provenance: "Procedência dos dados da torre", placement: "Posicionamento", uncertainty: "Incerteza de posição",
			dataset: "Conjunto de dados", synthetic: "Dado sintético", syntheticNo: "não: registro de fonte pública",
			syntheticYes: "DADO SINTÉTICO DE EXEMPLO: esta torre foi gerada e não é infraestrutura real.",
			updated:      "Atualização da fonte", unknown: "desconhecido",
			disclaimer:     "Aviso",
			disclaimerText: "A explicação automática não substitui o parecer técnico do engenheiro responsável.",
			screening:      "Este relatório é uma ferramenta de triagem e due diligence; não substitui o projeto oficial do enlace.",
			approval:       "Responsabilidade técnica", engineerName: "Engenheiro responsável", registration: "Registro profissional (CREA)",
			signature: "Assinatura", date: "Data",

			sumTitle: "Resumo do lote", job: "Trabalho", jobID: "Identificador do trabalho", tenant: "Cliente",
			brand: "Marca", created: "Criado em", engines: "Motores", rows: "Linhas",
			byStatus: "Resultados por situação", status: "Situação", count: "Linhas", share: "Parcela", total: "Total",
			stOK: "Margem suficiente", stLow: "Margem baixa", stNoTower: "Sem torre", stError: "Erro",
			distribution: "Distribuição da margem do enlace", noMargins: "Nenhuma linha tem margem calculada.",
			marginDB: "Margem (dB)", rowsWithMargin: "%s linhas", qMin: "Mín.", qMedian: "Mediana", qMax: "Máx.",
			histAxis: "Margem do enlace (dB), classes de %s dB", histRows: "Linhas",
			worst: "As %d linhas de menor margem", colRow: "Linha", colReceiver: "Receptor", colLat: "Lat.",
			colLon: "Lon.", colTower: "Torre", colStatus: "Situação", noMargin: "Linhas sem margem",
			reason: "Motivo", firstRow: "1ª linha", moreReasons: "mais %d motivos",
			pdfs: "Relatórios por linha (PDF)", pdfsIn: "Incluídos no pacote", pdfsOut: "Não incluídos",
			pdfsWhy: "Motivo", dataProvenance: "Procedência dos dados",
		}
	}
	return &texts{
		title: "Link report", generated: "Generated", page: "Page %d of %s", support: "Support",
		sites: "Link ends", receiver: "Receiver", tower: "Tower", latitude: "Latitude",
		longitude: "Longitude", ground: "Ground height", antenna: "Antenna height",
		operator: "Operator", towerID: "Id", source: "Source", mAMSL: "m AMSL", mAGL: "m above ground",
		path: "Path", distance: "Distance", azRxTower: "Azimuth receiver → tower",
		azTowerRx: "Azimuth tower → receiver", frequency: "Frequency",
		profile: "Path profile", axisX: "Distance from the tower (km)", axisY: "Height (m AMSL)",
		noProfile:  "The path profile was not computed for this result (ask for include=profile).",
		legTerrain: "Terrain with earth curvature (k = 4/3)", legLOS: "Line of sight",
		legF1: "1st Fresnel zone", legF60: "60 % of F1", legObstacle: "Dominant obstacle",
		legTower: "Tower", legReceiver: "Receiver", samples: "samples",
		clearance: "Clearance", losClear: "Line of sight clear", fresnelOK: "60 % of the 1st Fresnel zone clear",
		minClearance: "Minimum clearance", yes: "yes", no: "no",
		obstacle: "Dominant obstacle", fromTower: "Distance from the tower", fromReceiver: "Distance from the receiver",
		obstClearance: "Clearance over the obstacle", f1: "F1 radius at the obstacle",
		voidFilled: "height interpolated across a DEM void",
		minHeights: "Minimum antenna heights", rxLOS: "Receiver, line of sight", rxF60: "Receiver, 60 % of F1",
		txLOS: "Tower, line of sight", txF60: "Tower, 60 % of F1", notAchievable: "not achievable up to %s m",
		budget: "Link budget", eirp: "Tower EIRP", eirpAssumed: "assumed: the tower has no ERP",
		pathLoss: "Path loss", pattern: "Antenna pattern loss", rxGain: "Receiver antenna gain",
		cable: "Cable and connector loss", rxPower: "Received power", threshold: "Receiver threshold",
		margin: "Link margin",
		engine: "Propagation engine", engineID: "Engine", engineVersion: "Version", diffraction: "Diffraction loss",
		warnings: "Warnings", noWarnings: "No warnings.",
		lackedOne:  "%d character of this document could not be drawn with its fonts and is shown as the replacement character (U+FFFD): %s.",
		lackedMany: "%d characters of this document could not be drawn with its fonts and are shown as the replacement character (U+FFFD): %s.",
		provenance: "Tower data provenance", placement: "Placement", uncertainty: "Position uncertainty",
		dataset: "Dataset", synthetic: "Synthetic data", syntheticNo: "no: public source record",
		syntheticYes: "SYNTHETIC SAMPLE DATA: this tower is generated, not real infrastructure.",
		updated:      "Source updated", unknown: "unknown",
		disclaimer: "Disclaimer",
		screening:  "This report is a screening and due-diligence tool; it does not replace the official design of the link.",
		approval:   "Engineering responsibility", engineerName: "Responsible engineer", registration: "Professional registration",
		signature: "Signature", date: "Date",

		sumTitle: "Batch summary", job: "Job", jobID: "Job id", tenant: "Tenant",
		brand: "Brand", created: "Created", engines: "Engines", rows: "Rows",
		byStatus: "Results by status", status: "Status", count: "Rows", share: "Share", total: "Total",
		stOK: "Margin sufficient", stLow: "Low margin", stNoTower: "No tower", stError: "Error",
		distribution: "Link margin distribution", noMargins: "No row has a computed margin.",
		marginDB: "Margin (dB)", rowsWithMargin: "%s rows", qMin: "Min", qMedian: "Median", qMax: "Max",
		histAxis: "Link margin (dB), bins of %s dB", histRows: "Rows",
		worst: "The %d rows with the lowest margin", colRow: "Row", colReceiver: "Receiver", colLat: "Lat",
		colLon: "Lon", colTower: "Tower", colStatus: "Status", noMargin: "Rows without a margin",
		reason: "Reason", firstRow: "First row", moreReasons: "%d more reasons",
		pdfs: "Per-row reports (PDF)", pdfsIn: "Included in the bundle", pdfsOut: "Left out",
		pdfsWhy: "Why", dataProvenance: "Data provenance",
	}
}
