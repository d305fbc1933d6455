package ai

import (
	"fmt"
	"strconv"
	"strings"

	"linkplan/appliance"
)

// Languages of the answers.
const (
	LangPT = "pt-BR"
	LangEN = "en"
)

// Disclaimer returns the SPEC §1.6 disclaimer in lang, the last line of
// every answer.
func Disclaimer(lang string) string {
	if lang == LangEN {
		return "Disclaimer: the automatic explanation does not replace the technical opinion of the responsible engineer."
	}
	return "Aviso: a explicação automática não substitui o parecer técnico do engenheiro responsável."
}

// TemplateModel is the name of the built-in explainer in GET /ai/models.
const TemplateModel = "linkplan-template"

// templateIntro says what wrote the text.
func templateIntro(lang, engine, version string) string {
	if lang == LangEN {
		return fmt.Sprintf("Explanation written by linkplan's fixed template (a template, not a language model) from the numbers of the %s engine (%s).", engine, version)
	}
	return fmt.Sprintf("Explicação escrita pelo texto fixo do linkplan (um template, não um modelo de linguagem) a partir dos números do motor %s (%s).", engine, version)
}

// num formats v with dec decimals in lang (decimal comma in pt-BR).
func num(lang string, v float64, dec int) string {
	s := strconv.FormatFloat(v, 'f', dec, 64)
	if s == "-0" || strings.HasPrefix(s, "-0.") && strings.Trim(s[3:], "0") == "" {
		s = s[1:]
	}
	if lang != LangEN {
		s = strings.Replace(s, ".", ",", 1)
	}
	return s
}

// ExplainLink is the template explanation of a link analysis: every number
// in it comes from LinkFacts, so it always passes the grounding check.
func ExplainLink(lang string, a *appliance.LinkAnalysis) string {
	en := lang == LangEN
	var b strings.Builder
	version := a.EngineVersion
	if version == "" {
		version = "-"
	}
	b.WriteString(templateIntro(lang, string(a.Engine), version))
	b.WriteString("\n")
	if a.Best == nil {
		if en {
			fmt.Fprintf(&b, "No tower could serve this receiver within %s km.", num(lang, a.Request.MaxDistanceKm, 1))
		} else {
			fmt.Fprintf(&b, "Nenhuma torre atende este receptor num raio de %s km.", num(lang, a.Request.MaxDistanceKm, 1))
		}
		return b.String()
	}
	c := a.Best
	closes := c.LinkMarginDB >= 0
	if en {
		verdict := "the link closes"
		if !closes {
			verdict = "the link does not close"
		}
		fmt.Fprintf(&b, "The best tower is %s (%s), %s km away at azimuth %s°. Path loss is %s dB, of which %s dB is diffraction; received power %s dBm against a threshold of %s dBm gives a margin of %s dB: %s.",
			c.Tower.ID, c.Tower.Operator, num(lang, c.DistanceKm, 2), num(lang, c.AzimuthDeg, 0), num(lang, c.Prediction.PathLossDB, 1),
			num(lang, c.Prediction.DiffractionDB, 1), num(lang, c.RxPowerDBm, 1), num(lang, a.Request.RxThresholdDBm, 1), num(lang, c.LinkMarginDB, 1), verdict)
	} else {
		verdict := "o enlace fecha"
		if !closes {
			verdict = "o enlace não fecha"
		}
		fmt.Fprintf(&b, "A melhor torre é %s (%s), a %s km, no azimute %s°. A perda de percurso é %s dB, dos quais %s dB de difração; a potência recebida de %s dBm contra o limiar de %s dBm dá margem de %s dB: %s.",
			c.Tower.ID, c.Tower.Operator, num(lang, c.DistanceKm, 2), num(lang, c.AzimuthDeg, 0), num(lang, c.Prediction.PathLossDB, 1),
			num(lang, c.Prediction.DiffractionDB, 1), num(lang, c.RxPowerDBm, 1), num(lang, a.Request.RxThresholdDBm, 1), num(lang, c.LinkMarginDB, 1), verdict)
	}
	b.WriteString("\n")
	b.WriteString(clearanceSentence(lang, c))
	if cs := caveatSentence(lang, a.BestTowerCaveats); cs != "" {
		b.WriteString("\n")
		b.WriteString(cs)
	}
	if len(a.Alternatives) > 0 {
		b.WriteString("\n")
		if en {
			b.WriteString("Alternatives:")
		} else {
			b.WriteString("Alternativas:")
		}
		for i := range a.Alternatives {
			alt := &a.Alternatives[i]
			sep := ","
			if i == 0 {
				sep = ""
			}
			if en {
				fmt.Fprintf(&b, "%s %s (margin %s dB, %s km)", sep, alt.Tower.ID, num(lang, alt.LinkMarginDB, 1), num(lang, alt.DistanceKm, 2))
			} else {
				fmt.Fprintf(&b, "%s %s (margem %s dB, %s km)", sep, alt.Tower.ID, num(lang, alt.LinkMarginDB, 1), num(lang, alt.DistanceKm, 2))
			}
		}
		b.WriteString(".")
	}
	return b.String()
}

// clearanceSentence explains line of sight, Fresnel clearance and, with a
// path check, the obstacle and the minimum heights.
func clearanceSentence(lang string, c *appliance.LinkCandidate) string {
	en := lang == LangEN
	pct := num(lang, 100*c.Prediction.MinClearanceRatio, 0)
	var b strings.Builder
	switch {
	case en && c.Prediction.LOSClear:
		fmt.Fprintf(&b, "The path has line of sight; the smallest clearance of the first Fresnel zone is %s %% (the design rule asks for 60 %%).", pct)
	case en:
		fmt.Fprintf(&b, "The terrain blocks the line of sight; the smallest clearance of the first Fresnel zone is %s %% (the design rule asks for 60 %%).", pct)
	case c.Prediction.LOSClear:
		fmt.Fprintf(&b, "O percurso tem visada direta; a menor folga da primeira zona de Fresnel é %s %% (a regra de projeto pede 60 %%).", pct)
	default:
		fmt.Fprintf(&b, "O terreno bloqueia a visada direta; a menor folga da primeira zona de Fresnel é %s %% (a regra de projeto pede 60 %%).", pct)
	}
	p := c.Path
	if p == nil {
		return b.String()
	}
	if o := p.Obstacle; o != nil {
		if en {
			fmt.Fprintf(&b, " The dominant obstacle is %s km from the receiver.", num(lang, o.DistanceFromRxM/1000, 2))
		} else {
			fmt.Fprintf(&b, " O obstáculo dominante fica a %s km do receptor.", num(lang, o.DistanceFromRxM/1000, 2))
		}
	}
	h := func(m appliance.MinHeight) string {
		if !m.Achievable {
			if en {
				return "not achievable below " + num(lang, m.HeightM, 0) + " m"
			}
			return "inatingível abaixo de " + num(lang, m.HeightM, 0) + " m"
		}
		return num(lang, m.HeightM, 2) + " m"
	}
	if en {
		fmt.Fprintf(&b, " With the tower as it is, the minimum receiver height for line of sight is %s, and for 60 %% of the first Fresnel zone %s.", h(p.RxMinLOS), h(p.RxMinFresnel60))
	} else {
		fmt.Fprintf(&b, " Com a torre como está, a altura mínima do receptor para visada direta é %s, e para 60 %% da primeira zona de Fresnel, %s.", h(p.RxMinLOS), h(p.RxMinFresnel60))
	}
	return b.String()
}

// ExplainHeight is the template explanation of a height suggestion; every
// number in it comes from HeightFacts.
func ExplainHeight(lang string, s *appliance.HeightSuggestion) string {
	en := lang == LangEN
	c := s.Current
	var b strings.Builder
	b.WriteString(templateIntro(lang, string(c.Prediction.Engine), c.Prediction.EngineVersion))
	b.WriteString("\n")
	end := map[bool]string{true: "receiver", false: "tower"}[s.Request.Move == appliance.HeightMoveReceiver]
	if !en {
		end = map[bool]string{true: "do receptor", false: "da torre"}[s.Request.Move == appliance.HeightMoveReceiver]
	}
	target := num(lang, s.Request.TargetMarginDB, 1)
	if s.Found {
		a := s.At
		if en {
			fmt.Fprintf(&b, "The engine searched the %s height in steps of %s m: the lowest height that clears 60 %% of the first Fresnel zone and reaches the target margin of %s dB is %s m, where the margin is %s dB and the smallest Fresnel clearance %s %%.",
				end, num(lang, s.Request.StepM, 1), target, num(lang, s.HeightM, 2), num(lang, a.LinkMarginDB, 1), num(lang, 100*a.Prediction.MinClearanceRatio, 0))
		} else {
			fmt.Fprintf(&b, "O motor buscou a altura %s em passos de %s m: a menor altura que libera 60 %% da primeira zona de Fresnel e atinge a margem alvo de %s dB é %s m, onde a margem é %s dB e a menor folga de Fresnel %s %%.",
				end, num(lang, s.Request.StepM, 1), target, num(lang, s.HeightM, 2), num(lang, a.LinkMarginDB, 1), num(lang, 100*a.Prediction.MinClearanceRatio, 0))
		}
	} else {
		why := map[string][2]string{
			"line_of_sight": {"the terrain still blocks the line of sight", "o terreno ainda bloqueia a visada direta"},
			"fresnel60":     {"60 % of the first Fresnel zone is still obstructed", "60 % da primeira zona de Fresnel continua obstruída"},
			"margin":        {"the margin stays below the target", "a margem fica abaixo do alvo"},
		}[s.FailingRule]
		if en {
			fmt.Fprintf(&b, "No %s height up to %s m meets the rules (target margin %s dB): %s.", end, num(lang, s.Request.MaxHeightM, 1), target, why[0])
		} else {
			fmt.Fprintf(&b, "Nenhuma altura %s até %s m atende às regras (margem alvo %s dB): %s.", end, num(lang, s.Request.MaxHeightM, 1), target, why[1])
		}
	}
	b.WriteString("\n")
	if en {
		fmt.Fprintf(&b, "At the current heights the margin is %s dB. ", num(lang, c.LinkMarginDB, 1))
	} else {
		fmt.Fprintf(&b, "Nas alturas atuais a margem é %s dB. ", num(lang, c.LinkMarginDB, 1))
	}
	b.WriteString(clearanceSentence(lang, c))
	return b.String()
}

// ExplainCompare is the template explanation of an engine comparison;
// every number in it comes from CompareFacts.
func ExplainCompare(lang string, rows []appliance.EngineCompareRow) string {
	en := lang == LangEN
	var b strings.Builder
	if en {
		b.WriteString("Explanation written by linkplan's fixed template (a template, not a language model) from the engines' numbers.\n")
	} else {
		b.WriteString("Explicação escrita pelo texto fixo do linkplan (um template, não um modelo de linguagem) a partir dos números dos motores.\n")
	}
	lo, hi, ok := lossRange(rows)
	if !ok {
		if en {
			b.WriteString("No engine could answer this case.")
		} else {
			b.WriteString("Nenhum motor conseguiu responder a este caso.")
		}
		return b.String()
	}
	name := func(r appliance.EngineCompareRow) string {
		if r.UsedEngine != "" && r.UsedEngine != r.Engine {
			if en {
				return fmt.Sprintf("%s (answered by %s)", r.Engine, r.UsedEngine)
			}
			return fmt.Sprintf("%s (respondido pelo %s)", r.Engine, r.UsedEngine)
		}
		return string(r.Engine)
	}
	var loE, hiE string
	for _, r := range rows {
		if r.Err == nil && r.PathLossDB == lo && loE == "" {
			loE = name(r)
		}
		if r.Err == nil && r.PathLossDB == hi && hiE == "" {
			hiE = name(r)
		}
	}
	if en {
		fmt.Fprintf(&b, "The engines' path losses span %s dB: the lowest is %s with %s dB, the highest %s with %s dB. Engines model terrain differently (free space with one knife edge, ITU-R P.1812 and P.1411, the NTIA ITM), so a wide spread says the path depends on how its obstacles are modelled.",
			num(lang, hi-lo, 1), loE, num(lang, lo, 1), hiE, num(lang, hi, 1))
	} else {
		fmt.Fprintf(&b, "As perdas de percurso dos motores variam %s dB: a menor é do %s, com %s dB, e a maior do %s, com %s dB. Os motores modelam o terreno de formas diferentes (espaço livre com um gume de faca, ITU-R P.1812 e P.1411, o ITM da NTIA), então uma diferença grande indica que o percurso depende de como os obstáculos são modelados.",
			num(lang, hi-lo, 1), loE, num(lang, lo, 1), hiE, num(lang, hi, 1))
	}
	for _, r := range rows {
		b.WriteString("\n")
		switch {
		case r.Err != nil && en:
			fmt.Fprintf(&b, "%s gave no answer for this case.", r.Engine)
		case r.Err != nil:
			fmt.Fprintf(&b, "%s não respondeu a este caso.", r.Engine)
		case en:
			fmt.Fprintf(&b, "%s: %s dB, of which %s dB diffraction, %s dB above the lowest.", name(r), num(lang, r.PathLossDB, 1), num(lang, r.DiffractionDB, 1), num(lang, r.PathLossDB-lo, 1))
		default:
			fmt.Fprintf(&b, "%s: %s dB, dos quais %s dB de difração, %s dB acima da menor.", name(r), num(lang, r.PathLossDB, 1), num(lang, r.DiffractionDB, 1), num(lang, r.PathLossDB-lo, 1))
		}
	}
	return b.String()
}

// caveatSentence names the caveats of the choice of the best tower (the
// planner's BestTowerCaveats, package doc "Ranking") with a phrase each,
// "" when there are none. It writes no number, so it needs no fact.
func caveatSentence(lang string, caveats []appliance.Warning) string {
	if len(caveats) == 0 {
		return ""
	}
	en := lang == LangEN
	parts := make([]string, 0, len(caveats))
	for _, w := range caveats {
		var phrase string
		switch {
		case w.Code == appliance.WarnSyntheticTower && en:
			phrase = "the best tower is synthetic sample data, not real infrastructure, and no real tower closes the link"
		case w.Code == appliance.WarnSyntheticTower:
			phrase = "a melhor torre é um dado sintético de exemplo, não infraestrutura real, e nenhuma torre real fecha o enlace"
		case w.Code == appliance.WarnPositionUncertainty && en:
			phrase = "the best tower's position is uncertain for a link this short, and no real tower with a well-known position closes the link"
		case w.Code == appliance.WarnPositionUncertainty:
			phrase = "a posição da melhor torre é incerta para um enlace tão curto, e nenhuma torre real de posição bem conhecida fecha o enlace"
		case w.Code == appliance.WarnStrongerTowerDemoted && en:
			phrase = "a tower with a higher margin ranks below it because it is synthetic or its position is uncertain"
		case w.Code == appliance.WarnStrongerTowerDemoted:
			phrase = "uma torre de margem maior fica abaixo dela por ser sintética ou de posição incerta"
		default:
			phrase = w.Code
		}
		parts = append(parts, w.Code+": "+phrase)
	}
	if en {
		return "Caveats on this choice: " + strings.Join(parts, "; ") + "."
	}
	return "Ressalvas sobre esta escolha: " + strings.Join(parts, "; ") + "."
}
