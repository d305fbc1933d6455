// messages.js: the console's own words, in pt-BR and English, for every
// code the API can return: error codes (web/api/openapi.json ErrorCode and
// the heatmap's error event), warning codes (Warning, BuildingWarning),
// quota counters and rate-limit groups (QuotaError, RateLimit) and the
// overdue-request reasons. The API's own message is English and stays
// available as the detail; the user reads these first.
//
// MESSAGES is strict JSON (web/console's Go tests read it and fail on a
// code of the OpenAPI document without both languages).

export const MESSAGES = {
  "error": {
    "malformed_json": { "pt-BR": "O pedido não é um JSON válido.", "en": "The request is not valid JSON." },
    "unauthenticated": { "pt-BR": "Chave de API ausente, errada ou revogada.", "en": "The API key is missing, wrong or revoked." },
    "key_erased": { "pt-BR": "Esta chave foi apagada a pedido do titular dos dados.", "en": "This key was erased at the data subject's request." },
    "forbidden": { "pt-BR": "Esta chave não tem permissão para esta ação (plano ou tipo de chave).", "en": "This key may not do this (tier or key kind)." },
    "not_found": { "pt-BR": "Não encontrado.", "en": "Not found." },
    "method_not_allowed": { "pt-BR": "Operação não permitida neste endereço.", "en": "This operation is not allowed here." },
    "conflict": { "pt-BR": "Conflito com o estado atual: recarregue e tente de novo.", "en": "Conflicts with the current state: reload and try again." },
    "body_too_large": { "pt-BR": "O arquivo ou pedido é grande demais.", "en": "The file or request is too large." },
    "invalid_input": { "pt-BR": "Um valor do formulário não é aceito.", "en": "A value of the form is not accepted." },
    "terrain_missing": { "pt-BR": "Não há dados de terreno para este local.", "en": "There is no terrain data for this place." },
    "outside_envelope": { "pt-BR": "Fora da área ou da faixa em que o modelo vale.", "en": "Outside the area or range the model is valid for." },
    "quota_exceeded": { "pt-BR": "A cota mensal do plano acabou.", "en": "The tier's monthly quota is spent." },
    "unavailable": { "pt-BR": "Serviço ocupado ou indisponível: tente de novo em instantes.", "en": "The service is busy or unavailable: try again shortly." },
    "unsupported_media_type": { "pt-BR": "Tipo de arquivo não aceito.", "en": "This file type is not accepted." },
    "timeout": { "pt-BR": "O cálculo demorou demais: reduza o raio ou a resolução.", "en": "The computation took too long: reduce the radius or the resolution." },
    "no_tower": { "pt-BR": "Nenhuma torre ao alcance.", "en": "No tower within reach." },
    "batch_over_limit": { "pt-BR": "O lote tem mais linhas do que o plano permite.", "en": "The batch has more rows than the tier allows." },
    "malformed_multipart": { "pt-BR": "O envio do arquivo chegou incompleto ou malformado.", "en": "The file upload arrived incomplete or malformed." },
    "rate_limited": { "pt-BR": "Pedidos demais em pouco tempo: aguarde um minuto.", "en": "Too many requests in a short time: wait a minute." },
    "invalid_tile": { "pt-BR": "Endereço de bloco de mapa inválido.", "en": "Invalid map tile address." },
    "canceled": { "pt-BR": "Mapa cancelado.", "en": "Map cancelled." },
    "missing_terrain": { "pt-BR": "Falta terreno para parte da área.", "en": "Terrain is missing for part of the area." },
    "interrupted": { "pt-BR": "O equipamento reiniciou durante o cálculo: comece de novo.", "en": "The appliance restarted during the computation: start again." },
    "failed": { "pt-BR": "Falha interna (o registro do equipamento tem os detalhes).", "en": "Internal failure (the appliance log has the details)." },
    "worker_crashed": { "pt-BR": "O processo de cálculo caiu: comece de novo.", "en": "The computing worker crashed: start again." },
    "network": { "pt-BR": "Sem resposta do equipamento (rede).", "en": "No answer from the appliance (network)." }
  },
  "warning": {
    "fspl_obstructed": { "pt-BR": "Caminho obstruído ou Fresnel < 60 % livre com o motor fspl, que ignora o terreno: use P.1812 ou ITM.", "en": "Path obstructed or Fresnel < 60 % clear with the fspl engine, which ignores terrain: use P.1812 or ITM." },
    "eirp_assumed": { "pt-BR": "EIRP presumida: a torre não informa potência.", "en": "Assumed EIRP: the tower states no power." },
    "synthetic_tower": { "pt-BR": "Torre sintética (dado de exemplo, não existe).", "en": "Synthetic tower (sample data, not real)." },
    "position_uncertainty": { "pt-BR": "Posição da torre incerta em mais de 10 % da distância.", "en": "Tower position uncertain by more than 10 % of the distance." },
    "stronger_tower_demoted": { "pt-BR": "Uma torre com margem maior, porém sintética ou de posição incerta, ficou abaixo desta.", "en": "A tower with a higher margin, synthetic or of uncertain position, ranks below this one." },
    "no_land_cover": { "pt-BR": "Sem dados de cobertura do solo no caminho.", "en": "No land-cover data along the path." },
    "void_filled_terrain": { "pt-BR": "O caminho cruza terreno interpolado (falhas do modelo de elevação).", "en": "The path crosses interpolated terrain (elevation model voids)." },
    "engine_fallback": { "pt-BR": "O motor pedido não respondeu; o fspl respondeu em seu lugar.", "en": "The requested engine did not answer; fspl answered instead." },
    "engine_resolved": { "pt-BR": "O motor automático escolheu outro motor para o plano.", "en": "The automatic engine chose another engine for the tier." },
    "outside_validity": { "pt-BR": "Um valor está fora da faixa validada do modelo.", "en": "A value is outside the model's validated range." },
    "itm_warning": { "pt-BR": "O ITM sinalizou um aviso para este caminho.", "en": "ITM flagged a warning for this path." },
    "itm_troposcatter": { "pt-BR": "O ITM respondeu em modo de tropodifusão: não é um valor de projeto.", "en": "ITM answered in troposcatter mode: not a design value." },
    "profile_resampled": { "pt-BR": "O perfil foi reamostrado.", "en": "The profile was resampled." },
    "parameter_ignored": { "pt-BR": "Um parâmetro foi ignorado por este motor.", "en": "A parameter was ignored by this engine." },
    "void_mask_unavailable": { "pt-BR": "O pacote de terreno não diz onde houve interpolação.", "en": "The terrain pack does not say where it was interpolated." },
    "missing_terrain": { "pt-BR": "Parte da área não tem terreno: esses pontos ficam sem valor.", "en": "Part of the area has no terrain: those points have no value." },
    "model_not_field_validated": { "pt-BR": "O modelo aprendido não foi validado em campo.", "en": "The learned model was not validated in the field." },
    "deprecated_field": { "pt-BR": "Um campo foi enviado com nome antigo e lido com o novo.", "en": "A field was sent under an old name and read as the new one." },
    "antenna_unavailable": { "pt-BR": "A antena do catálogo não pôde ser lida: usada a genérica.", "en": "The catalogue antenna could not be read: the generic one was used." },
    "pattern_not_normalised": { "pt-BR": "O diagrama da antena não estava normalizado em 0 dB.", "en": "The antenna pattern was not normalised to 0 dB." },
    "stated_value_mismatch": { "pt-BR": "Um valor declarado no arquivo da antena não bate com o diagrama.", "en": "A value stated in the antenna file does not match its pattern." },
    "unit_assumed": { "pt-BR": "Unidade do ganho presumida no arquivo da antena.", "en": "Gain unit assumed in the antenna file." },
    "vertical_zenith_referenced": { "pt-BR": "Corte vertical medido a partir do zênite, convertido.", "en": "Vertical cut measured from the zenith, converted." },
    "cut_ignored": { "pt-BR": "Cortes extras do arquivo da antena não foram usados.", "en": "Extra cuts of the antenna file were not used." },
    "gain_not_stated": { "pt-BR": "O arquivo da antena não declara o ganho.", "en": "The antenna file states no gain." },
    "raytrace_assumed_heights": { "pt-BR": "Edificações sem altura receberam a altura padrão no traçado de raios.", "en": "Buildings without a height got the default height in the ray tracing." },
    "raytrace_terrain_void": { "pt-BR": "O traçado de raios cruza terreno interpolado.", "en": "The ray tracing crosses interpolated terrain." },
    "raytrace_flat_ground": { "pt-BR": "O terreno não cobre a camada de edificações: o traçado de raios usou solo plano a 0 m, não o relevo.", "en": "The terrain does not cover the building layer: the ray tracing used flat ground at 0 m, not the terrain." },
    "raytrace_scene_truncated": { "pt-BR": "O caminho sai da extensão da camada de edificações: as edificações além da borda são desconhecidas e não entraram no traçado.", "en": "The path leaves the building layer's extent: the buildings beyond its edge are unknown and were not traced." },
    "raytrace_clutter_beyond_extent": { "pt-BR": "O caminho sai da extensão da camada de edificações: as edificações desconhecidas além da borda foram modeladas como obstrução com a altura mediana das edificações da camada.", "en": "The path leaves the building layer's extent: the unknown buildings beyond its edge were modelled as clutter as tall as the layer's median building." },
    "raytrace_pattern_along_bearing": { "pt-BR": "O diagrama da antena transmissora foi aplicado na direção direta de cada pixel, não na de partida de cada caminho.", "en": "The transmitting antenna's pattern was applied along each pixel's direct bearing, not along each path's departure." },
    "raytrace_material_out_of_range": { "pt-BR": "Um material está fora da faixa de frequência do seu modelo.", "en": "A material is outside its model's frequency range." },
    "raytrace_tx_inside_building": { "pt-BR": "O transmissor está dentro de uma edificação.", "en": "The transmitter is inside a building." },
    "raytrace_rx_inside_building": { "pt-BR": "O receptor está dentro de uma edificação.", "en": "The receiver is inside a building." },
    "raytrace_no_path": { "pt-BR": "O traçado de raios não achou nenhum caminho.", "en": "The ray tracing found no path." },
    "raytrace_paths_truncated": { "pt-BR": "Só os caminhos mais fortes estão listados; a potência soma todos.", "en": "Only the strongest paths are listed; the power sums them all." },
    "raytrace_towers_beyond_layer": { "pt-BR": "Torres fora da camada de edificações não entraram no traçado.", "en": "Towers beyond the building layer were left out of the ray tracing." },
    "raytrace_towers_limited": { "pt-BR": "Só as torres mais próximas entraram no traçado de raios.", "en": "Only the nearest towers were ray traced." },
    "availability_not_computed": { "pt-BR": "A disponibilidade não foi calculada.", "en": "The availability was not computed." },
    "availability_on_obstructed_path": { "pt-BR": "Disponibilidade calculada num caminho obstruído: não vale como projeto.", "en": "Availability computed on an obstructed path: not a design value." },
    "antenna_band_mismatch": { "pt-BR": "A antena não é da faixa de frequência do enlace.", "en": "The antenna is not for the link's frequency band." },
    "antenna_misaligned": { "pt-BR": "A antena não aponta para a outra ponta.", "en": "The antenna does not point at the other end." },
    "clearance_rule_not_met": { "pt-BR": "A regra de folga de Fresnel não é atendida.", "en": "The Fresnel clearance rule is not met." },
    "no_mode_meets_target": { "pt-BR": "Nenhuma modulação atinge a meta de disponibilidade.", "en": "No modulation meets the availability target." },
    "availability_outside_method_range": { "pt-BR": "Enlace fora da faixa validada do método de disponibilidade.", "en": "The link is outside the availability method's validated range." },
    "rain_r001_annex1_method": { "pt-BR": "Chuva pela taxa R0,01 do Anexo 1 da ITU-R P.837.", "en": "Rain from the R0.01 rate of ITU-R P.837 Annex 1." },
    "no_fade_margin": { "pt-BR": "Sem margem de desvanecimento.", "en": "No fade margin." },
    "availability_is_a_bound": { "pt-BR": "A disponibilidade é um limite, não uma estimativa.", "en": "The availability is a bound, not an estimate." },
    "calibration_outside_area": { "pt-BR": "O receptor (ou parte do mapa) está fora da área coberta pelas medições da calibração: ali só vale o ajuste geral do transmissor ou da faixa.", "en": "The receiver (or part of the map) lies outside the area the calibration's measurements cover: only the transmitter-wide or band-wide offset applies there." },
    "acs_assumed": { "pt-BR": "Interferente de canal adjacente contado com a seletividade padrão de 33 dB: o equipamento não informa a sua.", "en": "An adjacent-channel interferer was counted with the default selectivity of 33 dB: the equipment states none." },
    "ci_below_requirement": { "pt-BR": "A C/I numa ponta está abaixo da C/I exigida.", "en": "The C/I at an end is below the required C/I." },
    "public_channel_assumed": { "pt-BR": "A faixa de uma torre pública foi tomada como um canal de 20 MHz centrado nela.", "en": "A public tower's band was taken as a 20 MHz channel centred on it." },
    "interferers_dropped": { "pt-BR": "Mais de 500 torres no raio: as mais distantes não foram avaliadas.", "en": "More than 500 towers within the radius: the farthest were not evaluated." },
    "buildings_assumed_heights": { "pt-BR": "Edificações sem altura receberam a altura padrão.", "en": "Buildings without a height got the default height." },
    "buildings_unusable_height_tags": { "pt-BR": "Etiquetas de altura ou de pavimentos ilegíveis ou implausíveis foram ignoradas; valeu a regra seguinte.", "en": "Unreadable or implausible height or storey tags were ignored; the next height rule applied." },
    "buildings_sirgas2000_as_wgs84": { "pt-BR": "Coordenadas em SIRGAS 2000 (EPSG:4674) lidas como WGS84, com que coincidem em cerca de 1 m.", "en": "SIRGAS 2000 (EPSG:4674) coordinates were read as WGS84, which they match within about 1 m." },
    "buildings_outer_ways_merged": { "pt-BR": "Vias marcadas como edificação que formam o anel externo de um multipolígono de edificação foram fundidas nele (uma só edificação).", "en": "Ways tagged as buildings that form the outer ring of a building multipolygon were merged into it (one building)." },
    "buildings_rings_dropped": { "pt-BR": "Vias de multipolígonos de edificação ficaram de fora: um pátio interno fora de todo anel externo (fica maciço na cena) ou um anel externo que não fecha (falta essa parte da edificação).", "en": "Member ways of building multipolygons were left out: a courtyard in no outer ring (solid in the scene) or an outer ring that does not close (that part of the building is missing)." },
    "buildings_outlines_replaced_by_parts": { "pt-BR": "Contornos de edificação substituídos pelas suas partes (building:part), que trazem as alturas.", "en": "Building outlines were replaced by their building:part shapes, which carry the heights." }
  },
  "counter": {
    "calls": { "pt-BR": "chamadas à API", "en": "API calls" },
    "pdfs": { "pt-BR": "relatórios PDF", "en": "PDF reports" },
    "ai": { "pt-BR": "explicações por IA", "en": "AI explanations" }
  },
  "group": {
    "read": { "pt-BR": "consultas", "en": "reads" },
    "compute": { "pt-BR": "cálculos", "en": "computations" },
    "prediction": { "pt-BR": "predições", "en": "predictions" },
    "maps": { "pt-BR": "mapas", "en": "maps" },
    "batch": { "pt-BR": "lotes", "en": "batches" },
    "write": { "pt-BR": "gravações", "en": "writes" },
    "observations": { "pt-BR": "observações", "en": "observations" },
    "ai": { "pt-BR": "IA", "en": "AI" },
    "tenant": { "pt-BR": "conta", "en": "account" }
  },
  "reason": {
    "answer_due": { "pt-BR": "resposta vencida", "en": "answer overdue" },
    "hard_delete_due": { "pt-BR": "exclusão definitiva vencida", "en": "hard delete overdue" }
  },
  "ui": {
    "detail": { "pt-BR": "Detalhe da API: {text}", "en": "API detail: {text}" },
    "field": { "pt-BR": "Campo: {field}", "en": "Field: {field}" },
    "quotaMonthly": { "pt-BR": "Limite de {counter} do plano {tier}: {used} de {limit} usados; renova em {reset}.", "en": "The {tier} tier's {counter} limit: {used} of {limit} used; renews {reset}." },
    "quotaRate": { "pt-BR": "Limite de {limit} pedidos por minuto para {group} no plano {tier}.", "en": "Limit of {limit} requests a minute for {group} on the {tier} tier." }
  }
};

const pick = (entry, lang) => (entry ? entry[lang] || entry.en : null);

// message returns the text of code in kind ('error', 'warning', 'counter',
// 'group', 'reason', 'ui') for lang, with {name} replaced from vars; null
// when the code is unknown (a newer appliance: the caller falls back to
// the API's own text).
export function message(kind, code, lang, vars) {
  const s = pick((MESSAGES[kind] || {})[code], lang);
  if (s === null) return null;
  return vars ? s.replace(/\{(\w+)\}/g, (m, k) => (vars[k] === undefined ? m : String(vars[k]))) : s;
}

// warningText is a warning in the user's language: the translated code,
// else the API's message.
export function warningText(w, lang) {
  return message('warning', w.code, lang) || w.message || w.code;
}
