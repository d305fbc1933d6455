// Package ai explains the numbers of the deterministic engine in plain
// Portuguese or English (SPEC §1.6, §4.7). It never computes a link
// margin: every answer is built from, and checked against, a fact sheet of
// one engine result (a link analysis of appliance/planner, or the
// planner's height search), and ends with the SPEC §1.6 disclaimer in the
// answer's language.
//
// # Explainers
//
// Two explainers exist. The template explainer (model
// "linkplan-template") is built in: deterministic text with the numbers of
// the fact sheet, which says that it is a template and not a language
// model. It is the only one when no provider is configured, and then the
// appliance makes no outbound call at all. A Provider is a language model
// behind the OpenAI chat-completions protocol (Client: POST
// {base}/v1/chat/completions, non-streaming, temperature 0, seed 42,
// max_tokens 512 by default), as served by llama.cpp's llama-server and by
// Ollama; an operator configures its base URL, model and timeout
// (linkplan serve --ai-provider-url, --ai-model, --ai-timeout). Every call
// to it counts once in LLM_EGRESS_TOTAL{provider="openai_compatible",
// outcome="ok"|"error"|"timeout"}; the template never counts.
//
// # States and outcomes
//
// An answer goes through these states; grounding.outcome says where it
// ended:
//
//	state                      event                                  next / outcome
//	start                      no provider configured                 template
//	start                      provider configured                    asked (1st call)
//	asked (1st call)           provider error or timeout              provider_unavailable (template answer, provider_error says why)
//	asked (1st call)           every number supported, every          grounded (model answer)
//	                           warning named
//	asked (1st call)           an unsupported number or an            asked again (2nd call: the answer, the numbers
//	                           unnamed warning                        to drop and the warnings to name are sent back)
//	asked again (2nd call)     provider error or timeout              provider_unavailable (template answer)
//	asked again (2nd call)     every number supported, every          regenerated (model answer)
//	                           warning named
//	asked again (2nd call)     an unsupported number or an            replaced_by_template (template answer)
//	                           unnamed warning
//
// unsupported_numbers lists, as written, the numbers of the model's
// answers that no fact supported (both calls), so a replaced answer says
// what the model invented. A provider failure is never an HTTP error: the
// template answers (outcome provider_unavailable) with the reason, so the
// AI routes answer 200 whenever the engine does. The template's own text
// is checked as well (checked is always true).
//
// # Explanations
//
// Chat explains a link analysis run inline (POST /ai/chat), SuggestHeight
// the planner's height search (POST /ai/suggest-height), Compare every
// engine on one case (POST /ai/compare), BatchAnalyze the rows of a
// finished batch report job of the caller's tenant, read back from its
// bundle's results.csv (POST /ai/batch-analyze: counts by status and
// margin class, the WorstSites weakest sites, every warning code with its
// rows and the TopCauses most common reasons).
//
// A question asked of Chat is answered only by a language model: when the
// template answers instead (no model configured, or none usable), the
// answer's first line says that the question was not answered and why,
// and Answer.QuestionAnswered is false.
//
// # Grounding
//
// The fact sheet (LinkFacts, HeightFacts) holds the numbers of the result:
// receiver position, height and ground, frequency, search radius, link
// budget inputs, tower counts; for the best tower and each alternative the
// distance, azimuth, path loss, diffraction, margin, received power, EIRP,
// pattern loss, tower height and ground, minimum Fresnel clearance (as a
// ratio and a percentage), the engine's intermediate values (the
// uncertainty band where an engine gives one), the dominant obstacle
// (distance from the receiver in m and km, ground, clearance, F1 radius)
// and the four minimum antenna heights; the height search adds target,
// step, cap, the suggested height and the link there; an engine
// comparison (CompareFacts) holds each engine's loss and diffraction, its
// excess over the lowest loss, the spread, the lowest and the highest, and
// the engines' errors as labels; a batch summary (BatchFacts) the row
// counts by status and margin class (bounds 0, 10 and 20 dB), the weakest
// sites (row, margin, distance; receiver and tower ids as labels) and the
// rows of each common warning code and reason (reasons as labels). The design
// constants 60 (%), 0.6 and 1 (the first zone) are facts too. Labels
// (tower ids, operators, engine and version) are facts that are text.
//
// A number in an answer is a run of digits with single '.' or ','
// separators between digits; digits that continue a word (F1, S23W044)
// or follow a letter and '.' or '-' (P.1812) belong to a name, while
// digits followed by a unit or a letter are a number (12dB, and the 5 of
// 5G). Label values are blanked out of the answer
// before the scan, so ids are not numbers. A number may be read with its
// last separator as the decimal separator (and earlier ones as thousands
// separators between groups of 3 digits), or with every separator as a
// thousands separator: "12,5" and "12.5" read 12.5, "1.234" reads 1.234
// or 1234. Signs are not compared ("a margem é 12 dB negativa").
//
// Warnings: the sheet holds the warnings of the result, one per code (a
// link analysis's, with the caller's engine_resolved note; the current and
// suggested links' of a height search; every engine's of a comparison;
// every code of a batch, with the message of its first row). An answer
// must name each by its code (ASCII case-insensitive, '_', '-' or spaces
// between its words: "fspl_obstructed", "FSPL obstructed"); the codes it
// omits are grounding.missing_warnings, and a model answer that omits one
// is asked again, then replaced, like one with an unsupported number. The
// template names every warning with its message (in English: the
// engine's), and the figures of the messages are facts
// (warning.<code>.figure_<n>).
//
// Rounding rule: a number written with k decimals is supported when some
// fact value v has |x − |v|| ≤ ½·10^−k, i.e. v rounds to it at the
// precision written ("−12 dB" and "12,4 dB" are supported by −12.43;
// "12,5 dB" is not). A number that no reading supports is unsupported.
// Numbers in the user's question are not facts.
//
// # Limits
//
// Free keys are refused (ErrForbidden, 403), Compare also below Pro (it
// runs P.1812 and ITM, as POST /coverage/engines/compare), and every AI call is charged
// once, before the engine runs, to the tenant's monthly AI quota through
// quota.Service.ChargeAI (Starter 100, Pro 1,000, Business 5,000,
// Enterprise 20,000, Ultra 50,000; a spent quota is a 429). A question is
// at most MaxQuestionRunes (2,000) characters; a provider's answer at most
// max_tokens tokens and 1 MiB.
//
// # Caveats
//
//   - The check is about numbers and warning codes: a model can still
//     misstate a fact in words ("the link closes" when it does not). The
//     template and the engine's numbers are returned with every answer
//     for that reason.
//   - The client asks stream false; a server that streams anyway is read
//     to the end ([DONE]) before the answer is checked, so nothing is
//     shown before the check.
package ai
